import Foundation

/// Turns a record into attribute values by name, and any property value into a ``Value``.
enum RowEncoder {
    /// The record's values by attribute name; properties that encode nothing are absent (null).
    ///
    /// - Throws: `EncodingError.invalidValue` for a value that is not an attribute: a list,
    ///   a nested object, or a type no attribute stores.
    static func encode<R: Encodable>(_ record: R) throws -> [String: Value] {
        let storage = Storage()
        try record.encode(to: TopEncoder(storage: storage))
        // Containers cannot throw when they are asked for; what they refused is thrown here.
        if let misuse = storage.misuse {
            throw EncodingError.invalidValue(record, .init(codingPath: [], debugDescription: "\(R.self): \(misuse)"))
        }
        return storage.values
    }

    /// The stored form of one property value, or nil when it is not storable.
    static func value(of any: Any) -> Value? {
        if let optional = any as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .null }
            return value(of: wrapped)
        }
        switch any {
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Date: return .double(value.timeIntervalSince1970)
        case let value as UUID: return .string(value.uuidString)
        case let value as URL: return .string(value.absoluteString)
        case let value as any BinaryInteger: return Int64(exactly: value).map(Value.integer)
        default: return nil
        }
    }

    final class Storage {
        var values: [String: Value] = [:]
        /// The first thing the record asked for that is not an attribute.
        var misuse: String?

        func refuse(_ reason: String) {
            if misuse == nil { misuse = reason }
        }
    }

    struct TopEncoder: Encoder {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(storage: storage))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            storage.refuse("a record encodes as an object of attributes, not a list")
            return Refused(reason: "a record encodes as an object of attributes, not a list")
        }
        func singleValueContainer() -> any SingleValueEncodingContainer {
            storage.refuse("a record encodes as an object of attributes, not a single value")
            return Refused(reason: "a record encodes as an object of attributes, not a single value")
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { storage.values[key.stringValue] = .null }
        mutating func encode(_ value: Bool, forKey key: Key) throws { storage.values[key.stringValue] = .bool(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { storage.values[key.stringValue] = .string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { storage.values[key.stringValue] = .double(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { storage.values[key.stringValue] = .double(Double(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

        private func integer(_ value: some BinaryInteger, _ key: Key) throws {
            guard let number = Int64(exactly: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "\(value) does not fit a 64-bit integer attribute"))
            }
            storage.values[key.stringValue] = .integer(number)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            guard let stored = RowEncoder.value(of: value) else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "a \(T.self) cannot be stored in an attribute"))
            }
            storage.values[key.stringValue] = stored
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            storage.refuse("'\(key.stringValue)': nested values are not attributes")
            // Whatever goes in is dropped: encode(_:) throws for the refusal.
            return KeyedEncodingContainer(Keyed<NestedKey>(storage: Storage()))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            storage.refuse("'\(key.stringValue)': nested values are not attributes")
            return Refused(reason: "'\(key.stringValue)': nested values are not attributes")
        }
        mutating func superEncoder() -> any Encoder { TopEncoder(storage: storage) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { TopEncoder(storage: storage) }
    }
}

/// A container handed out for something a record may not encode: every write throws, and
/// ``RowEncoder/encode(_:)`` throws for it in any case.
private struct Refused: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let reason: String
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    private func refuse() -> EncodingError {
        EncodingError.invalidValue(reason, .init(codingPath: [], debugDescription: reason))
    }

    mutating func encodeNil() throws { throw refuse() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw refuse() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RowEncoder.Keyed<NestedKey>(storage: RowEncoder.Storage()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { RowEncoder.TopEncoder(storage: RowEncoder.Storage()) }
}

/// Lets ``RowEncoder`` see through optionals held as `Any`.
protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
