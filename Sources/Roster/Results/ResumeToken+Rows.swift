import Foundation
import RosterUpdates

extension ResumeToken {
    /// The rows a token's window showed, as they were at the token's position, so that a
    /// resume reads only the rows the log names since (issue 37: a resume costs what
    /// changed): a row no entry names is as the token holds it.
    ///
    /// Read only into an entity laid out as it was when saved (``layout``); otherwise, and
    /// when the log cannot say what changed (a resync), a resume reads the rows instead.
    struct ShownRows: Sendable, Hashable {
        /// The entity's attributes and key when saved (``layout(of:)``).
        let layout: String
        /// How many attributes a row has.
        let width: Int
        /// Where the key is in a row.
        let keyIndex: Int
        /// One row per key of the token's sections, in their order.
        let rows: [[Value]]
        /// The digest of the log's entry at the token's position
        /// (``StorageBackend/changeLogEntryDigest(at:)``): the rows are taken only from a
        /// log with the same history.
        let logEntry: String

        /// The rows of `keys` as `entity` lays them out; nil when a row is missing or
        /// does not fit it (a key path's extra columns).
        init?(entity: Entity, keys: [Value], rows byKey: [Value: [Value]], logEntry: String) {
            guard entity.keyPaths == nil else { return nil }
            var rows: [[Value]] = []
            rows.reserveCapacity(keys.count)
            for key in keys {
                guard let row = byKey[key], row.count == entity.attributes.count else { return nil }
                rows.append(row)
            }
            self.init(layout: ResumeToken.layout(of: entity), width: entity.attributes.count, keyIndex: entity.keyIndex, rows: rows, logEntry: logEntry)
        }

        init(layout: String, width: Int, keyIndex: Int, rows: [[Value]], logEntry: String) {
            self.layout = layout
            self.width = width
            self.keyIndex = keyIndex
            self.rows = rows
            self.logEntry = logEntry
        }
    }

    /// The rows the token's window showed, a row for each key of its sections in their
    /// order, when it holds them and `entity` lays them out as when they were saved.
    func shownRows(laidOutAs entity: Entity) -> [[Value]]? {
        guard let shownRows, entity.keyPaths == nil, shownRows.layout == Self.layout(of: entity),
              shownRows.width == entity.attributes.count, shownRows.keyIndex == entity.keyIndex else { return nil }
        return shownRows.rows
    }

    /// An entity's attributes (name and type) and key, as a token compares them.
    static func layout(of entity: Entity) -> String {
        entity.attributes.map { "\($0.name):\($0.type.rawValue)" }.joined(separator: ",") + ";key=\(entity.keyIndex)"
    }
}

/// The compact form of the values a token holds (its sections and rows): each value a tag
/// byte and its payload — nothing (null, false, true), eight little-endian bytes (an
/// integer, a double's bits), or a length and the text's bytes; counts and lengths in
/// LEB128. Text is read back as ``Value/init(textBytes:)`` reads it: valid UTF-8 as a
/// string, other bytes as they are. Reading it costs a few instructions a byte, where
/// Foundation's JSON parser costs thousands a value.
struct CompactValueWriter {
    private(set) var bytes: [UInt8] = []

    fileprivate enum Tag: UInt8 {
        case null = 0, integer, double, text, falseBool, trueBool
    }

    mutating func append(_ value: Value) {
        switch value {
        case .null: bytes.append(Tag.null.rawValue)
        case let .integer(number): append(Tag.integer, UInt64(bitPattern: number))
        case let .double(number): append(Tag.double, number.bitPattern)
        case let .bool(flag): bytes.append((flag ? Tag.trueBool : Tag.falseBool).rawValue)
        case .string, .invalidUTF8:
            bytes.append(Tag.text.rawValue)
            _ = value.withTextBytes { text in
                appendCount(text.count)
                bytes.append(contentsOf: text)
            }
        }
    }

    mutating func appendCount(_ count: Int) {
        var rest = UInt(count)
        repeat {
            bytes.append(UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0))
            rest >>= 7
        } while rest > 0
    }

    private mutating func append(_ tag: Tag, _ bits: UInt64) {
        bytes.append(tag.rawValue)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }
}

