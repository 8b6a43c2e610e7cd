#!/usr/bin/env python3
"""Writes the bundled feeds of the FeedReader example: newsroom-1/2/3.xml, devblog.atom, podcast.xml.

Deterministic (fixed seed, standard library only): running it again writes the same files.
It uses only Python's `random.Random(SEED)`; the committed files are the reference should a
future Python change what `random` returns for a seed.

    python3 Examples/FeedReader/Feeds/make-feeds.py     # writes the feeds beside this script

All content is invented: the towns, people, teams and companies do not exist, and every
address is under the reserved `.example` domain.

The newsroom files are three syncs of one RSS 2.0 feed, newest first:
  newsroom-1.xml  500 posts over the 30 days 2026-10-23 ... 2026-11-21 (UTC).
  newsroom-2.xml  a later sync: the 50 oldest posts gone, 50 new ones (most on the new day
                  2026-11-22), 20 edited (15 retitled, 5 moved to another day); the other
                  430 `<item>` blocks are byte-for-byte the same as in newsroom-1.
  newsroom-3.xml  the same posts as newsroom-2, byte-for-byte; only the channel's
                  `<lastBuildDate>` differs: a re-sync that changes nothing.
The script checks these counts before writing, and prints the day-by-day figures that the
README quotes.
"""

import datetime
import os
import random
import re

SEED = 20261121
HERE = os.path.dirname(os.path.abspath(__file__))
UTC = datetime.timezone.utc

POSTS, GONE, NEW, RETITLED, MOVED = 500, 50, 50, 15, 5
FIRST = datetime.datetime(2026, 10, 23, tzinfo=UTC)
LAST_SYNC = datetime.datetime(2026, 11, 21, 16, 0, tzinfo=UTC)  # newsroom-1 ends here
NEXT_SYNC = datetime.datetime(2026, 11, 22, 20, 0, tzinfo=UTC)  # newsroom-2's new posts end here

DAY_NAMES = "Mon Tue Wed Thu Fri Sat Sun".split()
MONTH_NAMES = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()

TOWNS = "Harbourtown Millbrook Eastquay Fernhill Saltmarsh Northgate Kettlewick Brackenfold".split()
TEAMS = ["Eastquay Rovers", "Millbrook Athletic", "Fernhill Town", "Saltmarsh United", "Northgate Wanderers"]
GROUNDS = ["Quayside Park", "the Mill Lane ground", "Fernhill Rec"]
PEOPLE = ["Maren Olufsen", "Tobias Achterberg", "Priya Castellane", "Jonah Whitlow", "Ilse Varga",
          "Dev Ramaswamy", "Rosalind Quay", "Kofi Mensah-Hart", "Agnes Thistlewood", "Luca Ferrante"]
ORGS = ["Harbourtown council", "the Ferry Authority", "the Millbrook library board", "the Saltmarsh Trust",
        "Kettlewick Water", "the Northgate chamber of commerce", "Brackenfold hospital"]
ROLES = ["leader", "chief executive", "chair", "director", "chief executive", "president", "chief executive"]
PROJECTS = ["a new cycle bridge", "the harbour wall repairs", "late-night library hours", "a rooftop solar plan",
            "the old cannery conversion", "free bus travel for under-18s", "a seawater pool"]
PLACES = ["lido", "cinema", "bandstand", "covered market", "lighthouse museum", "boat club"]
SHOWS = ["The Salt Road", "Lanterns", "A Winter Tide", "Nine Bells", "The Cartographer"]
VENUES = ["Quay Theatre", "Corn Exchange", "Old Chapel", "Millbrook Playhouse"]
PRODUCE = ["mackerel", "apples", "potatoes", "crab", "leeks", "honey"]
TOPICS = ["parking", "the ferry fares", "dog walking on the beach", "the night buses", "allotments", "street lights"]
WEATHER = ["gales", "heavy rain", "coastal fog", "a hard frost", "snow on high ground"]
ROUTES = ["the Eastquay crossing", "the island run", "the night ferry"]
WEEKDAYS = ["Saturday", "Sunday", "Monday", "Friday"]
CREATORS = ["Newsroom staff", "Maren Olufsen", "Jonah Whitlow", "Priya Castellane", "Ilse Varga"]
# Zones the desk writes pubDates in: mostly UTC, some in named or numeric local zones.
ZONES = [("+0000", 0)] * 7 + [("GMT", 0), ("-0500", -300), ("+0100", 60)]

