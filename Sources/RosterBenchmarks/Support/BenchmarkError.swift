/// A benchmark that cannot go on: a database error on its own connection, or a setup
/// that did not come out as planned.
package struct BenchmarkError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package let description: String

    /// Creates an error with its message.
    package init(_ description: String) {
        self.description = description
    }
}
