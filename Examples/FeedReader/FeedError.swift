import Foundation

/// Why a document could not be read as a feed, and where.
///
/// The description names the file (when the feed came from one), the line (and for XML
/// errors the column), then the problem:
///
/// ```swift
/// do { _ = try FeedParser.parse(contentsOf: URL(fileURLWithPath: "feed.xml")) }
/// catch { print(error) }   // feed.xml line 12: <item> has no guid or link
/// ```
struct FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The file could not be read; the associated text is the system's explanation.
        case unreadable(String)
        /// The document is not well-formed XML; the associated text says how.
        case malformedXML(String)
        /// The root element is neither `<rss>` nor `<feed>`; the associated text is its
        /// qualified name.
        case notAFeed(rootElement: String)
        /// A post has no identity: an `<item>` with neither `<guid>` nor `<link>`, or an
        /// `<entry>` without `<id>`. The associated text is the element's name.
        case missingID(element: String)
        /// A post has no date: an `<item>` without `<pubDate>`, or an `<entry>` with
        /// neither `<published>` nor `<updated>`.
        case missingDate(element: String)
        /// A date element holds a text that is not a date in the format its feed uses.
        case badDate(element: String, value: String)

        /// The problem in words, without a place.
        var description: String {
            switch self {
            case .unreadable(let why):
                "cannot read the feed: \(why)"
            case .malformedXML(let why):
                "malformed XML: \(why)"
            case .notAFeed(let root):
                "not an RSS 2.0 or Atom feed (root element <\(root)>)"
            case .missingID(let element):
                element == "item" ? "<item> has no guid or link" : "<\(element)> has no id"
            case .missingDate(let element):
                element == "item"
                    ? "<item> has no pubDate" : "<\(element)> has no published or updated date"
            case .badDate(let element, let value):
                "<\(element)> \"\(value)\" is not "
                    + (element == "pubDate" ? "an RFC 822 date" : "an RFC 3339 date")
            }
        }
    }

    /// What is wrong.
    var reason: Reason
    /// The file's last path component, when the feed was read from a file.
    var file: String?
    /// The line of the problem, from 1: the offending element's start tag (the line where
    /// the tag ends, for a tag written over several lines), or where the XML parser
    /// stopped. `nil` when no line applies (an unreadable file, a root element that is not
    /// a feed's).
    var line: Int?
    /// The column where the XML parser stopped, from 1; only for ``Reason/malformedXML(_:)``.
    var column: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: What is wrong.
    ///   - file: The file's name, when known.
    ///   - line: The line, from 1, when one applies.
    ///   - column: The column, from 1, when one applies.
    init(_ reason: Reason, file: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.reason = reason
        self.file = file
        self.line = line
        self.column = column
    }

    /// `<file> line <l>, column <c>: <reason>`, leaving out the parts that are unknown.
    var description: String {
        var place: [String] = []
        if let file { place.append(file) }
        if let line {
            place.append(column.map { "line \(line), column \($0)" } ?? "line \(line)")
        }
        return place.isEmpty ? reason.description : place.joined(separator: " ") + ": \(reason)"
    }
}
