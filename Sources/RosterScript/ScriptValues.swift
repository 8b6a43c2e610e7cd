import Roster
import RosterJSON

/// Converts between the script's JSON and the store's typed values, by the spec's rules:
/// an `integer` takes a JSON integer, a `double` any JSON number, a `bool` true or false,
/// a `string` a JSON string; null fits any attribute but the key.
enum ScriptValues {
    /// The value of `json` for an attribute, or an error that names the attribute.
    static func value(_ json: JSONValue, for attribute: Attribute, of entity: Entity) throws(ScriptError) -> Value {
        switch (attribute.type, json) {
        case (_, .null): return .null
        case let (.string, .string(text)): return .string(text)
        case let (.integer, .integer(number)): return .integer(number)
        case let (.double, .integer(number)): return .double(Double(number))
        case let (.double, .number(number)): return .double(number)
        case let (.bool, .bool(flag)): return .bool(flag)
        default:
            let expected: String
            switch attribute.type {
            case .string: expected = "a JSON string"
            case .integer: expected = "a JSON integer"
            case .double: expected = "a JSON number"
            case .bool: expected = "true or false"
            }
            throw ScriptError("\(entity.name).\(attribute.name) is \(attribute.type == .integer ? "an" : "a") \(attribute.type.rawValue) attribute and takes \(expected), not \(json.serialized())")
        }
    }

    /// The values of a `values` object, checked against the entity.
    static func values(_ json: JSONValue?, of entity: Entity) throws(ScriptError) -> [String: Value] {
        guard let json else { return [:] }
        guard case let .object(object) = json else {
            throw ScriptError("'values' must be a JSON object of attribute names to values, not \(json.serialized())")
        }
        var values: [String: Value] = [:]
        for (name, member) in object.members {
            guard let attribute = entity.attribute(named: name) else {
                throw ScriptError("entity '\(entity.name)' has no attribute '\(name)'")
            }
            values[name] = try value(member, for: attribute, of: entity)
        }
        return values
    }

    /// The JSON form of a stored value (keys and section names in the trace). Text that
    /// is not valid UTF-8, which no JSON string can hold, is an object of its bytes in
    /// lowercase hex: `{"invalidUTF8":"c3"}`.
    static func json(_ value: Value) -> JSONValue {
        switch value {
        case .null: .null
        case let .integer(number): .integer(number)
        case let .double(number): .number(number)
        case let .string(text): .string(text)
        case let .bool(flag): .bool(flag)
        case let .invalidUTF8(bytes): .object(JSONObject(uniqueKeysWithValues: [("invalidUTF8", .string(hex(bytes)))]))
        }
    }

    /// Bytes as lowercase hex, two digits each.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// An index path as `[section, item]`.
    static func json(_ path: IndexPath) -> JSONValue {
        .array([.integer(Int64(path.section)), .integer(Int64(path.item))])
    }
}
