/// A script line that could not be carried out: what and where, for the trace's error event.
struct ScriptError: Error, CustomStringConvertible {
    let message: String
    /// Whether the message already says which op failed, so no prefix is added.
    let namesItsOp: Bool

    init(_ message: String) {
        self.message = message
        namesItsOp = false
    }

    /// An error whose message already says everything, with no op prefix to add.
    init(unknownOp message: String) {
        self.message = message
        namesItsOp = true
    }

    var description: String { message }
}
