/// A predicate that cannot be used: it does not parse, or it does not fit the entity.
///
/// ```swift
/// do { _ = try QueryPredicate("rank > ") }
/// catch { print(error) }   // predicate "rank > " at offset 7: expected a value after '>'
/// ```
public struct PredicateError: Error, Sendable, Hashable, CustomStringConvertible {
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

    /// `predicate "<format>" at offset <offset>: <reason>`.
    public var description: String { "predicate \"\(format)\" at offset \(offset): \(reason)" }
}
