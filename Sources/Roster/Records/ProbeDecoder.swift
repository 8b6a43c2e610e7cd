import Foundation

/// A decoder that invents values, to learn a record type's properties (recording mode)
/// or to build an instance where one property holds a telltale value (probe mode).
struct ProbeDecoder: Decoder {
    /// The properties decoding asked for, in order.
    final class Recorder {
        struct Field {
            let name: String
            let type: AttributeType?
            let swiftType: String
        }
        var fields: [Field] = []
        var order: [String: Int] = [:]

        func record(_ name: String, _ type: AttributeType?, _ swiftType: Any.Type) {
            guard order[name] == nil else { return }
            order[name] = fields.count
            fields.append(Field(name: name, type: type, swiftType: String(describing: swiftType)))
        }
    }

    let recorder: Recorder
    /// In probe mode, the index of the attribute that gets its telltale value.
    var distinctIndex: Int?
    /// In probe mode, each property's index.
    var order: [String: Int] = [:]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard codingPath.isEmpty else { throw ProbeError.nested(codingPath) }
        return KeyedDecodingContainer(KeyedProbe<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeError.nested(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw ProbeError.nested(codingPath) }

    /// Whether the property at `index` gets its telltale value.
    func isDistinct(_ name: String) -> Bool { distinctIndex != nil && order[name] == distinctIndex }

    enum ProbeError: Error, CustomStringConvertible {
        case nested([any CodingKey])
        var description: String {
            switch self {
            case let .nested(path): "a nested value at '\(path.map(\.stringValue).joined(separator: "."))' is not a single attribute"
            }
        }
    }

    struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ProbeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        private func note(_ key: Key, _ type: AttributeType?, _ swiftType: Any.Type) -> Bool {
            decoder.recorder.record(key.stringValue, type, swiftType)
            return decoder.isDistinct(key.stringValue)
        }

        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) -> T {
            note(key, .integer, type) ? T(truncatingIfNeeded: (decoder.distinctIndex ?? 0) + 1) : 0
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { note(key, .bool, type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            note(key, .string, type) ? "\u{1}probe-\(decoder.distinctIndex ?? 0)" : ""
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            note(key, .double, type) ? Double(decoder.distinctIndex ?? 0) + 0.5 : 0
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            note(key, .double, type) ? Float(decoder.distinctIndex ?? 0) + 0.5 : 0
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { integer(type, key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let index = decoder.distinctIndex ?? 0
            if type == Date.self {
                return (note(key, .double, type) ? Date(timeIntervalSince1970: Double(index) + 0.5) : Date(timeIntervalSince1970: 0)) as! T
            }
            if type == UUID.self {
                let distinct = note(key, .string, type)
                var bytes = [UInt8](repeating: 0, count: 16)
                if distinct { bytes[15] = UInt8(truncatingIfNeeded: index + 1); bytes[14] = UInt8(truncatingIfNeeded: (index + 1) >> 8) }
                return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])) as! T
            }
            if type == URL.self {
                return URL(string: note(key, .string, type) ? "about:probe-\(index)" : "about:blank")! as! T
            }
            decoder.recorder.record(key.stringValue, nil, type)
            throw ProbeError.nested(codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw ProbeError.nested(codingPath + [key])
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ProbeError.nested(codingPath + [key]) }
        func superDecoder() throws -> any Decoder { throw ProbeError.nested(codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw ProbeError.nested(codingPath + [key]) }
    }
}
