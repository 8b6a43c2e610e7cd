import Foundation

/// Builds a record from an object's values.
struct RowDecoder: Decoder {
    let object: Object
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(object: object))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "an object decodes as attributes, not a list"))
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "an object decodes as attributes, not a single value"))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: Object
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { object.entity.attributes.compactMap { Key(stringValue: $0.name) } }

        func contains(_ key: Key) -> Bool { object.entity.index(of: key.stringValue) != nil }

        private func value(_ key: Key) throws -> Value {
            guard let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "\(object.entity.name) has no attribute '\(key.stringValue)'"))
            }
            return value
        }

        private func mismatch<T>(_ type: T.Type, _ key: Key, _ value: Value) -> DecodingError {
            if value.isNull {
                return .valueNotFound(type, .init(codingPath: [key], debugDescription: "\(object.entity.name).\(key.stringValue) is null for key \(object.key); make the property optional"))
            }
            return .typeMismatch(type, .init(codingPath: [key], debugDescription: "\(object.entity.name).\(key.stringValue) holds \(value), not a \(type)"))
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            guard case let .bool(flag) = try value(key) else { throw mismatch(type, key, try value(key)) }
            return flag
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            let stored = try value(key)
            if case let .invalidUTF8(bytes) = stored {
                // A String holds only valid UTF-8: repairing the text would change the value.
                let hex = bytes.map { Value.hex($0) }.joined(separator: " ")
                throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "\(object.entity.name).\(key.stringValue) of key \(object.key) holds text that is not valid UTF-8 (bytes \(hex)), which a String cannot hold"))
            }
            guard case let .string(text) = stored else { throw mismatch(type, key, stored) }
            return text
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            switch try value(key) {
            case let .double(number): return number
            case let .integer(number): return Double(number)
            case let other: throw mismatch(type, key, other)
            }
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
            let stored = try value(key)
            guard case let .integer(number) = stored else { throw mismatch(type, key, stored) }
            guard let result = T(exactly: number) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "\(number) does not fit a \(T.self)"))
            }
            return result
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if type == Date.self { return Date(timeIntervalSince1970: try decode(Double.self, forKey: key)) as! T }
            if type == UUID.self {
                let text = try decode(String.self, forKey: key)
                guard let uuid = UUID(uuidString: text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "'\(text)' is not a UUID"))
                }
                return uuid as! T
            }
            if type == URL.self {
                let text = try decode(String.self, forKey: key)
                guard let url = URL(string: text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "'\(text)' is not a URL"))
                }
                return url as! T
            }
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a \(T.self) is not an attribute type"))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: [key], debugDescription: "nested values are not attributes"))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "nested values are not attributes"))
        }
        func superDecoder() throws -> any Decoder { RowDecoder(object: object) }
        func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(object: object) }
    }
}
