import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `XMLParser` delegate behind ``FeedParser``: it recognises the format from the root
/// element, collects each post's elements, and turns each finished post into a
/// ``FeedPost`` at once, so that the first problem in document order is the one reported.
///
/// Elements are placed by depth: the container is `<channel>` (depth 2) in RSS and the root
/// `<feed>` (depth 1) in Atom; its `<title>` and its posts are one level below it, and a
/// post's fields one level below the post. Only elements in the feed's own namespace (none
/// for RSS, the root's for Atom) are read.
final class FeedDocumentHandler: NSObject, XMLParserDelegate {
    /// The format, once the root element showed it; `nil` before, or for a root that is not
    /// a feed's.
    private(set) var format: Feed.Format?
    /// The qualified name of the root element, once it started.
    private(set) var rootElement: String?
    /// The feed's title.
    private(set) var title = ""
    /// The posts finished so far, in document order, duplicates included.
    private(set) var posts: [FeedPost] = []
    /// The first problem: malformed XML, a root that is not a feed's, or a bad post.
    private(set) var error: FeedError?

    /// A text being collected: the element, where it started, and the text so far.
    private struct Capture {
        /// What the text is for: the feed's title, or a field of the current post.
        var field: String?
        /// The depth of the element whose text this is.
        var depth: Int
        /// The line of the element's start tag.
        var line: Int
        /// The text collected so far.
        var text = ""
    }

    /// The namespace of the feed's own elements: `""` for RSS, the root's for Atom.
    private var vocabulary = ""
    /// How many elements are open.
    private var depth = 0
    /// The depth of `<channel>` or `<feed>`, once it started.
    private var containerDepth: Int?
    /// The post being read.
    private var entry: RawEntry?
    /// The text being collected, if any.
    private var capture: Capture?
    /// Whether the container's `<title>` was read (a later one is ignored).
    private var sawTitle = false

    /// Handles a start tag: the root, the container, its title, a post, or a post's field.
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String]) {
        depth += 1
        let namespace = namespaceURI ?? ""
        if depth == 1 {
            startRoot(parser, name: elementName, namespace: namespace, qualifiedName: qName)
            return
        }
        guard error == nil, let format, capture == nil, namespace == vocabulary else { return }
        let line = parser.lineNumber
        if format == .rss, depth == 2, elementName == "channel", containerDepth == nil {
            containerDepth = depth
            return
        }
        guard let containerDepth else { return }
        if depth == containerDepth + 1 {
            if elementName == RawEntry.elementName(format) {
                entry = RawEntry(format: format, line: line)
            } else if elementName == "title", !sawTitle {
                sawTitle = true
                capture = Capture(field: nil, depth: depth, line: line)
            }
        } else if depth == containerDepth + 2, entry != nil {
            if format == .atom, elementName == "link" {
                let rel = attributeDict["rel"] ?? "alternate"
                if rel == "alternate", entry?.link == nil { entry?.link = nonEmpty(attributeDict["href"]) }
            } else if format == .atom, elementName == "category" {
                if entry?.category == nil { entry?.category = nonEmpty(attributeDict["term"]) }
            } else if RawEntry.fieldNames(format).contains(elementName), entry?.texts[elementName] == nil {
                capture = Capture(field: elementName, depth: depth, line: line)
            }
        }
    }

    /// Handles an end tag: finishes the text being collected, or the post.
    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        defer { depth -= 1 }
        guard error == nil else { return }
        if let finished = capture, finished.depth == depth {
            capture = nil
            let text = finished.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let field = finished.field {
                entry?.texts[field] = RawEntry.Text(text: text, line: finished.line)
            } else {
                title = collapsingWhitespace(text)
            }
        } else if let finished = entry, depth == (containerDepth ?? -1) + 1 {
            entry = nil
            do {
                posts.append(try finished.post())
            } catch {
                self.error = error
                parser.abortParsing()
            }
        }
    }

    /// Collects text (XML's entities already replaced) for the element being read.
    func parser(_ parser: XMLParser, foundCharacters string: String) {
        capture?.text += string
    }

    /// Collects a CDATA section's text for the element being read.
    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        capture?.text += String(decoding: CDATABlock, as: UTF8.self)
    }

    /// Records the first XML error, where the parser stopped.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard error == nil else { return }
        let code = (parseError as NSError).code
        error = FeedError(.malformedXML(FeedError.xmlParserMessage(code: code)),
                          line: parser.lineNumber, column: parser.columnNumber)
        // Before the root element, go on: if the root is not a feed's, that says more.
        if rootElement != nil { parser.abortParsing() }
    }

    /// Recognises the format from the root element, or stops at a root that is not a feed's.
    private func startRoot(_ parser: XMLParser, name: String, namespace: String, qualifiedName: String?) {
        rootElement = qualifiedName ?? name
        switch (name, namespace) {
        case ("rss", ""):
            format = .rss
        case ("feed", ""), ("feed", RawEntry.atomNamespace):
            format = .atom
            containerDepth = 1
        default:
            error = error ?? FeedError(.notAFeed(rootElement: rootElement ?? name))
        }
        vocabulary = namespace
        if error != nil { parser.abortParsing() }
    }
}

/// `text` with its runs of whitespace replaced by single spaces.
///
/// - Parameter text: A trimmed text.
/// - Returns: The text on one line.
func collapsingWhitespace(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

/// `text`, or `nil` when it is absent or holds only whitespace; trimmed.
///
/// - Parameter text: An attribute's or element's text.
/// - Returns: The trimmed text, or `nil`.
func nonEmpty(_ text: String?) -> String? {
    guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
        return nil
    }
    return trimmed
}
