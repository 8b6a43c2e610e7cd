import Foundation

/// An RSS `<item>` or Atom `<entry>` as read: the trimmed texts of its fields and where they
/// start, before ids and dates are checked.
struct RawEntry {
    /// The namespace of Atom's elements.
    static let atomNamespace = "http://www.w3.org/2005/Atom"

    /// A field's trimmed text and the line of its start tag.
    struct Text {
        /// The trimmed text.
        var text: String
        /// The line of the field's start tag, from 1.
        var line: Int
    }

    /// The feed's format.
    var format: Feed.Format
    /// The line of the post's start tag, from 1.
    var line: Int
    /// The texts of the fields read so far, by element name; the first of a repeated field.
    var texts: [String: Text] = [:]
    /// Atom: the `href` of the first `<link>` whose `rel` is absent or `alternate`.
    var link: String?
    /// Atom: the `term` of the first `<category>`.
    var category: String?

    /// The post's element name: `item` or `entry`.
    ///
    /// - Parameter format: The feed's format.
    /// - Returns: The name of the elements that hold posts.
    static func elementName(_ format: Feed.Format) -> String {
        format == .rss ? "item" : "entry"
    }

    /// The names of the post's child elements whose text the parser reads.
    ///
    /// - Parameter format: The feed's format.
    /// - Returns: The element names.
    static func fieldNames(_ format: Feed.Format) -> Set<String> {
        switch format {
        case .rss: ["guid", "title", "link", "pubDate", "description", "category"]
        case .atom: ["id", "title", "published", "updated", "summary", "content"]
        }
    }

    /// The text of a field, or `nil` when the field is absent or empty.
    ///
    /// - Parameter name: The field's element name.
    /// - Returns: The trimmed, non-empty text.
    func text(_ name: String) -> String? {
        nonEmpty(texts[name]?.text)
    }

    /// The post, with its id and date checked.
    ///
    /// - Returns: The post.
    /// - Throws: ``FeedError`` with the line of the post for a missing id (checked first) or
    ///   date, or with the line of the date element for a date that does not parse.
    func post() throws(FeedError) -> FeedPost {
        let element = Self.elementName(format)
        guard let id = format == .rss ? text("guid") ?? text("link") : text("id") else {
            throw FeedError(.missingID(element: element), line: line)
        }
        let published: Date
        switch format {
        case .rss:
            guard let date = try date("pubDate", parse: FeedDate.rfc822) else {
                throw FeedError(.missingDate(element: element), line: line)
            }
            published = date
        case .atom:
            // Both dates must parse; the first publication is the one a reader sorts by.
            let first = try date("published", parse: FeedDate.rfc3339)
            let updated = try date("updated", parse: FeedDate.rfc3339)
            guard let date = first ?? updated else {
                throw FeedError(.missingDate(element: element), line: line)
            }
            published = date
        }
        return FeedPost(
            id: id,
            title: text("title").map(collapsingWhitespace) ?? "",
            link: format == .rss ? text("link") : link,
            published: published,
            day: FeedDate.day(of: published),
            summary: format == .rss ? text("description") : text("summary") ?? text("content"),
            category: format == .rss ? text("category") : category
        )
    }

    /// The date in a field, `nil` when the field is absent.
    ///
    /// - Parameters:
    ///   - name: The field's element name.
    ///   - parse: The date format's parser.
    /// - Returns: The date, or `nil` when there is no such field.
    /// - Throws: ``FeedError/Reason/badDate(element:value:)`` with the field's line when the
    ///   field's text is not a date.
    private func date(_ name: String, parse: (String) -> Date?) throws(FeedError) -> Date? {
        guard let field = texts[name] else { return nil }
        guard let date = parse(field.text) else {
            throw FeedError(.badDate(element: name, value: field.text), line: field.line)
        }
        return date
    }
}
