import Roster
import RosterJSON

/// The `window` member of a script's `query` and `window` lines, and how a window is
/// printed: `{"offset":O,"length":L}` or `{"anchor":K,"before":B,"after":A}`.
enum ScriptWindow {
    /// The window a `window` member describes; nil for a missing or null member.
    static func window(_ json: JSONValue?, of entity: Entity) throws(ScriptError) -> ResultsWindow? {
        guard let json, !json.isNull else { return nil }
        guard case let .object(members) = json else {
            throw ScriptError("\"window\" must be an object such as {\"offset\":0,\"length\":50} or {\"anchor\":\"k1\",\"before\":10,\"after\":10}, not \(json.serialized())")
        }
        if let anchor = members["anchor"] {
            if members["offset"] != nil || members["length"] != nil {
                throw ScriptError("\"window\" has both \"anchor\" and \"offset\"/\"length\": it is either kind, not both")
            }
            let key = try ScriptValues.value(anchor, for: entity.key, of: entity)
            guard !key.isNull else { throw ScriptError("\"window\": \"anchor\" cannot be null") }
            return .anchored(key: key, before: try count("before", in: members), after: try count("after", in: members))
        }
        guard members["offset"] != nil || members["length"] != nil else {
            throw ScriptError("\"window\" needs \"offset\" and \"length\", or \"anchor\", \"before\" and \"after\"")
        }
        if members["before"] != nil || members["after"] != nil {
            throw ScriptError("\"window\" has both \"offset\"/\"length\" and \"before\"/\"after\": it is either kind, not both")
        }
        return .offset(try count("offset", in: members), length: try count("length", in: members))
    }

    /// A required count member: a non-negative integer.
    private static func count(_ name: String, in members: JSONObject) throws(ScriptError) -> Int {
        guard let json = members[name] else { throw ScriptError("\"window\" needs \"\(name)\"") }
        guard case let .integer(value) = json else {
            throw ScriptError("\"window\": \"\(name)\" must be an integer, not \(json.serialized())")
        }
        guard value >= 0 else { throw ScriptError("\"window\": \"\(name)\" cannot be negative; got \(value)") }
        guard let count = Int(exactly: value) else { throw ScriptError("\"window\": \"\(name)\" is too large: \(value)") }
        return count
    }

    /// A window as the trace prints it.
    static func json(_ window: ResultsWindow) -> JSONValue {
        switch window {
        case let .offset(offset, length):
            .object(JSONObject(uniqueKeysWithValues: [("offset", .integer(Int64(offset))), ("length", .integer(Int64(length)))]))
        case let .anchored(key, before, after):
            .object(JSONObject(uniqueKeysWithValues: [
                ("anchor", ScriptValues.json(key)), ("before", .integer(Int64(before))), ("after", .integer(Int64(after))),
            ]))
        }
    }
}
