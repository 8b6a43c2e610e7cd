import Foundation

/// One post of a feed: an RSS `<item>` or an Atom `<entry>`, reduced to what FeedReader
/// stores and shows.
///
/// Every text is trimmed of surrounding whitespace; the title's inner runs of whitespace
/// (line breaks in a long title) become single spaces. A summary is kept as the feed wrote
/// it after XML decoding, so it may hold HTML markup (`<p>Fish &amp; chips</p>` stays so).
///
/// ```swift
/// let post = try FeedParser.parse(contentsOf: newsroomOne).posts[0]
/// print(post.day, post.title)    // 2026-11-21 Millbrook Athletic beat Fernhill Town 5–0 at Fernhill Rec
/// ```
struct FeedPost: Sendable, Hashable {
    /// The post's identity across syncs: RSS `<guid>` (or its `<link>` when it has no guid),
    /// Atom `<id>`.
    var id: String
    /// The title, or `""` when the post has none.
    var title: String
    /// Where the post lives on the web: RSS `<link>`, or the `href` of the first Atom
    /// `<link>` whose `rel` is absent or `alternate`.
    var link: String?
    /// When the post was published: RSS `<pubDate>`, Atom `<published>` or, when an entry
    /// has none, its `<updated>`.
    var published: Date
    /// The UTC calendar day of ``published``, as `YYYY-MM-DD`: the section key of the
    /// "newest first, by day" query.
    var day: String
    /// RSS `<description>`; Atom `<summary>` or, when an entry has none, its `<content>`.
    var summary: String?
    /// The first RSS `<category>`, or the `term` of the first Atom `<category>`.
    var category: String?
}

/// A parsed feed: its title, its format, and its posts in document order.
struct Feed: Sendable {
    /// The two feed formats the parser reads.
    enum Format: String, Sendable, Hashable {
        /// RSS 2.0: `<rss><channel><item>`.
        case rss
        /// Atom 1.0: `<feed><entry>`.
        case atom
    }

    /// The channel's or feed's `<title>`, trimmed and on one line, or `""` when it has none.
    var title: String
    /// Which format the document is in.
    var format: Format
    /// The posts in the order the document lists them, one per id (see
    /// ``FeedParser/parse(_:)`` for duplicates).
    var posts: [FeedPost]
}
