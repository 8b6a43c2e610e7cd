extension JSONValue {
    /// The kind of a JSON value, for messages such as "expected a string, found an integer".
    package enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool = "boolean"
        /// A number written as an integer that fits in `Int64`.
        case integer
        /// Any other number.
        case number
        /// A string.
        case string
        /// An array.
        case array
        /// An object.
        case object

        /// The kind's name with its article: "an integer", "a string", "null".
        package var description: String {
            switch self {
            case .null: "null"
            case .integer, .array, .object: "an \(rawValue)"
            case .bool, .number, .string: "a \(rawValue)"
            }
        }
    }

    /// Which kind of value this is.
    package var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .integer: .integer
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}
