extension JSONReader {
    /// Reads a string, from its opening quote (the current byte) to past its closing one.
    mutating func readString() throws(JSONError) -> String {
        let open = position
        position += 1
        let start = position
        // Fast path: most strings have no escapes and are copied in one go.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == JSONByte.quote {
                position += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self)
            }
            if byte == JSONByte.backslash { break }
            guard byte >= 0x20 else { throw error(.controlCharacterInString) }
            position += 1
        }
        var buffer = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case JSONByte.quote:
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            case JSONByte.backslash:
                try readEscape(into: &buffer, stringStart: open)
            case 0..<0x20:
                throw error(.controlCharacterInString)
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw error(.unterminatedString, at: open)
    }

    /// Reads one escape sequence, from its backslash, and appends its UTF-8 bytes.
    private mutating func readEscape(into buffer: inout [UInt8], stringStart: Int) throws(JSONError) {
        let escape = position
        guard position + 1 < bytes.count else { throw error(.unterminatedString, at: stringStart) }
        let letter = bytes[position + 1]
        position += 2
        switch letter {
        case JSONByte.quote, JSONByte.backslash, JSONByte.slash: buffer.append(letter)
        case JSONByte.b: buffer.append(0x08)
        case JSONByte.f: buffer.append(0x0C)
        case JSONByte.n: buffer.append(JSONByte.lineFeed)
        case JSONByte.r: buffer.append(JSONByte.carriageReturn)
        case JSONByte.t: buffer.append(JSONByte.tab)
        case JSONByte.u: try readUnicodeEscape(into: &buffer, escape: escape)
        default: throw error(.invalidEscape, at: escape)
        }
    }

    /// Reads the hex digits of `\uXXXX` (and of the low surrogate that must follow a high
    /// one) and appends the scalar's UTF-8 bytes.
    private mutating func readUnicodeEscape(into buffer: inout [UInt8], escape: Int) throws(JSONError) {
        let unit = try readHexDigits(escape: escape)
        let scalar: Unicode.Scalar?
        switch unit {
        case 0xD800...0xDBFF:
            guard position + 1 < bytes.count,
                  bytes[position] == JSONByte.backslash, bytes[position + 1] == JSONByte.u
            else { throw error(.loneSurrogate, at: escape) }
            let lowEscape = position
            position += 2
            let low = try readHexDigits(escape: lowEscape)
            guard (0xDC00...0xDFFF).contains(low) else { throw error(.loneSurrogate, at: escape) }
            let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
            scalar = Unicode.Scalar(value)
        case 0xDC00...0xDFFF:
            throw error(.loneSurrogate, at: escape)
        default:
            scalar = Unicode.Scalar(unit)
        }
        // Every code point outside the surrogate range is a scalar.
        buffer.append(contentsOf: UTF8.encode(scalar!)!)
    }

    /// Reads the four hex digits after `\u`; `escape` is the position of the backslash.
    private mutating func readHexDigits(escape: Int) throws(JSONError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error(.invalidUnicodeEscape, at: escape) }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = JSONByte.hexValue(bytes[position + offset]) else {
                throw error(.invalidUnicodeEscape, at: escape)
            }
            unit = unit << 4 | digit
        }
        position += 4
        return unit
    }
}