/// Reads what ``CompactValueWriter`` wrote; nil from any read that meets anything else.
struct CompactValueReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    /// How many bytes are left to read.
    var remaining: Int { bytes.count - offset }

    mutating func value() -> Value? {
        guard offset < bytes.count, let tag = CompactValueWriter.Tag(rawValue: bytes[offset]) else { return nil }
        offset += 1
        switch tag {
        case .null: return .null
        case .falseBool: return .bool(false)
        case .trueBool: return .bool(true)
        case .integer: return word().map { .integer(Int64(bitPattern: $0)) }
        case .double: return word().map { .double(Double(bitPattern: $0)) }
        case .text:
            guard let length = count(), bytes.count - offset >= length else { return nil }
            let start = offset
            offset += length
            return bytes.withUnsafeBufferPointer { Value.text(utf8: UnsafeBufferPointer(rebasing: $0[start..<start + length])) }
        }
    }

    /// A count or a length: at most 2^28 − 1 (four bytes), which no token reaches and a
    /// 32-bit `Int` holds.
    mutating func count() -> Int? {
        var value = 0
        var shift = 0
        while offset < bytes.count, shift < 28 {
            let byte = bytes[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    private mutating func word() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
        offset += 8
        return bits
    }
}

extension ResumeToken.ShownRows {
    /// The rows' values, one after another (``CompactValueWriter``).
    var encodedValues: [UInt8] {
        var writer = CompactValueWriter()
        for row in rows { row.forEach { writer.append($0) } }
        return writer.bytes
    }

    /// `count` rows of `width` values, and nothing else; nil when the bytes hold anything else.
    static func rows(decoding bytes: [UInt8], count: Int, width: Int) -> [[Value]]? {
        var reader = CompactValueReader(bytes)
        guard let rows = rows(reading: &reader, count: count, width: width), reader.isAtEnd else { return nil }
        return rows
    }

    /// `count` rows of `width` values from where `reader` stands; nil when it meets
    /// anything else.
    static func rows(reading reader: inout CompactValueReader, count: Int, width: Int) -> [[Value]]? {
        var rows: [[Value]] = []
        rows.reserveCapacity(count)
        for _ in 0..<count {
            var row: [Value] = []
            row.reserveCapacity(width)
            for _ in 0..<width {
                guard let value = reader.value() else { return nil }
                row.append(value)
            }
            rows.append(row)
        }
        return rows
    }
}

extension ResumeToken {
    /// Sections as the compact form holds them: their count, then each one's name, its
    /// count of keys and its keys.
    static func encode(_ sections: [ListSection<Value, Value>]) -> [UInt8] {
        var writer = CompactValueWriter()
        writer.appendCount(sections.count)
        for section in sections {
            writer.append(section.id)
            writer.appendCount(section.items.count)
            section.items.forEach { writer.append($0) }
        }
        return writer.bytes
    }

    /// The sections `encode(_:)` wrote, and nothing else; nil when the bytes hold anything else.
    static func sections(decoding bytes: [UInt8]) -> [ListSection<Value, Value>]? {
        var reader = CompactValueReader(bytes)
        guard let sections = sections(reading: &reader), reader.isAtEnd else { return nil }
        return sections
    }

    /// The sections `encode(_:)` wrote, from where `reader` stands; nil when it meets
    /// anything else.
    static func sections(reading reader: inout CompactValueReader) -> [ListSection<Value, Value>]? {
        guard let count = reader.count(), count <= reader.remaining else { return nil }
        var sections: [ListSection<Value, Value>] = []
        sections.reserveCapacity(count)
        for _ in 0..<count {
            guard let name = reader.value(), let size = reader.count(), size <= reader.remaining else { return nil }
            var items: [Value] = []
            items.reserveCapacity(size)
            for _ in 0..<size {
                guard let key = reader.value() else { return nil }
                items.append(key)
            }
            sections.append(ListSection(id: name, items: items))
        }
        return sections
    }
}
