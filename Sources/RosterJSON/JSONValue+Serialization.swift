/// How ``JSONValue/serialized(_:)`` lays out its text.
package enum JSONStyle: Sendable, Hashable {
    /// One line, no spaces: `{"line":3,"query":"q1","keys":["p1","p2"]}`.
    case compact
    /// Two-space indentation, one member or element per line, `"key": value`; empty
    /// arrays and objects as `[]` and `{}`; no final line feed.
    case pretty
}

extension JSONValue {
    /// The value as JSON text, object members in their order.
    ///
    /// Strings escape `"`, `\` and the control characters U+0000 to U+001F (as `\n`, `\t`,
    /// `\r`, `\b`, `\f`, or `\u00XX`) and keep every other character as it is. Numbers are
    /// written so that they parse back to the same value and the same case: an
    /// ``integer(_:)`` as digits, a ``number(_:)`` always with a fraction or an exponent
    /// (`3.0`, `1e+20`, `5e-324`), a non-finite ``number(_:)``, which JSON cannot
    /// express, as `null`.
    ///
    /// ```swift
    /// let event: JSONValue = ["line": 3, "query": "q1", "to": [0, 1]]
    /// event.serialized()          // {"line":3,"query":"q1","to":[0,1]}
    /// event.serialized(.pretty)   // {\n  "line": 3,\n  "query": "q1",\n  "to": [\n    0,\n    1\n  ]\n}
    /// ```
    ///
    /// - Parameter style: ``JSONStyle/compact`` (the default) or ``JSONStyle/pretty``.
    /// - Returns: The JSON text.
    package func serialized(_ style: JSONStyle = .compact) -> String {
        var writer = JSONWriter(isPretty: style == .pretty)
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    package var description: String { serialized() }
}