SENTENCES = [
    "Residents packed the hall for a meeting that ran well past ten.",
    "The plan goes to a public consultation in the new year.",
    "Fish &amp; chip shops on the front say trade is up on last winter.",
    "A spokesperson said the work would be finished &ldquo;by spring at the latest&rdquo;.",
    "Tickets are <em>free</em> but must be booked in advance.",
    "Read the <a href=\"https://newsroom.example/guides/tides\">tide tables</a> before setting out.",
    "Councillors voted 7&ndash;2 in favour after a long debate.",
    "The harbour master asked boat owners to check their moorings.",
    "Queues at the covered market stretched past the clock tower.",
    "Volunteers will be on hand from 9am until dusk.",
    "The figures are up 12% on the same month last year.",
    "Organisers say the event will go ahead whatever the weather.",
]


def headline(rng):
    """A headline from one of the desk's templates (plain text; escaped when written), and its
    section: (title, category)."""
    town, person, (org, role) = rng.choice(TOWNS), rng.choice(PEOPLE), rng.choice(list(zip(ORGS, ROLES)))
    home, away = rng.sample(TEAMS, 2)
    a, b = rng.randint(0, 4), rng.randint(0, 4)
    templates = [
        lambda: ("%s approves %s" % (org[0].upper() + org[1:], rng.choice(PROJECTS)), "Local"),
        lambda: ("%s beat %s %d\u2013%d at %s" % (home, away, max(a, b) + 1, min(a, b), rng.choice(GROUNDS)),
                 "Sport"),
        lambda: ("%s and %s draw %d\u2013%d" % (home, away, a, a), "Sport"),
        lambda: ("Weather warning: %s expected in %s" % (rng.choice(WEATHER), town), "Weather"),
        lambda: ("%s named %s of %s" % (person, role, org), "Business"),
        lambda: ("Q&A: %s on %s" % (person, rng.choice(TOPICS)), "Local"),
        lambda: ("%s\u2019s %s reopens after %d months" % (town, rng.choice(PLACES), rng.randint(2, 18)), "Culture"),
        lambda: ("Review: \u201c%s\u201d at the %s" % (rng.choice(SHOWS), rng.choice(VENUES)), "Culture"),
        lambda: ("Road closures in %s this %s" % (town, rng.choice(WEEKDAYS)), "Transport"),
        lambda: ("%s market: %s prices up %d%%" % (town, rng.choice(PRODUCE), rng.randint(2, 30)), "Business"),
        lambda: ("Letters: readers on %s" % rng.choice(TOPICS), "Local"),
        lambda: ("%d things to do in %s this weekend" % (rng.randint(3, 12), town), "Culture"),
        lambda: ("Timetable changes for %s" % rng.choice(ROUTES), "Transport"),
        lambda: ("Speed limits: is 30 < 40 km/h the answer for %s?" % town, "Transport"),
    ]
    return rng.choice(templates)()


def slug(text):
    words = "".join(c.lower() if c.isalnum() else " " for c in text).split()
    return "-".join(words[:6])


