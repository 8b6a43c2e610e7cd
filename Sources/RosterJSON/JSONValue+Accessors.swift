extension JSONValue {
    /// Whether this value is `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, if this value is `true` or `false`.
    package var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// The integer, if this value was written as an integer that fits in `Int64`.
    ///
    /// `3.0` and `3e0` give nil: they are numbers, not integers.
    package var int64Value: Int64? {
        if case let .integer(value) = self { return value }
        return nil
    }

    /// The number as a `Double`, if this value is any JSON number (integer or not).
    ///
    /// An integer beyond 2^53 is rounded to the nearest `Double`.
    package var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .number(value): value
        default: nil
        }
    }

    /// The string, if this value is a string.
    package var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The elements, if this value is an array.
    package var arrayValue: [JSONValue]? {
        if case let .array(value) = self { return value }
        return nil
    }

    /// The members, if this value is an object.
    package var objectValue: JSONObject? {
        if case let .object(value) = self { return value }
        return nil
    }

    /// The member named `key`, or nil when this is not an object or has no such member.
    ///
    /// A member whose value is `null` gives `.null`, not nil.
    ///
    /// - Parameter key: The member's name, matched by UTF-8 bytes.
    package subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index`, or nil when this is not an array or `index` is out of range.
    ///
    /// - Parameter index: A zero-based position.
    package subscript(index: Int) -> JSONValue? {
        guard case let .array(elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
