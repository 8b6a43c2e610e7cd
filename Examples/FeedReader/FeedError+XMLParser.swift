extension FeedError {
    /// A short explanation of an `XMLParser` error code.
    ///
    /// swift-corelibs-foundation reports XML errors as bare libxml2 codes (`xmlParserErrors`)
    /// with no message, so the common ones are put into words here; the rest read as
    /// `XMLParser error <code>`. The table uses libxml2's numbers rather than
    /// `XMLParser.ErrorCode`, whose raw values in swift-corelibs-foundation are off from
    /// libxml2's (its `tagNameMismatchError` is 74; libxml2 reports a mismatch as 76).
    ///
    /// - Parameter code: The code of the `NSError` that `XMLParser` reported.
    /// - Returns: The explanation, e.g. `opening and ending tag mismatch`.
    static func xmlParserMessage(code: Int) -> String {
        switch code {
        case 4: "the document is empty"
        // In the push mode XMLParser uses, libxml2 reports an unclosed element at the end
        // of the data with the same code as content after the root element.
        case 5: "the document ends inside an element, or goes on after its root element"
        case 86: "content after the root element"
        case 6, 7, 8: "invalid character reference"
        case 9: "invalid character"
        case 23: "entity reference without a closing ';'"
        case 26: "undefined entity (XML defines only &amp; &lt; &gt; &quot; &apos;)"
        case 31, 32, 79, 81: "unknown or unsupported encoding"
        case 38: "'<' in an attribute value"
        case 39: "attribute value without quotes"
        case 40, 34: "unterminated attribute value"
        case 41, 75: "attribute without a value"
        case 42: "attribute given twice"
        case 45: "unterminated comment"
        case 63: "unterminated CDATA section"
        case 68: "a name is required here (a bare '&' or '<' in text?)"
        case 73: "'>' expected"
        case 74, 76: "opening and ending tag mismatch"
        case 77: "the document ends inside an element"
        case 85: "elements are not well balanced"
        case 201: "undeclared namespace prefix"
        default: "XMLParser error \(code)"
        }
    }
}