def escape(text, references):
    """XML text: &, < and > escaped; typographic quotes as character references if asked."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if references:
        for char in "\u2019\u201c\u201d\u2013":
            text = text.replace(char, "&#%d;" % ord(char))
    return text


def rfc822(moment, zone):
    name, minutes = zone
    local = moment + datetime.timedelta(minutes=minutes)
    return "%s, %02d %s %04d %02d:%02d:%02d %s" % (
        DAY_NAMES[local.weekday()], local.day, MONTH_NAMES[local.month - 1], local.year,
        local.hour, local.minute, local.second, name)


def rfc3339(moment, offset_minutes, fraction, zulu):
    """`moment` as local time at the offset, with a fraction (".250" or "") and `Z` if asked."""
    local = moment + datetime.timedelta(minutes=offset_minutes)
    text = local.strftime("%Y-%m-%dT%H:%M:%S") + fraction
    if zulu:
        assert offset_minutes == 0
        return text + "Z"
    sign = "-" if offset_minutes < 0 else "+"
    return text + "%s%02d:%02d" % (sign, abs(offset_minutes) // 60, abs(offset_minutes) % 60)


def random_moment(rng, start, end):
    return start + datetime.timedelta(seconds=rng.randrange(int((end - start).total_seconds())))


# --- newsroom -----------------------------------------------------------------------------

def make_news_post(rng, number, moment):
    title, section = headline(rng)
    sentences = rng.sample(SENTENCES, rng.randint(1, 5))
    cut = rng.randint(1, len(sentences))
    paragraphs = ["<p>%s</p>" % " ".join(part) for part in (sentences[:cut], sentences[cut:]) if part]
    # Most posts are filed under their section; some under none; a few also under "Coast".
    categories = rng.choice([[], [section], [section], [section], [section, "Coast"]])
    return {
        "number": number,
        "title": title,
        "moment": moment,
        "link": "https://newsroom.example/news/%s/%s" % (moment.strftime("%Y/%m/%d"), slug(title)),
        # Every 25th post has no <guid>: its <link> is its id.
        "guid": None if number % 25 == 0 else "https://newsroom.example/p/%04d" % number,
        "zone": rng.choice(ZONES),
        "categories": categories,
        "creator": rng.choice(CREATORS),
        # About one in twenty has no description; a third of the rest are CDATA.
        "description": None if rng.random() < 0.05 else "".join(paragraphs),
        "cdata": rng.random() < 0.35,
        "references": rng.random() < 0.5,
        "wrapped": number % 40 == 7,  # a title written over two lines
        "media": rng.random() < 0.2,
    }


def render_news_item(post):
    title = escape(post["title"], post["references"])
    if post["wrapped"]:
        words = title.split(" ")
        half = len(words) // 2
        title = "\n        " + " ".join(words[:half]) + "\n        " + " ".join(words[half:]) + "\n      "
    lines = ["    <item>", "      <title>%s</title>" % title, "      <link>%s</link>" % post["link"]]
    if post["guid"]:
        lines.append("      <guid>%s</guid>" % post["guid"])
    lines.append("      <pubDate>%s</pubDate>" % rfc822(post["moment"], post["zone"]))
    lines += ["      <category>%s</category>" % c for c in post["categories"]]
    lines.append("      <dc:creator>%s</dc:creator>" % post["creator"])
    if post["media"]:
        lines += ['      <media:content url="https://img.newsroom.example/%04d.jpg" medium="image">' % post["number"],
                  "        <media:title>Photo: %s</media:title>" % escape(post["creator"], False),
                  "      </media:content>"]
    if post["description"] is not None:
        if post["cdata"]:
            lines.append("      <description><![CDATA[%s]]></description>" % post["description"])
        else:
            lines.append("      <description>%s</description>" % escape(post["description"], False))
    lines.append("    </item>")
    return "\n".join(lines) + "\n"


def render_newsroom(posts, build_date):
    ordered = sorted(posts, key=lambda p: (p["moment"], p["number"]), reverse=True)
    head = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:media="http://search.yahoo.com/mrss/">
  <channel>
    <title>Harbourtown Newsroom</title>
    <link>https://newsroom.example/</link>
    <atom:link href="https://newsroom.example/feed.xml" rel="self" type="application/rss+xml"/>
    <description>News, sport &amp; weather from Harbourtown and the Eastquay coast (a fictional town).</description>
    <language>en-gb</language>
    <lastBuildDate>%s</lastBuildDate>
    <image>
      <url>https://newsroom.example/logo.png</url>
      <title>Harbourtown Newsroom logo</title>
      <link>https://newsroom.example/</link>
    </image>
""" % rfc822(build_date, ("+0000", 0))
    return head + "".join(render_news_item(p) for p in ordered) + "  </channel>\n</rss>\n"


