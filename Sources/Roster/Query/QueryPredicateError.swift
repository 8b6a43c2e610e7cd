/// A predicate that cannot be used: it does not parse, or it does not fit the entity.
///
/// ```swift
/// do { _ = try QueryPredicate("rank > ") }
/// catch { print(error) }   // predicate "rank > " at offset 7: expected a value after '>'
/// ```
public struct QueryPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The predicate's text.
    public let format: String
    /// Where the problem is: a count of Unicode scalars from the start of ``format``.
    public let offset: Int
    /// What is wrong.
    public let reason: String

    /// Creates an error.
    public init(format: String, offset: Int, reason: String) {
        self.format = format
        self.offset = offset
        self.reason = reason
    }

    /// `predicate "<format>" at offset <offset>: <reason>`; a format longer than 200
    /// characters is shortened around the offset.
    public var description: String {
        let scalars = Array(format.unicodeScalars)
        guard scalars.count > 200 else { return "predicate \"\(format)\" at offset \(offset): \(reason)" }
        let start = max(0, min(offset - 100, scalars.count - 200))
        var shown = String(String.UnicodeScalarView(scalars[start..<start + 200]))
        if start > 0 { shown = "…" + shown }
        if start + 200 < scalars.count { shown += "…" }
        return "predicate \"\(shown)\" (\(scalars.count) characters) at offset \(offset): \(reason)"
    }
}
