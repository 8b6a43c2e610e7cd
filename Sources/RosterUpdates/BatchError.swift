/// Why a batch (or a group of callbacks) cannot be applied: the rule it breaks, and where.
///
/// ```swift
/// do {
///     try batch.validate(old: old, new: new)
/// } catch {
///     print(error.message)
///     // invalid number of items: section 1 (section 1 before the update) has 3 items after
///     // the update, but 2 before, plus 0 inserted, minus 0 deleted, plus 0 moved in, minus 0 moved out
/// }
/// ```
public struct BatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the rule, the index paths or sections, and the counts involved.
    public let message: String

    /// Creates an error with a message that names the broken rule.
    ///
    /// - Parameter message: What is wrong and where.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
