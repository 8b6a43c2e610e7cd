/// A benchmark that cannot go on: a database error on its own connection, or a setup
/// that did not come out as planned.
public struct BenchmarkError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// Creates an error with its message.
    public init(_ description: String) {
        self.description = description
    }
}
