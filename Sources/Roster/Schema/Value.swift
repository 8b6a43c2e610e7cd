/// A value of an attribute: what one column of one stored object holds.
///
/// `Value` mirrors the four attribute types of the store plus null. Strings compare and
/// hash by their UTF-8 bytes, as SQLite's BINARY collation does — not by Swift's
/// canonical equivalence — so `"é"` (one scalar) and `"e\u{301}"` (two) are different
/// values, exactly as they are different rows in the database.
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
        case .string: .string
        case .bool: .bool
        }
    }
}

extension Value: Equatable {
    /// Two values are equal when they have the same case and the same payload; strings
    /// are equal only when their UTF-8 bytes are.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.integer(a), .integer(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.bool(a), .bool(b)): a == b
        default: false
        }
    }
}

extension Value: Hashable {
    /// Hashes the case and the payload; strings hash their UTF-8 bytes.
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
        }
    }
}

extension Value {
    /// Hashes a string's UTF-8 bytes exactly as `hash(into:)` hashes `.string`, so a
    /// hash can be taken straight from a buffer (SQLite's) without building the string.
    static func hashString(utf8 bytes: UnsafeRawBufferPointer, into hasher: inout Hasher) {
        hasher.combine(3 as UInt8)
        hasher.combine(bytes.count)
        hasher.combine(bytes: bytes)
    }
}

extension Value: CustomStringConvertible {
    /// A readable form: strings in single quotes, `nil` for null.
    public var description: String {
        switch self {
        case .null: "nil"
        case let .integer(value): String(value)
        case let .double(value): String(value)
        case let .string(value): "'\(value)'"
        case let .bool(value): value ? "YES" : "NO"
        }
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
