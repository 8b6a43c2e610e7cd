/// A value of an attribute: what one column of one stored object holds.
///
/// `Value` mirrors the four attribute types of the store plus null. Strings compare and
/// hash by their UTF-8 bytes, as SQLite's BINARY collation does — not by Swift's
/// canonical equivalence — so `"é"` (one scalar) and `"e\u{301}"` (two) are different
/// values, exactly as they are different rows in the database.
///
/// A `string` attribute has two cases: ``string(_:)`` for valid UTF-8, which is all that
/// Roster itself writes, and ``invalidUTF8(_:)`` for text another writer stored that is
/// not valid UTF-8. Both are text to SQLite, and both compare by their bytes.
///
/// ```swift
/// let title: Value = "Hello"
/// let rank: Value = 3
/// let missing: Value = nil
/// ```
public enum Value: Sendable {
    /// SQL NULL: the attribute has no value.
    case null
    /// A 64-bit signed integer (`integer` attributes).
    case integer(Int64)
    /// A double-precision number (`double` attributes).
    case double(Double)
    /// A string (`string` attributes), compared by UTF-8 bytes.
    case string(String)
    /// A Boolean (`bool` attributes), stored as 0 or 1.
    case bool(Bool)
    /// The text of a `string` attribute that is not valid UTF-8: its bytes, exactly as
    /// SQLite holds them.
    ///
    /// Roster never writes such text, but SQLite does not check it: another connection can
    /// store it in a `TEXT` column, `STRICT` or not (`UPDATE Post SET title =
    /// CAST(X'C3' AS TEXT)`). Reading gives this case instead of repairing the text with
    /// U+FFFD, so the value keeps SQLite's identity and order: `X'C3'` and `X'EFBFBD'`
    /// (which is `"\u{FFFD}"`) stay different values, different sections and different
    /// keys, and a change from one to the other is a change. Valid UTF-8 is always read
    /// as ``string(_:)``; ``init(textBytes:)`` chooses the case the same way.
    ///
    /// It is text: its ``type`` is ``AttributeType/string``, and it compares, equals and
    /// hashes by its bytes, with ``string(_:)`` values too (by their UTF-8 bytes) — the
    /// order of SQLite's BINARY collation: bytes as unsigned numbers, then the shorter
    /// first. Written back (as a key to update or delete, or a value), it is bound as
    /// these exact bytes of text. A record property of type `String` cannot hold it:
    /// decoding one throws an error that names the attribute and the bytes.
    case invalidUTF8([UInt8])
}

extension Value {
    /// Whether this value is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The attribute type whose values look like this one, or nil for `.null`.
    public var type: AttributeType? {
        switch self {
        case .null: nil
        case .integer: .integer
        case .double: .double
        case .string, .invalidUTF8: .string
        case .bool: .bool
        }
    }

    /// Text from its bytes: ``string(_:)`` when they are valid UTF-8, else
    /// ``invalidUTF8(_:)`` — the way Roster reads a `TEXT` column.
    ///
    /// ```swift
    /// Value(textBytes: [0x61])   // "a"
    /// Value(textBytes: [0xC3])   // .invalidUTF8([0xC3])
    /// ```
    public init(textBytes bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { Self.text(utf8: $0) }
    }

    /// The text whose bytes these are, as ``init(textBytes:)`` makes it.
    static func text(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Value {
        // `_tryFromUTF8` (underscored, but public) validates and copies in one pass, the
        // check `String(decoding:as:)` makes before it repairs; `String(validating:as:)`
        // takes two to four times as long on Swift 6.3 (Linux). Docs/Performance.md.
        if let text = String._tryFromUTF8(bytes) { return .string(text) }
        return .invalidUTF8(Array(bytes))
    }

    /// The bytes of a text value — a string's UTF-8 bytes, or the bytes of
    /// ``invalidUTF8(_:)`` — or nil for a value that is not text.
    public var textBytes: [UInt8]? {
        switch self {
        case let .string(text): Array(text.utf8)
        case let .invalidUTF8(bytes): bytes
        default: nil
        }
    }

    /// Calls `body` with the bytes of a text value (as ``textBytes`` gives them) without
    /// copying them; nil for a value that is not text.
    func withTextBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        switch self {
        case var .string(text): try text.withUTF8(body)
        case let .invalidUTF8(bytes): try bytes.withUnsafeBufferPointer(body)
        default: nil
        }
    }
}

