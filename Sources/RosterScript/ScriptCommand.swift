import RosterJSON

/// One script line's JSON object, with typed access to its fields and errors that name them.
struct ScriptCommand {
    let object: JSONObject
    /// The line's `op`, or "" before it is known.
    let op: String

    init(_ object: JSONObject) throws(ScriptError) {
        self.object = object
        guard let op = object["op"] else { throw ScriptError("a script line needs an \"op\" field") }
        guard case let .string(name) = op else { throw ScriptError("\"op\" must be a string, not \(op.serialized())") }
        self.op = name
    }

    /// A required string field.
    func string(_ field: String) throws(ScriptError) -> String {
        guard let value = object[field] else { throw ScriptError("\(op): missing field \"\(field)\"") }
        guard case let .string(text) = value else {
            throw ScriptError("\(op): \"\(field)\" must be a string, not \(value.serialized())")
        }
        return text
    }

    /// An optional string field (absent or null gives nil).
    func optionalString(_ field: String) throws(ScriptError) -> String? {
        guard let value = object[field], !value.isNull else { return nil }
        return try string(field)
    }

    /// An optional bool field (absent or null gives false).
    func optionalBool(_ field: String) throws(ScriptError) -> Bool {
        guard let value = object[field], !value.isNull else { return false }
        guard case let .bool(flag) = value else {
            throw ScriptError("\(op): \"\(field)\" must be true or false, not \(value.serialized())")
        }
        return flag
    }

    /// An optional field holding an array of strings (absent or null gives nil).
    func optionalStrings(_ field: String) throws(ScriptError) -> [String]? {
        guard let value = object[field], !value.isNull else { return nil }
        guard case let .array(items) = value else {
            throw ScriptError("\(op): \"\(field)\" must be an array of strings, not \(value.serialized())")
        }
        var strings: [String] = []
        for item in items {
            guard case let .string(text) = item else {
                throw ScriptError("\(op): \"\(field)\" must be an array of strings; \(item.serialized()) is not a string")
            }
            strings.append(text)
        }
        return strings
    }

    /// A required field of any JSON type.
    func value(_ field: String) throws(ScriptError) -> JSONValue {
        guard let value = object[field] else { throw ScriptError("\(op): missing field \"\(field)\"") }
        return value
    }

    /// An error for this line, prefixed with its op.
    func error(_ message: String) -> ScriptError {
        ScriptError("\(op): \(message)")
    }
}
