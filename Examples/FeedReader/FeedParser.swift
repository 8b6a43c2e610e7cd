import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads RSS 2.0 and Atom 1.0 documents into ``Feed`` values, with Foundation's
/// `XMLParser`.
///
/// The root element decides the format: `<rss>` is RSS 2.0, `<feed>` (in the Atom namespace,
/// or in none) is Atom. Only the feed's own elements count, so namespaced extras such as
/// `<atom:link>` in an RSS channel or `<itunes:title>` in an item are ignored, and so is
/// everything nested in an element the parser does not read (an RSS `<image><title>`, an
/// Atom `<author><name>`). Inside an element it does read, nested markup is dropped and its
/// text kept: an Atom `<content type="xhtml"><div><p>Hi</p></div></content>` reads as `Hi`.
/// CDATA sections and XML's entities (`&amp;`, `&#8217;`) read as the text they stand for;
/// an entity XML does not define (HTML's `&nbsp;`) is malformed XML.
///
/// ```swift
/// let feed = try FeedParser.parse(contentsOf: feedsFolder.appending(path: "newsroom-1.xml"))
/// print(feed.title, feed.format, feed.posts.count)    // Harbourtown Newsroom rss 500
/// ```
///
/// Dates: RSS `<pubDate>` is RFC 822 (`Sat, 21 Nov 2026 09:30:00 +0000`, see
/// ``FeedDate/rfc822(_:)``); Atom `<published>` and `<updated>` are RFC 3339
/// (`2026-11-21T09:30:00.250-05:00`, see ``FeedDate/rfc3339(_:)``).
enum FeedParser {
    /// Parses a feed document.
    ///
    /// Posts keep their document order. When two posts share an id, the later one wins:
    /// the earlier is dropped and the later stays where the document puts it. A feed that
    /// lists a post twice is the feed's mistake, and the later copy is the likelier to be
    /// the edited one.
    ///
    /// - Parameter data: The document's bytes, in any encoding its XML declaration names.
    /// - Returns: The feed's title, format and posts.
    /// - Throws: ``FeedError`` for malformed XML (with line and column), a root element
    ///   other than `<rss>` or `<feed>`, or a post without an id or a date, or with a date
    ///   that does not parse (with the line of the element at fault). The first problem in
    ///   the document is the one reported.
    /// - Complexity: O(*n*) in the size of the document.
    static func parse(_ data: Data) throws(FeedError) -> Feed {
        let handler = FeedDocumentHandler()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = handler
        _ = parser.parse()

        if let root = handler.rootElement, handler.format == nil {
            // Even when the XML is broken too (HTML often is), the root says more.
            throw FeedError(.notAFeed(rootElement: root))
        }
        if let error = handler.error {
            if handler.rootElement == nil, looksLikeHTML(data) {
                throw FeedError(.notAFeed(rootElement: "html"))
            }
            throw error
        }
        guard let format = handler.format else {
            throw FeedError(.malformedXML("the document has no root element"))
        }
        return Feed(title: handler.title, format: format, posts: keepingLastOfEachID(handler.posts))
    }

    /// Reads and parses a feed file.
    ///
    /// - Parameter url: The file's URL.
    /// - Returns: The feed, as ``parse(_:)`` reads it.
    /// - Throws: ``FeedError`` naming the file (its last path component): the file cannot
    ///   be read, or ``parse(_:)`` rejects it.
    static func parse(contentsOf url: URL) throws(FeedError) -> Feed {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FeedError(.unreadable(error.localizedDescription), file: url.lastPathComponent)
        }
        do {
            return try parse(data)
        } catch {
            var located = error
            located.file = url.lastPathComponent
            throw located
        }
    }

    /// The posts without earlier copies of a repeated id; each survivor keeps its place.
    ///
    /// - Parameter posts: Posts in document order.
    /// - Returns: One post per id, the last of each.
    /// - Complexity: O(*n*).
    static func keepingLastOfEachID(_ posts: [FeedPost]) -> [FeedPost] {
        var lastIndex: [String: Int] = [:]
        for (index, post) in posts.enumerated() { lastIndex[post.id] = index }
        guard lastIndex.count < posts.count else { return posts }
        return posts.enumerated().compactMap { lastIndex[$1.id] == $0 ? $1 : nil }
    }

    /// Whether the document's beginning looks like HTML, so that an HTML page too broken
    /// for an XML parser to reach its root is still reported as "not a feed".
    ///
    /// - Parameter data: The document's bytes.
    /// - Returns: `true` when its first kilobyte holds `<!doctype html` or `<html`.
    static func looksLikeHTML(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(1024), as: UTF8.self).lowercased()
        return head.contains("<!doctype html") || head.contains("<html")
    }
}