extension Value: Equatable {
    /// Two values are equal when they have the same case and the same payload; text is
    /// equal only when its bytes are — a string's UTF-8 bytes, or those of
    /// ``invalidUTF8(_:)``, which is so compared with strings too.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        if case .string = lhs, case .string = rhs, sameRepresentation(lhs, rhs) { return true }
        return switch (lhs, rhs) {
        case (.null, .null): true
        case let (.integer(a), .integer(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): sameBytes(a, b)
        case let (.bool(a), .bool(b)): a == b
        case let (.invalidUTF8(a), .invalidUTF8(b)): a == b
        case let (.string(a), .invalidUTF8(b)), let (.invalidUTF8(b), .string(a)):
            b.withUnsafeBufferPointer { y in
                var a = a
                return a.withUTF8 { x in sameBytes(x, y) }
            }
        default: false
        }
    }

    /// Whether two values are bit for bit the same: then they are equal. Rows read twice
    /// hold their short strings inline and share their long ones with the row cache, so
    /// this answers most comparisons of equal text without retaining either string (the
    /// retains and releases of the payloads were most of what `==` cost a relationship's
    /// rename). Only used for `.string`, whose payload fills every byte compared.
    @inline(__always)
    private static func sameRepresentation(_ lhs: Value, _ rhs: Value) -> Bool {
        withUnsafeBytes(of: lhs) { x in
            withUnsafeBytes(of: rhs) { y in
                x.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == y.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                    && x.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            }
        }
    }

    /// Whether two strings have the same UTF-8 bytes. Keys and sort values are compared
    /// this way at every step of a key look-up, so it compares lengths first and then
    /// eight bytes at a time (`String.utf8.elementsEqual` went byte by byte through the
    /// generic iterator, 15 % of a bulk commit's instructions).
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var (a, b) = (a, b)
        return a.withUTF8 { x in b.withUTF8 { y in sameBytes(x, y) } }
    }

    /// Whether two buffers hold the same bytes.
    @inline(__always)
    static func sameBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        let (left, right) = (UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
        var index = 0
        while index + 8 <= left.count {
            if left.loadUnaligned(fromByteOffset: index, as: UInt64.self) != right.loadUnaligned(fromByteOffset: index, as: UInt64.self) { return false }
            index += 8
        }
        while index < left.count {
            if left[index] != right[index] { return false }
            index += 1
        }
        return true
    }
}

extension Value: Hashable {
    /// Hashes the case and the payload; text hashes its bytes, the same way for
    /// ``string(_:)`` and ``invalidUTF8(_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case let .integer(value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case let .double(value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case var .string(value):
            value.withUTF8 { Self.hashString(utf8: UnsafeRawBufferPointer($0), into: &hasher) }
        case let .bool(value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case let .invalidUTF8(bytes):
            bytes.withUnsafeBytes { Self.hashString(utf8: $0, into: &hasher) }
        }
    }
}

extension Value {
    /// Hashes text's bytes exactly as `hash(into:)` hashes `.string` and `.invalidUTF8`,
    /// so a hash can be taken straight from a buffer (SQLite's) without building the value.
    static func hashString(utf8 bytes: UnsafeRawBufferPointer, into hasher: inout Hasher) {
        hasher.combine(3 as UInt8)
        hasher.combine(bytes.count)
        hasher.combine(bytes: bytes)
    }
}

extension Value: CustomStringConvertible {
    /// A readable form: strings in single quotes, `nil` for null, and text that is not
    /// valid UTF-8 as its bytes in hex: `<invalid UTF-8 61 c3>`.
    public var description: String {
        switch self {
        case .null: "nil"
        case let .integer(value): String(value)
        case let .double(value): String(value)
        case let .string(value): "'\(value)'"
        case let .bool(value): value ? "YES" : "NO"
        case let .invalidUTF8(bytes): "<invalid UTF-8\(bytes.map { " " + Self.hex($0) }.joined())>"
        }
    }

    /// The value as text for a label or a cell: a string as it is, a number as Swift
    /// writes it, `YES` or `NO` for a bool (NSPredicate's spelling), text that is not valid
    /// UTF-8 with U+FFFD for each bad byte; nil for null.
    public var text: String? {
        switch self {
        case .null: nil
        case let .string(value): value
        case let .invalidUTF8(bytes): String(decoding: bytes, as: UTF8.self)
        default: description
        }
    }

    /// A byte as two lowercase hex digits.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
