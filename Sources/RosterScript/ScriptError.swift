/// A script line that could not be carried out: what and where, for the trace's error event.
struct ScriptError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
