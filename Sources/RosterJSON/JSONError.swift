/// Why a text is not valid JSON, and where.
///
/// The position is a line and a column, both counted from 1; the column counts Unicode
/// scalars from the start of its line (a precomposed `é` is one column, a decomposed one
/// two). For the one-line texts of a JSON Lines script the line is always 1, and the
/// description leaves it out:
///
/// ```swift
/// do {
///     _ = try JSONValue.parse(#"{"op":"insert" "entity":"Post"}"#)
/// } catch {
///     print(error)    // invalid JSON at column 16: expected ',' or '}' after an object member
///     error.reason    // .expectedCommaOrObjectEnd
/// }
/// ```
package struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    package var reason: Reason
    /// The line of the offending character, from 1.
    package var line: Int
    /// The column of the offending character in its line, from 1, in Unicode scalars; one
    /// past the last character when the text ended too early.
    package var column: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: What is wrong.
    ///   - line: The line, from 1.
    ///   - column: The column, from 1.
    package init(reason: Reason, line: Int = 1, column: Int) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// `invalid JSON at column 17: <reason>`, or `invalid JSON at line 2, column 17: <reason>`
    /// when the error is past the first line.
    package var description: String {
        let place = line == 1 ? "column \(column)" : "line \(line), column \(column)"
        return "invalid JSON at \(place): \(reason)"
    }
}
