extension JSONValue: Hashable {
    /// Two values are equal when they are the same case with equal payloads.
    ///
    /// `.integer(3)` and `.number(3.0)` are different; strings are equal only when their
    /// UTF-8 bytes are; objects are equal only when their members are, in the same order.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a == b
        default: false
        }
    }

    /// Hashes the case and the payload; strings hash their UTF-8 bytes.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case let .bool(value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case let .integer(value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case let .number(value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case let .string(value):
            hasher.combine(4 as UInt8)
            hasher.combineJSONString(value)
        case let .array(elements):
            hasher.combine(5 as UInt8)
            hasher.combine(elements)
        case let .object(object):
            hasher.combine(6 as UInt8)
            hasher.combine(object)
        }
    }
}