def newsroom(rng):
    moments = sorted(random_moment(rng, FIRST, LAST_SYNC) for _ in range(POSTS))
    first = [make_news_post(rng, n + 1, m) for n, m in enumerate(moments)]

    # The next sync: the oldest 50 fall off the end, 20 of the rest are edited, 50 are new.
    kept = [dict(p) for p in first[GONE:]]
    edited = rng.sample(kept, RETITLED + MOVED)
    for post in edited[:RETITLED]:
        old = post["title"]
        while post["title"] == old:
            post["title"] = rng.choice(["UPDATED: " + old, headline(rng)[0], old + " (corrected)"])
    oldest_kept = kept[0]["moment"]
    for post in edited[RETITLED:]:
        while True:
            moved = post["moment"] + datetime.timedelta(days=rng.choice([-3, -2, -1, 1, 2, 3]))
            if oldest_kept < moved < LAST_SYNC:
                break
        post["moment"] = moved
    new_moments = sorted(random_moment(rng, LAST_SYNC, NEXT_SYNC) for _ in range(NEW))
    new = [make_news_post(rng, POSTS + n + 1, m) for n, m in enumerate(new_moments)]
    second = kept + new

    one = render_newsroom(first, LAST_SYNC)
    two = render_newsroom(second, NEXT_SYNC)
    three = render_newsroom(second, NEXT_SYNC + datetime.timedelta(hours=1))

    def post_id(p):
        return p["guid"] or p["link"]
    assert len({post_id(p) for p in first}) == POSTS and len({post_id(p) for p in second}) == POSTS
    items_one = set(re.findall(r"<item>.*?</item>", one, re.S))
    items_two = re.findall(r"<item>.*?</item>", two, re.S)
    assert len(items_one) == POSTS and len(items_two) == POSTS
    assert sum(item in items_one for item in items_two) == POSTS - GONE - RETITLED - MOVED
    assert two.replace(rfc822(NEXT_SYNC, ("+0000", 0)), "") == \
        three.replace(rfc822(NEXT_SYNC + datetime.timedelta(hours=1), ("+0000", 0)), "")

    def days(posts):
        counts = {}
        for p in posts:
            day = p["moment"].date().isoformat()
            counts[day] = counts.get(day, 0) + 1
        return counts
    days_one, days_two = days(first), days(second)
    assert len(days_one) == 30 and min(days_one.values()) >= 5
    print("newsroom-1: %d posts, %d days %s ... %s" % (len(first), len(days_one), min(days_one), max(days_one)))
    print("newsroom-2: %d posts, %d days %s ... %s" % (len(second), len(days_two), min(days_two), max(days_two)))
    print("  days gone: %s" % sorted(set(days_one) - set(days_two)))
    print("  days new: %s" % sorted(set(days_two) - set(days_one)))
    print("  new posts by day: %s" % days(new))
    print("  no-guid posts: newsroom-1 %d, newsroom-2 %d" % (
        sum(p["guid"] is None for p in first), sum(p["guid"] is None for p in second)))
    print("  retitled: %s" % [p["number"] for p in edited[:RETITLED]])
    print("  moved: %s" % [p["number"] for p in edited[RETITLED:]])
    return {"newsroom-1.xml": one, "newsroom-2.xml": two, "newsroom-3.xml": three}


# --- devblog (Atom) ---------------------------------------------------------------------------

