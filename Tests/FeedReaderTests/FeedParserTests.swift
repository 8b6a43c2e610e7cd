import Foundation
import Testing
@testable import FeedReader

// MARK: - Helpers

/// `Examples/FeedReader/Feeds`, found from this file's place in the repository (through a
/// symbolic link to this file, if one is compiled).
private let feedsFolder = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/FeedReader/Feeds")

/// A bundled feed, parsed.
private func bundled(_ name: String) throws -> Feed {
    try FeedParser.parse(contentsOf: feedsFolder.appendingPathComponent(name))
}

/// A feed written inline, parsed.
private func parse(_ xml: String) throws(FeedError) -> Feed {
    try FeedParser.parse(Data(xml.utf8))
}

/// The error parsing `xml` throws, or nil when it parses.
private func failure(_ xml: String) -> FeedError? {
    do {
        _ = try parse(xml)
        return nil
    } catch {
        return error
    }
}

/// A UTC date built with Foundation's calendar, independently of ``FeedDate``.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int,
                 fraction: Double = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return calendar.date(from: components)!.addingTimeInterval(fraction)
}

/// An RSS document with one channel holding `items`.
private func rss(_ items: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
    <channel>
    <title>Test</title>
    \(items)
    </channel>
    </rss>
    """
}

/// An Atom document holding `entries`.
private func atom(_ entries: String) -> String {
    """
    <?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom">
    <title>Test</title>
    \(entries)
    </feed>
    """
}

// MARK: - Bundled feeds

/// The bundled feeds parse with the counts and posts their README gives.
@Suite("Bundled feeds")
struct BundledFeedTests {
    /// newsroom-1: 500 distinct posts over 30 UTC days, newest first, 20 identified by their link.
    @Test func newsroomOneHas500PostsOver30DaysNewestFirst() throws {
        let feed = try bundled("newsroom-1.xml")
        #expect(feed.title == "Harbourtown Newsroom")
        #expect(feed.format == .rss)
        #expect(feed.posts.count == 500)
        #expect(Set(feed.posts.map(\.id)).count == 500)
        #expect(Set(feed.posts.map(\.day)).count == 30)
        #expect(feed.posts.first?.day == "2026-11-21")
        #expect(feed.posts.last?.day == "2026-10-23")
        #expect(zip(feed.posts, feed.posts.dropFirst()).allSatisfy { $0.published >= $1.published })
        #expect(feed.posts.filter { $0.id.hasPrefix("https://newsroom.example/news/") }.count == 20)
    }

    /// newsroom-1: a link-as-id post, a wrapped title in +0100, a character reference, an escaped description.
    @Test func newsroomOneHoldsExactPosts() throws {
        let posts = try bundled("newsroom-1.xml").posts
        // No <guid>: the link is the id. CDATA description.
        #expect(posts[0] == FeedPost(
            id: "https://newsroom.example/news/2026/11/21/millbrook-athletic-beat-fernhill-town-5",
            title: "Millbrook Athletic beat Fernhill Town 5–0 at Fernhill Rec",
            link: "https://newsroom.example/news/2026/11/21/millbrook-athletic-beat-fernhill-town-5",
            published: utc(2026, 11, 21, 15, 45, 23), day: "2026-11-21",
            summary: "<p>Residents packed the hall for a meeting that ran well past ten. Tickets are <em>free</em> "
                + "but must be booked in advance. The figures are up 12% on the same month last year.</p>"
                + "<p>Queues at the covered market stretched past the clock tower. Volunteers will be on hand "
                + "from 9am until dusk.</p>",
            category: "Sport"))
        // A title wrapped over lines; +0100 shown on the 14th is the 13th in UTC; first category.
        let wrapped = try #require(posts.first { $0.id == "https://newsroom.example/p/0367" })
        #expect(wrapped == FeedPost(
            id: "https://newsroom.example/p/0367",
            title: "Northgate Wanderers beat Fernhill Town 5–0 at the Mill Lane ground",
            link: "https://newsroom.example/news/2026/11/13/northgate-wanderers-beat-fernhill-town-5",
            published: utc(2026, 11, 13, 23, 30, 16), day: "2026-11-13",
            summary: "<p>The figures are up 12% on the same month last year.</p>",
            category: "Sport"))
        // A character reference in the title; no description.
        let quoted = try #require(posts.first { $0.id == "https://newsroom.example/p/0490" })
        #expect(quoted.title == "Eastquay’s cinema reopens after 16 months")
        #expect(quoted.summary == nil)
        #expect(quoted.category == "Culture")
        // The oldest post: escaped HTML description, &#8211; in the title.
        #expect(posts[499] == FeedPost(
            id: "https://newsroom.example/p/0001",
            title: "Saltmarsh United and Millbrook Athletic draw 1–1",
            link: "https://newsroom.example/news/2026/10/23/saltmarsh-united-and-millbrook-athletic-draw",
            published: utc(2026, 10, 23, 1, 12, 26), day: "2026-10-23",
            summary: "<p>Organisers say the event will go ahead whatever the weather. Tickets are <em>free</em> "
                + "but must be booked in advance. Residents packed the hall for a meeting that ran well past ten.</p>"
                + "<p>Queues at the covered market stretched past the clock tower. The figures are up 12% on the "
                + "same month last year.</p>",
            category: "Sport"))
    }

    /// newsroom-2 against newsroom-1, by id and by content, as the Feeds README counts them.
    @Test func newsroomTwoDiffersFromOneByTheReadmeCounts() throws {
        let one = try bundled("newsroom-1.xml").posts
        let two = try bundled("newsroom-2.xml").posts
        #expect(two.count == 500)
        let before = Dictionary(uniqueKeysWithValues: one.map { ($0.id, $0) })
        let after = Dictionary(uniqueKeysWithValues: two.map { ($0.id, $0) })
        let added = two.filter { before[$0.id] == nil }
        let removed = one.filter { after[$0.id] == nil }
        let kept = two.compactMap { post in before[post.id].map { (old: $0, new: post) } }
        #expect(added.count == 50)
        #expect(removed.count == 50)
        #expect(kept.count == 450)

        // By content.
        #expect(Set(one).intersection(two).count == 430)
        let edited = kept.filter { $0.old != $0.new }
        #expect(edited.count == 20)
        let retitled = edited.filter { $0.old.title != $0.new.title }
        let moved = edited.filter { $0.old.day != $0.new.day }
        #expect(retitled.count == 15 && retitled.allSatisfy { $0.old.published == $0.new.published })
        #expect(moved.count == 5 && moved.allSatisfy { $0.old.title == $0.new.title })
        #expect(edited.allSatisfy { edit in
            edit.old.link == edit.new.link && edit.old.summary == edit.new.summary
        })

        // The 50 oldest are gone; the new ones are the newest, most on a new day.
        let oldestKept = try #require(kept.map(\.old.published).min())
        #expect(removed.allSatisfy { $0.published < oldestKept })
        #expect(Dictionary(grouping: removed, by: \.day).mapValues(\.count)
            == ["2026-10-23": 23, "2026-10-24": 16, "2026-10-25": 11])
        let newestBefore = try #require(one.map(\.published).max())
        #expect(added.allSatisfy { $0.published > newestBefore })
        #expect(Dictionary(grouping: added, by: \.day).mapValues(\.count) == ["2026-11-21": 19, "2026-11-22": 31])
        let daysBefore = Set(one.map(\.day)), daysAfter = Set(two.map(\.day))
        #expect(daysAfter.count == 29)
        #expect(daysBefore.subtracting(daysAfter) == ["2026-10-23", "2026-10-24"])
        #expect(daysAfter.subtracting(daysBefore) == ["2026-11-22"])

        let retitledExample = try #require(after["https://newsroom.example/p/0490"])
        #expect(retitledExample.title == "Q&A: Ilse Varga on parking")
        let movedExample = try #require(after["https://newsroom.example/p/0219"])
        #expect(before["https://newsroom.example/p/0219"]?.day == "2026-11-05")
        #expect(movedExample.day == "2026-11-08")
    }

    /// The 430 unchanged posts of newsroom-2 are the same `<item>` bytes as in newsroom-1.
    @Test func newsroomTwoKeeps430ItemsByteForByte() throws {
        /// The text of each `<item>` of a bundled file, between its tags.
        func items(_ name: String) throws -> [Substring] {
            let text = try String(contentsOf: feedsFolder.appendingPathComponent(name), encoding: .utf8)
            return text.split(separator: "<item>").dropFirst().map { $0.split(separator: "</item>")[0] }
        }
        let one = Set(try items("newsroom-1.xml"))
        let two = try items("newsroom-2.xml")
        #expect(one.count == 500 && two.count == 500)
        #expect(two.filter(one.contains).count == 430)
    }

    /// newsroom-3 is a re-sync of newsroom-2 that changes no post.
    @Test func newsroomThreeHasTheSamePostsAsTwo() throws {
        let two = try bundled("newsroom-2.xml")
        let three = try bundled("newsroom-3.xml")
        #expect(three.posts == two.posts)
        #expect(three.title == two.title)
    }

    /// devblog: offsets, fractions, updated-only entries, link rules, summary over content, XHTML.
    @Test func devblogHas40EntriesWithAtomDates() throws {
        let feed = try bundled("devblog.atom")
        #expect(feed.title == "Lanternfish Engineering")
        #expect(feed.format == .atom)
        #expect(feed.posts.count == 40)
        #expect(Set(feed.posts.map(\.day)).count == 35)
        #expect(feed.posts.filter { $0.summary?.hasPrefix("Notes on ") == true }.count == 13)
        #expect(feed.posts.allSatisfy { $0.link?.hasPrefix("https://devblog.example/2026/") == true })
        #expect(feed.posts.allSatisfy { $0.link?.contains("#comments") == false })

        let byID = Dictionary(uniqueKeysWithValues: feed.posts.map { ($0.id, $0) })
        // Only <updated>, in Z.
        #expect(byID["tag:devblog.example,2026:entry-040"] == FeedPost(
            id: "tag:devblog.example,2026:entry-040",
            title: "Why we moved to SQLite, part 5",
            link: "https://devblog.example/2026/11/why-we-moved-to-sqlite-part-40",
            published: utc(2026, 11, 21, 19, 24, 29), day: "2026-11-21",
            summary: "<p>We measured before we changed anything, and the numbers surprised us.</p>"
                + "<pre><code>let x = a &lt; b</code></pre>",
            category: "storage"))
        // <link> without rel, a fraction and a negative offset; summary wins over content.
        #expect(byID["tag:devblog.example,2026:entry-003"] == FeedPost(
            id: "tag:devblog.example,2026:entry-003",
            title: "Testing with seeded randomness",
            link: "https://devblog.example/2026/06/testing-with-seeded-randomness-3",
            published: utc(2026, 6, 11, 1, 11, 8, fraction: 0.25), day: "2026-06-11",
            summary: "Notes on testing with seeded randomness.",
            category: "testing"))
        // A rel="replies" link comes first; six fraction digits.
        let replies = try #require(byID["tag:devblog.example,2026:entry-012"])
        #expect(replies.link == "https://devblog.example/2026/07/shrinking-our-build-times-12")
        #expect(replies.published == utc(2026, 7, 10, 1, 22, 34, fraction: 0.123456))
        // XHTML content: the markup goes, the text stays.
        #expect(byID["tag:devblog.example,2026:entry-005"]?.summary
            == "We measured before we changed anything, and the numbers surprised us. Part 1 of the series.")
    }

    /// podcast: `itunes:` and `atom:` elements leave titles and summaries alone; PST dates.
    @Test func podcastIgnoresItunesElements() throws {
        let feed = try bundled("podcast.xml")
        #expect(feed.title == "Tide Tables")
        #expect(feed.format == .rss)
        #expect(feed.posts.count == 20)
        #expect(Set(feed.posts.map(\.day)).count == 20)
        #expect(feed.posts.filter { $0.link == nil }.count == 4)
        #expect(feed.posts.allSatisfy { $0.title.hasPrefix("Ep. ") && $0.summary?.contains("joins us") == true })
        #expect(feed.posts[0] == FeedPost(
            id: "e41f59bd-85b8-4f5a-ad35-301829ba2081",
            title: "Ep. 20: Shipwrecks of the Eastquay coast",
            link: nil,
            published: utc(2026, 11, 19, 5, 0, 0), day: "2026-11-19",
            summary: "Jonah Whitlow joins us to talk about shipwrecks of the eastquay coast.",
            category: nil))
        // 9 pm PST on the 11th is 5 am UTC on the 12th.
        #expect(feed.posts[1].id == "ca3ce43b-5119-4a20-b90d-bcbca348eecd")
        #expect(feed.posts[1].published == utc(2026, 11, 12, 5, 0, 0))
        #expect(feed.posts[1].day == "2026-11-12")
    }
}

// MARK: - Dates

/// RFC 822 and RFC 3339 variants that feeds use, and texts that are not dates.
@Suite("Feed dates")
struct FeedDateTests {
    /// RSS dates with and without day names and seconds, numeric and named zones, short years.
    @Test(arguments: [
        ("Sat, 21 Nov 2026 09:30:00 +0000", utc(2026, 11, 21, 9, 30, 0)),
        ("21 Nov 2026 09:30:00 +0000", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 09:30 GMT", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 09:30:00 UT", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 09:30:00 Z", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 04:30:00 -0500", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 04:30:00 EST", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 02:30:00 pdt", utc(2026, 11, 21, 9, 30, 0)),
        ("Sat, 21 Nov 2026 15:00:00 +0530", utc(2026, 11, 21, 9, 30, 0)),
        ("Sun, 1 Nov 2026 00:00:00 +0100", utc(2026, 10, 31, 23, 0, 0)),
        ("sun,01 nov 26 00:00:00 +0000", utc(2026, 11, 1, 0, 0, 0)),
        ("Thu, 29 Feb 2024 12:00:00 +0000", utc(2024, 2, 29, 12, 0, 0)),
        ("Thu, 01 Jan 1970 00:00:00 +0000", utc(1970, 1, 1, 0, 0, 0)),
    ])
    func rfc822Parses(_ text: String, _ expected: Date) {
        #expect(FeedDate.rfc822(text) == expected)
    }

    /// Texts that are not RFC 822 dates, or name days and times that do not exist.
    @Test(arguments: [
        "", "yesterday", "2026-11-21T09:30:00Z", "Sat, 21 Nov 2026 09:30:00", "Sat, 31 Nov 2026 09:30:00 +0000",
        "Sat, 21 Nov 2026 24:00:00 +0000", "Sat, 21 Nov 2026 09:61:00 +0000", "Sat, 21 Nov 2026 09:30:00 +2500",
        "Sat, 21 Nov 2026 09:30:00 +00:00", "Sat, 21 Nov 2026 09:30:00 CET", "Xyz, 21 Nov 2026 09:30:00 +0000",
        "Sat, 21 November 2026 09:30:00 +0000", "Sat, 21 Nov 202 09:30:00 +0000", "Sat, 21 Nov 2026 9:30:00 +0000",
        "Sat, 21 Nov 2026 09:30:00 +0000 extra", "Fri, 29 Feb 2026 12:00:00 +0000",
    ])
    func rfc822Rejects(_ text: String) {
        #expect(FeedDate.rfc822(text) == nil)
    }

    /// Atom dates with `Z`, offsets, fractions of any length, lowercase letters and a leap second.
    @Test(arguments: [
        ("2026-11-21T09:30:00Z", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21t09:30:00z", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21 09:30:00Z", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21T09:30:00+00:00", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21T09:30:00-00:00", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21T01:30:00-08:00", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21T15:00:00+05:30", utc(2026, 11, 21, 9, 30, 0)),
        ("2026-11-21T09:30:00.5Z", utc(2026, 11, 21, 9, 30, 0, fraction: 0.5)),
        ("2026-11-21T09:30:00.250+01:00", utc(2026, 11, 21, 8, 30, 0, fraction: 0.25)),
        ("2026-11-21T09:30:00.123456-07:00", utc(2026, 11, 21, 16, 30, 0, fraction: 0.123456)),
        ("2026-12-31T23:59:60Z", utc(2027, 1, 1, 0, 0, 0)),
        ("2026-01-01T00:30:00+01:00", utc(2025, 12, 31, 23, 30, 0)),
    ])
    func rfc3339Parses(_ text: String, _ expected: Date) {
        #expect(FeedDate.rfc3339(text) == expected)
    }

    /// Texts that are not RFC 3339 dates, or name days and times that do not exist.
    @Test(arguments: [
        "", "2026-11-21", "2026-11-21T09:30:00", "2026-11-21T09:30Z", "2026-11-21T09:30:00+0100",
        "2026-11-21T09:30:00.Z", "2026-11-21T09:30:00Z ", "2026-02-30T09:30:00Z", "2026-13-01T09:30:00Z",
        "2026-11-21T24:00:00Z", "2026-11-21T09:30:00+24:00", "26-11-21T09:30:00Z", "Sat, 21 Nov 2026 09:30:00 +0000",
        "2026-11-21T09:30:00GMT", "2026-11-21T09:30:00 Z",
    ])
    func rfc3339Rejects(_ text: String) {
        #expect(FeedDate.rfc3339(text) == nil)
    }

    /// The day of a date is its UTC day, to the last fraction of a second.
    @Test func dayIsTheUTCDay() {
        #expect(FeedDate.day(of: utc(2026, 11, 21, 0, 0, 0)) == "2026-11-21")
        #expect(FeedDate.day(of: utc(2026, 11, 21, 23, 59, 59, fraction: 0.999)) == "2026-11-21")
        #expect(FeedDate.day(of: utc(1969, 12, 31, 23, 59, 59, fraction: 0.5)) == "1969-12-31")
        #expect(FeedDate.day(of: utc(2000, 2, 29, 12, 0, 0)) == "2000-02-29")
    }

    /// The calendar arithmetic agrees with Foundation's Gregorian calendar both ways.
    @Test func civilDaysAgreeWithFoundationsCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Every third day from 1896 to 2104: leap years, centuries, both sides of 1970.
        for days in stride(from: -27_000, through: 49_000, by: 3) {
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            let expected = calendar.dateComponents([.year, .month, .day], from: date)
            let civil = FeedDate.civil(fromDays: days)
            #expect(civil.year == expected.year && civil.month == expected.month && civil.day == expected.day)
            #expect(FeedDate.daysFromCivil(year: civil.year, month: civil.month, day: civil.day) == days)
        }
    }
}

// MARK: - Text

/// How element text becomes post fields: CDATA, entities, whitespace, and the elements that
/// do not count.
@Suite("Feed text")
struct FeedTextTests {
    /// A date for posts whose date does not matter.
    private let date = "<pubDate>Sat, 21 Nov 2026 09:30:00 +0000</pubDate>"

    /// XML's entities and character references read as their characters; escaped HTML stays HTML.
    @Test func entitiesAndCharacterReferencesAreDecoded() throws {
        let post = try parse(rss("""
            <item><guid>a</guid>\(date)
            <title>Fish &amp; chips &#8217;n&#x2019; &lt;more&gt; &quot;here&quot; &apos;too&apos;</title>
            <description>&lt;p&gt;Tea &amp;amp; cake&lt;/p&gt;</description></item>
            """)).posts[0]
        #expect(post.title == "Fish & chips ’n’ <more> \"here\" 'too'")
        #expect(post.summary == "<p>Tea &amp; cake</p>")
    }

    /// CDATA reads literally, and joins the plain text beside it.
    @Test func cdataIsTakenLiterallyAndJoinsTheTextAroundIt() throws {
        let post = try parse(rss("""
            <item><guid>a</guid>\(date)
            <title><![CDATA[Fish & chips]]></title>
            <description>Before <![CDATA[<p>Tea &amp; cake</p>]]> after</description></item>
            """)).posts[0]
        #expect(post.title == "Fish & chips")
        #expect(post.summary == "Before <p>Tea &amp; cake</p> after")
    }

    /// Every field is trimmed; titles go on one line; an empty field is absent.
    @Test func whitespaceIsTrimmedAndTitlesAreCollapsed() throws {
        let post = try parse(rss("""
            <item>
              <guid>
                a
              </guid>
              <title>
                A title
                over	two lines
              </title>
              <link>   https://x.example/a   </link>
              <pubDate>  Sat, 21 Nov 2026 09:30:00 +0000
              </pubDate>
              <description>
                First line.
                Second line.
              </description>
              <category>  </category>
            </item>
            """)).posts[0]
        #expect(post.id == "a")
        #expect(post.title == "A title over two lines")
        #expect(post.link == "https://x.example/a")
        #expect(post.summary == "First line.\n    Second line.")  // inner line breaks are kept
        #expect(post.category == nil)
    }

    /// Only the feed's own elements at their own depth count; markup inside a field is dropped.
    @Test func nestedAndNamespacedElementsDoNotLeakIntoRSSPosts() throws {
        let feed = try parse("""
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/"
                 xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel>
              <atom:link href="https://x.example/feed" rel="self"/>
              <itunes:title>Not the title</itunes:title>
              <image><title>Not the title either</title></image>
              <title>Real title</title>
              <title>A second title</title>
              <item>
                <itunes:title>Wrong</itunes:title>
                <atom:link href="https://x.example/wrong"/>
                <media:content url="u"><media:title>Wrong</media:title><title>Wrong</title></media:content>
                <title>Right</title>
                <link>https://x.example/right</link>
                \(date)
                <category>First</category><category>Second</category>
                <description>Kept <b>bold</b> text</description>
              </item>
            </channel>
            </rss>
            """)
        #expect(feed.title == "Real title")
        #expect(feed.posts == [FeedPost(
            id: "https://x.example/right", title: "Right", link: "https://x.example/right",
            published: utc(2026, 11, 21, 9, 30, 0), day: "2026-11-21",
            summary: "Kept bold text", category: "First")])
    }

    /// Atom: first alternate link, published over updated, summary over content, first category.
    @Test func atomEntriesReadLinksDatesAndContentByTheirRules() throws {
        let posts = try parse(atom("""
            <entry>
              <id>one</id><title type="html">A &amp;amp; B</title>
              <link rel="self" href="https://x.example/self"/>
              <link rel="replies" href="https://x.example/replies"/>
              <link href="https://x.example/one"/>
              <link rel="alternate" href="https://x.example/second"/>
              <published>2026-11-20T10:00:00+01:00</published><updated>2026-11-22T10:00:00Z</updated>
              <author><name>Not a title</name><title>Wrong</title></author>
              <category term="swift"/><category term="other"/>
              <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Only</p> <p>content</p></div></content>
            </entry>
            <entry>
              <id>two</id><title>Two</title>
              <updated>2026-11-22T10:00:00.5Z</updated>
              <summary>The summary</summary><content type="html">&lt;p&gt;The content&lt;/p&gt;</content>
            </entry>
            """)).posts
        #expect(posts == [
            FeedPost(id: "one", title: "A &amp; B", link: "https://x.example/one",
                     published: utc(2026, 11, 20, 9, 0, 0), day: "2026-11-20",
                     summary: "Only content", category: "swift"),
            FeedPost(id: "two", title: "Two", link: nil,
                     published: utc(2026, 11, 22, 10, 0, 0, fraction: 0.5), day: "2026-11-22",
                     summary: "The summary", category: nil),
        ])
    }

    /// A `<feed>` root without the Atom namespace is still read as Atom.
    @Test func atomWithoutANamespaceIsStillAtom() throws {
        let feed = try parse(
            "<feed><title>T</title><entry><id>x</id><updated>2026-11-21T09:30:00Z</updated></entry></feed>")
        #expect(feed.format == .atom)
        #expect(feed.posts.map(\.id) == ["x"])
    }

    /// A repeated id keeps its last copy, where the document puts it.
    @Test func duplicateIDsKeepTheLastCopyInItsPlace() throws {
        let feed = try parse(rss("""
            <item><guid>a</guid><title>A, first</title>\(date)</item>
            <item><guid>b</guid><title>B</title>\(date)</item>
            <item><guid>a</guid><title>A, last</title>\(date)</item>
            <item><guid>c</guid><title>C</title>\(date)</item>
            """))
        #expect(feed.posts.map(\.title) == ["B", "A, last", "C"])
    }

    /// A channel without items is a feed with no posts, not an error.
    @Test func aFeedWithoutItemsHasNoPosts() throws {
        let feed = try parse(rss(""))
        #expect(feed.title == "Test")
        #expect(feed.posts.isEmpty)
    }
}

// MARK: - Errors

/// What a bad document reports: the problem and where it is.
@Suite("Feed errors")
struct FeedErrorTests {
    /// Malformed XML reports the line and column where the parser stopped.
    @Test func malformedXMLNamesLineAndColumn() throws {
        let error = try #require(failure("<rss>\n<channel>\n<title>Broken</titel>\n</channel>\n</rss>"))
        #expect(error.line == 3)
        #expect(error.column != nil)
        #expect(error.description.hasPrefix("line 3, column "))
        #expect(error.description.hasSuffix(": malformed XML: opening and ending tag mismatch"))
    }

    /// An HTML entity that XML does not define is malformed XML, with its line.
    @Test func anHTMLEntityIsMalformedXML() throws {
        let error = try #require(failure(rss("<item>\n<title>A&nbsp;B</title></item>")))
        #expect(error.line == 6)
        #expect(error.reason == .malformedXML("undefined entity (XML defines only &amp; &lt; &gt; &quot; &apos;)"))
    }

    /// An HTML page, well-formed or not, is reported as not a feed.
    @Test(arguments: [
        "<!DOCTYPE html>\n<html><head><title>Hi</title></head><body><p>Hello</p></body></html>",
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Hi</title></head><body><br></body></html>",
        "<!doctype html>\n<p>Hello<br>world",
    ])
    func anHTMLPageIsNotAFeed(_ html: String) throws {
        let error = try #require(failure(html))
        #expect(error.description == "not an RSS 2.0 or Atom feed (root element <html>)")
    }

    /// Another root element (RSS 1.0's `rdf:RDF`) is named in the error.
    @Test func anotherRootElementIsNamed() throws {
        let error = try #require(failure(
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><channel/></rdf:RDF>"))
        #expect(error.reason == .notAFeed(rootElement: "rdf:RDF"))
        #expect(error.line == nil)
    }

    /// An empty document is malformed XML.
    @Test func anEmptyDocumentIsMalformed() throws {
        let error = try #require(failure(""))
        #expect(error.description.hasPrefix("malformed XML: "))
    }

    /// An item with neither guid nor link is an error naming its line.
    @Test func anItemWithoutGuidOrLinkNamesItsLine() throws {
        let xml = rss("<item><guid>ok</guid><pubDate>Sat, 21 Nov 2026 09:30:00 +0000</pubDate></item>\n"
            + "<item>\n<title>No id</title><pubDate>Sat, 21 Nov 2026 09:30:00 +0000</pubDate></item>")
        let error = try #require(failure(xml))
        #expect(error.description == "line 6: <item> has no guid or link")
    }

    /// An entry without an id is an error naming its line.
    @Test func anEntryWithoutIDNamesItsLine() throws {
        let error = try #require(failure(atom(
            "<entry>\n<title>x</title><updated>2026-11-21T09:30:00Z</updated></entry>")))
        #expect(error.description == "line 4: <entry> has no id")
    }

    /// A post without a date is an error naming its line.
    @Test func aMissingDateNamesThePost() throws {
        #expect(failure(rss("<item><guid>a</guid></item>"))?.description == "line 5: <item> has no pubDate")
        #expect(failure(atom("<entry><id>a</id></entry>"))?.description
            == "line 4: <entry> has no published or updated date")
    }

    /// A date that does not parse is an error naming its line and its text.
    @Test func anUnparseableDateNamesItsLineAndValue() throws {
        let rssError = failure(rss("<item><guid>a</guid>\n<pubDate> 21/11/2026 </pubDate></item>"))
        #expect(rssError?.description == "line 6: <pubDate> \"21/11/2026\" is not an RFC 822 date")
        let atomError = failure(atom("""
            <entry><id>a</id><published>2026-11-21T09:30:00Z</published>
            <updated>2026-11-21 09:30</updated></entry>
            """))
        #expect(atomError?.description == "line 5: <updated> \"2026-11-21 09:30\" is not an RFC 3339 date")
    }

    /// Of several problems, the first in the document is the one reported.
    @Test func theFirstProblemInTheDocumentIsReported() throws {
        let error = try #require(failure(rss("<item><title>no id</title></item>\n<item><guid>a</guid></oops>")))
        #expect(error.reason == .missingID(element: "item"))
        #expect(error.line == 5)
    }

    /// Errors from a file name the file, including a file that cannot be read.
    @Test func fileErrorsNameTheFile() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("FeedParserTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("feed.xml")
        try Data(rss("<item>\n<title>No id</title></item>").utf8).write(to: file)
        #expect(throws: FeedError(.missingID(element: "item"), file: "feed.xml", line: 5)) {
            try FeedParser.parse(contentsOf: file)
        }
        do {
            _ = try FeedParser.parse(contentsOf: folder.appendingPathComponent("missing.xml"))
            Issue.record("a missing file parsed")
        } catch {
            #expect(error.file == "missing.xml")
            #expect(error.description.hasPrefix("missing.xml: cannot read the feed: "))
        }
    }

    /// An error's description leaves out the file, line and column it does not know.
    @Test func descriptionsLeaveOutWhatIsUnknown() {
        #expect(FeedError(.missingID(element: "entry"), file: "a.atom", line: 3).description
            == "a.atom line 3: <entry> has no id")
        #expect(FeedError(.malformedXML("x"), file: "f.xml", line: 2, column: 7).description
            == "f.xml line 2, column 7: malformed XML: x")
        #expect(FeedError(.notAFeed(rootElement: "html")).description
            == "not an RSS 2.0 or Atom feed (root element <html>)")
    }
}
