/// A strict RFC 8259 JSON parser that keeps integers apart from other numbers and keeps
/// the order of object members.
///
/// It accepts exactly one JSON value, surrounded by optional whitespace (space, tab, line
/// feed, carriage return). Trailing commas, comments, single quotes, `NaN`, `Infinity`,
/// leading zeros and lone UTF-16 surrogates are errors, and so are duplicate keys in an
/// object and arrays and objects nested deeper than ``maximumDepth``.
///
/// ```swift
/// let parser = JSONParser()
/// let line = try parser.parse(#"{"op":"insert","values":{"rank":3,"score":3.0}}"#)
/// line["values"]?["rank"]     // .integer(3)
/// line["values"]?["score"]    // .number(3.0)
/// ```
///
/// - Complexity: O(*n*) in the length of the text; it works on the text's UTF-8 bytes.
package struct JSONParser: Sendable {
    /// The nesting limit that ``init(maximumDepth:)`` uses unless told otherwise.
    package static let defaultMaximumDepth = 512

    /// How many arrays and objects may be nested inside one another; one more is an error.
    package var maximumDepth: Int

    /// Creates a parser.
    ///
    /// - Parameter maximumDepth: How deep arrays and objects may nest (512 by default).
    package init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses a text that holds one JSON value.
    ///
    /// - Parameter text: The JSON text, such as one line of a JSON Lines file.
    /// - Returns: The value.
    /// - Throws: ``JSONError`` with the reason and the line and column where the text
    ///   stops being JSON.
    package func parse(_ text: some StringProtocol) throws(JSONError) -> JSONValue {
        let depth = maximumDepth
        if let result = text.utf8.withContiguousStorageIfAvailable({ bytes in
            JSONReader.readDocument(bytes, maximumDepth: depth)
        }) {
            return try result.get()
        }
        return try Array(text.utf8).withUnsafeBufferPointer { bytes in
            JSONReader.readDocument(bytes, maximumDepth: depth)
        }.get()
    }
}

extension JSONParser {
    /// Parses UTF-8 bytes that hold one JSON value, as ``parse(_:)`` parses their text. The
    /// caller checks that they are UTF-8 (a string's bytes that are not are read as U+FFFD).
    /// Not generic: a caller in another module runs it without instantiating a generic
    /// entry's metadata first (250,000 instructions, once a process).
    ///
    /// - Throws: ``JSONError`` with the reason and the line and column where the bytes stop
    ///   being JSON.
    package func parse(utf8 bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let depth = maximumDepth
        return try bytes.withUnsafeBufferPointer { JSONReader.readDocument($0, maximumDepth: depth) }.get()
    }
}

extension JSONValue {
    /// Parses a text that holds one JSON value, with the default nesting limit.
    ///
    /// ```swift
    /// let value = try JSONValue.parse(#"[1, 2.5, "three"]"#)
    /// // .array([.integer(1), .number(2.5), .string("three")])
    /// ```
    ///
    /// - Parameter text: The JSON text.
    /// - Returns: The value.
    /// - Throws: ``JSONError`` with the reason and the column where the text stops being JSON.
    package static func parse(_ text: some StringProtocol) throws(JSONError) -> JSONValue {
        try JSONParser().parse(text)
    }
}