ATOM_ENTRIES = 40
BLOG_FIRST = datetime.datetime(2026, 6, 1, tzinfo=UTC)
BLOG_LAST = datetime.datetime(2026, 11, 20, tzinfo=UTC)  # entries are published before this
BLOG_AUTHORS = ["Ilse Varga", "Dev Ramaswamy", "Luca Ferrante", "Agnes Thistlewood"]
# (offset in minutes, written as Z): the team works from several time zones.
BLOG_ZONES = [(0, True), (0, False), (-480, False), (-420, False), (330, False), (540, False), (60, False)]
FRACTIONS = ["", "", ".5", ".250", ".123456"]
BLOG_TOPICS = [
    ("Profiling the sync engine", "profiling"), ("Why we moved to SQLite", "storage"),
    ("Diffing lists in linear time", "algorithms"), ("Designing change notifications", "architecture"),
    ("Testing with seeded randomness", "testing"), ("A month of on-call notes", "operations"),
    ("Sections, sort keys & stable order", "algorithms"), ("Shrinking our build times", "tooling"),
    ("Fuzzing the predicate parser", "testing"), ("What batch updates must never do", "architecture"),
]
BLOG_SENTENCES = [
    "We measured before we changed anything, and the numbers surprised us.",
    "The fix was three lines; finding it took a week &amp; a lot of coffee.",
    "Every change now goes through the same &ldquo;diff, validate, apply&rdquo; path.",
    "Benchmarks ran on a 2-core machine shared with the rest of CI.",
    "The old design held a lock across a disk write; the new one does not.",
    "Seeded tests made the flaky failure reproducible on the first try.",
]


def xhtml_text(html):
    """HTML text made fit for XHTML: XML defines no `&ldquo;`, so it becomes the character."""
    return html.replace("&ldquo;", "\u201c").replace("&rdquo;", "\u201d")


def devblog(rng):
    moments = sorted(random_moment(rng, BLOG_FIRST, BLOG_LAST) for _ in range(ATOM_ENTRIES))
    entries = []
    parts = {}
    newest_update = BLOG_FIRST
    for number, moment in enumerate(moments, start=1):
        topic, term = rng.choice(BLOG_TOPICS)
        parts[topic] = parts.get(topic, 0) + 1
        title = topic if parts[topic] == 1 else "%s, part %d" % (topic, parts[topic])
        offset, zulu = rng.choice(BLOG_ZONES)
        published = rfc3339(moment, offset, rng.choice(FRACTIONS), zulu)
        edited_later = moment + datetime.timedelta(hours=rng.randint(1, 200), seconds=rng.randint(0, 59))
        newest_update = max(newest_update, edited_later)
        updated = rfc3339(edited_later, offset, rng.choice(FRACTIONS), zulu)
        href = "https://devblog.example/%s/%s-%d" % (moment.strftime("%Y/%m"), slug(title), number)
        lines = ["  <entry>",
                 "    <title>%s</title>" % escape(title, False),
                 "    <id>tag:devblog.example,2026:entry-%03d</id>" % number]
        if number % 6 == 0:
            lines.append('    <link rel="replies" type="text/html" href="%s#comments"/>' % href)
        if number % 10 == 3:
            lines.append('    <link href="%s"/>' % href)  # rel defaults to "alternate"
        else:
            lines.append('    <link rel="alternate" type="text/html" href="%s"/>' % href)
        # Every 8th entry has only <updated>; the rest were published and later updated.
        if number % 8 != 0:
            lines.append("    <published>%s</published>" % published)
        lines.append("    <updated>%s</updated>" % updated)
        lines += ["    <author>", "      <name>%s</name>" % rng.choice(BLOG_AUTHORS), "    </author>",
                  '    <category term="%s"/>' % term]
        sentence = rng.choice(BLOG_SENTENCES)
        if number % 3 == 0:
            lines.append("    <summary>%s</summary>" % escape("Notes on %s." % topic.lower(), False))
        if number % 13 == 5:
            lines += ['    <content type="xhtml">',
                      '      <div xmlns="http://www.w3.org/1999/xhtml"><p>%s</p>' % xhtml_text(sentence)
                      + " <p>Part %d of the series.</p></div>" % parts[topic],
                      "    </content>"]
        else:
            html = "<p>%s</p><pre><code>let x = a &lt; b</code></pre>" % sentence
            lines.append('    <content type="html">%s</content>' % escape(html, False))
        lines.append("  </entry>")
        entries.append("\n".join(lines) + "\n")
    entries.reverse()
    head = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Lanternfish Engineering</title>
  <subtitle>How a fictional team builds a sync engine</subtitle>
  <id>tag:devblog.example,2026:feed</id>
  <link rel="self" href="https://devblog.example/feed.atom"/>
  <link rel="alternate" href="https://devblog.example/"/>
  <updated>%s</updated>
  <author>
    <name>Lanternfish team</name>
  </author>
