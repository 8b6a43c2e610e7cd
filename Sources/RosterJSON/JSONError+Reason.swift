extension JSONError {
    /// The ways a text can fail to be JSON.
    package enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// A value was expected (at the start, after `:`, `[` or `,`), but something else,
        /// or the end of the text, was found.
        case expectedValue
        /// Text that starts like `true`, `false` or `null` but is not one of them.
        case invalidLiteral
        /// A number with a superfluous leading zero, such as `01` or `-00`.
        case leadingZero
        /// A digit was expected: after `-`, after `.`, or in an exponent.
        case expectedDigit
        /// A number too large for a `Double`, such as `1e400`.
        case numberOutOfRange
        /// A string without its closing quote; the column is that of the opening quote.
        case unterminatedString
        /// A control character (U+0000 to U+001F) that is not escaped inside a string.
        case controlCharacterInString
        /// A backslash followed by a character that does not start an escape.
        case invalidEscape
        /// `\u` not followed by four hexadecimal digits.
        case invalidUnicodeEscape
        /// A `\u` escape of a UTF-16 surrogate that is not part of a high-low pair.
        case loneSurrogate
        /// After `{`, a member name (a string) or `}` was expected.
        case expectedMemberNameOrObjectEnd
        /// After `,` in an object, a member name (a string) was expected.
        case expectedMemberName
        /// After a member name, `:` was expected.
        case expectedColon
        /// After a member, `,` or `}` was expected.
        case expectedCommaOrObjectEnd
        /// After an element, `,` or `]` was expected.
        case expectedCommaOrArrayEnd
        /// A `,` directly before `}` or `]`; the column is that of the comma.
        case trailingComma
        /// A member name that an earlier member of the same object already has.
        case duplicateKey(String)
        /// Arrays and objects nested deeper than the parser allows.
        case tooDeep(limit: Int)
        /// Something other than whitespace after the value.
        case trailingCharacters

        /// A short sentence that says what is wrong.
        package var description: String {
            switch self {
            case .expectedValue: "expected a value"
            case .invalidLiteral: "invalid literal (expected true, false or null)"
            case .leadingZero: "a number cannot start with a superfluous zero"
            case .expectedDigit: "expected a digit"
            case .numberOutOfRange: "number is too large for a double"
            case .unterminatedString: "unterminated string"
            case .controlCharacterInString: "unescaped control character in a string"
            case .invalidEscape: "invalid escape sequence in a string"
            case .invalidUnicodeEscape: "expected four hexadecimal digits after \\u"
            case .loneSurrogate: "lone UTF-16 surrogate in a \\u escape"
            case .expectedMemberNameOrObjectEnd: "expected a member name or '}'"
            case .expectedMemberName: "expected a member name (a string) after ','"
            case .expectedColon: "expected ':' after a member name"
            case .expectedCommaOrObjectEnd: "expected ',' or '}' after an object member"
            case .expectedCommaOrArrayEnd: "expected ',' or ']' after an array element"
            case .trailingComma: "trailing comma"
            case let .duplicateKey(key): "duplicate key \(JSONValue.string(key).serialized())"
            case let .tooDeep(limit): "arrays and objects nested more than \(limit) deep"
            case .trailingCharacters: "unexpected text after the JSON value"
            }
        }
    }
}
