/// The `--pretty` form of trace events: indented objects, with arrays of plain values
/// (keys, index paths) kept on one line so a person can read a long trace.
public enum TraceFormat {
    /// The event as indented JSON text; parsing it gives the same value as the compact form.
    public static func readable(_ value: JSONValue, indent: String = "") -> String {
        switch value {
        case let .object(object) where !object.members.isEmpty:
            let inner = indent + "  "
            let members = object.members.map { "\(inner)\(JSONValue.string($0.key).serialized()): \(readable($0.value, indent: inner))" }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        case let .array(items) where items.contains(where: { if case .object = $0 { true } else { false } }):
            let inner = indent + "  "
            return "[\n" + items.map { inner + readable($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return value.serialized()
        }
    }
}