""" % rfc3339(newest_update, 0, "", True)
    return {"devblog.atom": head + "".join(entries) + "</feed>\n"}


# --- podcast ------------------------------------------------------------------------------

EPISODES = 20
EPISODE_TOPICS = ["Reading the tide tables", "The lighthouse keepers", "A history of the cannery",
                  "Storm season", "Shipwrecks of the Eastquay coast", "Net menders", "Birds of the saltmarsh",
                  "The night ferry", "Harbour dredging", "Sea glass", "Fog signals", "Oyster beds"]


def podcast(rng):
    items = []
    moment = datetime.datetime(2026, 7, 9, 5, 0, tzinfo=UTC)
    for episode in range(1, EPISODES + 1):
        topic = rng.choice(EPISODE_TOPICS)
        guest = rng.choice(PEOPLE)
        # Pacific time: daylight time until 1 November 2026, standard time after.
        zone = ("PDT", -420) if moment < datetime.datetime(2026, 11, 1, 9, tzinfo=UTC) else ("PST", -480)
        if episode % 4 == 0:
            zone = ("+0000", 0)
        uuid = "%08x-%04x-4%03x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                                0x8000 | rng.getrandbits(14), rng.getrandbits(48))
        lines = ["    <item>",
                 "      <title>Ep. %d: %s</title>" % (episode, topic),
                 "      <itunes:title>%s</itunes:title>" % topic,
                 "      <itunes:episode>%d</itunes:episode>" % episode,
                 '      <guid isPermaLink="false">%s</guid>' % uuid]
        if episode % 5 != 0:
            lines.append("      <link>https://tidetables.example/episodes/%d</link>" % episode)
        lines += ["      <pubDate>%s</pubDate>" % rfc822(moment, zone),
                  '      <enclosure url="https://cdn.tidetables.example/ep%03d.mp3" length="%d" type="audio/mpeg"/>'
                  % (episode, rng.randint(20_000_000, 60_000_000)),
                  "      <itunes:duration>%d:%02d:%02d</itunes:duration>" % (0, rng.randint(25, 59), rng.randint(0, 59)),
                  "      <description>%s joins us to talk about %s.</description>" % (guest, topic.lower()),
                  "      <itunes:summary>A longer note: %s, with %s.</itunes:summary>" % (topic.lower(), guest),
                  "      <content:encoded><![CDATA[<p><b>%s</b> on %s.</p>]]></content:encoded>" % (guest, topic.lower()),
                  "    </item>"]
        items.append("\n".join(lines) + "\n")
        moment += datetime.timedelta(days=7)
    items.reverse()
    head = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <atom:link href="https://tidetables.example/feed.xml" rel="self" type="application/rss+xml"/>
    <itunes:title>Tide Tables (the show)</itunes:title>
    <title>Tide Tables</title>
    <link>https://tidetables.example/</link>
    <description>A fictional podcast about a fictional coast.</description>
    <itunes:author>Rosalind Quay</itunes:author>
    <itunes:image href="https://tidetables.example/cover.jpg"/>
    <itunes:category text="History"/>
    <itunes:explicit>false</itunes:explicit>
"""
    return {"podcast.xml": head + "".join(items) + "  </channel>\n</rss>\n"}


def main():
    rng = random.Random(SEED)
    files = {}
    for make in (newsroom, devblog, podcast):
        files.update(make(rng))
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        print("wrote %s (%d bytes)" % (name, len(text.encode("utf-8"))))


if __name__ == "__main__":
    main()
