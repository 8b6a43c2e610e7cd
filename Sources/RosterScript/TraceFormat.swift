/// The `--pretty` form of a trace: one event per line with spaces after `:` and `,`, and
/// a blank line before the events of each new script line, so a person can follow a
/// long trace. Each non-blank line is still one JSON object, equal to the compact one.
package struct TraceFormat {
    private var lastLine: JSONValue?

    /// Creates a formatter; it remembers the last event's line to separate groups.
    package init() {}

    /// The event as readable text, preceded by a blank line when its script line differs
    /// from the previous event's.
    package mutating func readable(_ event: JSONValue) -> String {
        let line = event["line"]
        defer { lastLine = line }
        let text = Self.spaced(event)
        return lastLine != nil && line != lastLine ? "\n" + text : text
    }

    /// JSON text with a space after each `:` and `,` outside strings.
    static func spaced(_ value: JSONValue) -> String {
        switch value {
        case let .object(object):
            let members = object.members.map { "\(JSONValue.string($0.key).serialized()): \(spaced($0.value))" }
            return "{" + members.joined(separator: ", ") + "}"
        case let .array(items):
            return "[" + items.map(spaced).joined(separator: ", ") + "]"
        default:
            return value.serialized()
        }
    }
}
