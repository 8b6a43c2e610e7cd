/// The type of an attribute, and of the column that stores it.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// Text, stored as TEXT and compared by UTF-8 bytes.
    case string
    /// A 64-bit signed integer, stored as INTEGER.
    case integer
    /// A double-precision number, stored as REAL.
    case double
    /// A Boolean, stored as INTEGER 0 or 1.
    case bool

    /// The SQLite column type that stores this attribute type.
    public var columnType: String {
        switch self {
        case .string: "TEXT"
        case .integer, .bool: "INTEGER"
        case .double: "REAL"
        }
    }

    /// Whether values of this type order and compare as numbers.
    public var isNumeric: Bool { self != .string }
}
