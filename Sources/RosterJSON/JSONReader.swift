/// The parser's cursor over the UTF-8 bytes of one text: values, arrays and objects.
///
/// Strings and numbers are in `JSONReader+Strings.swift` and `JSONReader+Numbers.swift`.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0
    var depth = 0

    /// Reads the one value that `bytes` must hold, with nothing but whitespace around it.
    static func readDocument(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int
    ) -> Result<JSONValue, JSONError> {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        return Result { () throws(JSONError) -> JSONValue in
            reader.skipWhitespace()
            let value = try reader.readValue()
            reader.skipWhitespace()
            guard reader.isAtEnd else { throw reader.error(.trailingCharacters) }
            return value
        }
    }

    var isAtEnd: Bool { position >= bytes.count }

    /// The current byte, or nil at the end of the text.
    var current: UInt8? { isAtEnd ? nil : bytes[position] }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case JSONByte.space, JSONByte.tab, JSONByte.lineFeed, JSONByte.carriageReturn: position += 1
            default: return
            }
        }
    }

    mutating func readValue() throws(JSONError) -> JSONValue {
        guard let byte = current else { throw error(.expectedValue) }
        switch byte {
        case JSONByte.openBrace: return try readObject()
        case JSONByte.openBracket: return try readArray()
        case JSONByte.quote: return .string(try readString())
        case JSONByte.minus, JSONByte.zero...JSONByte.nine: return try readNumber()
        case JSONByte.t: return try readLiteral("true", .bool(true))
        case JSONByte.f: return try readLiteral("false", .bool(false))
        case JSONByte.n: return try readLiteral("null", .null)
        default: throw error(.expectedValue)
        }
    }

    private mutating func readLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
              UnsafeBufferPointer(start: word.utf8Start, count: length)
                  .elementsEqual(bytes[position..<position + length])
        else { throw error(.invalidLiteral) }
        position += length
        return value
    }

    private mutating func readArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == JSONByte.closeBracket {
            return leaveContainer(.array(elements))
        }
        while true {
            elements.append(try readValue())
            skipWhitespace()
            switch current {
            case JSONByte.comma:
                try skipComma(before: JSONByte.closeBracket)
            case JSONByte.closeBracket:
                return leaveContainer(.array(elements))
            default:
                throw error(.expectedCommaOrArrayEnd)
            }
        }
    }

    private mutating func readObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        var object = JSONObject()
        skipWhitespace()
        if current == JSONByte.closeBrace {
            return leaveContainer(.object(object))
        }
        while true {
            guard current == JSONByte.quote else {
                throw error(object.isEmpty ? .expectedMemberNameOrObjectEnd : .expectedMemberName)
            }
            let keyStart = position
            let key = try readString()
            guard !object.contains(key: key) else { throw error(.duplicateKey(key), at: keyStart) }
            skipWhitespace()
            guard current == JSONByte.colon else { throw error(.expectedColon) }
            position += 1
            skipWhitespace()
            _ = object.appendNew(key: key, value: try readValue())
            skipWhitespace()
            switch current {
            case JSONByte.comma:
                try skipComma(before: JSONByte.closeBrace)
            case JSONByte.closeBrace:
                return leaveContainer(.object(object))
            default:
                throw error(.expectedCommaOrObjectEnd)
            }
        }
    }

    /// Steps over `,` and the whitespace after it; a `closer` right after it is a trailing comma.
    private mutating func skipComma(before closer: UInt8) throws(JSONError) {
        let comma = position
        position += 1
        skipWhitespace()
        if current == closer { throw error(.trailingComma, at: comma) }
    }

    /// Steps over `[` or `{`, checking the nesting limit.
    private mutating func enterContainer() throws(JSONError) {
        depth += 1
        guard depth <= maximumDepth else { throw error(.tooDeep(limit: maximumDepth)) }
        position += 1
    }

    /// Steps over `]` or `}` and returns the finished container.
    private mutating func leaveContainer(_ value: JSONValue) -> JSONValue {
        depth -= 1
        position += 1
        return value
    }
}
