extension JSONReader {
    /// Reads a number: `.integer` when it has no fraction or exponent and fits in
    /// `Int64`, `.number` otherwise.
    mutating func readNumber() throws(JSONError) -> JSONValue {
        let start = position
        var isInteger = true
        if current == JSONByte.minus { position += 1 }
        guard let first = current, JSONByte.isDigit(first) else { throw error(.expectedDigit) }
        if first == JSONByte.zero {
            position += 1
            if let next = current, JSONByte.isDigit(next) { throw error(.leadingZero, at: position - 1) }
        } else {
            skipDigits()
        }
        if current == JSONByte.dot {
            isInteger = false
            position += 1
            try readDigits()
        }
        if current == JSONByte.e || current == JSONByte.upperE {
            isInteger = false
            position += 1
            if current == JSONByte.plus || current == JSONByte.minus { position += 1 }
            try readDigits()
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if isInteger, let integer = Self.int64(text) {
            return .integer(integer)
        }
        // The grammar above guarantees a text that `Double` accepts.
        let number = Double(String(decoding: text, as: UTF8.self))!
        guard number.isFinite else { throw error(.numberOutOfRange, at: start) }
        return .number(number)
    }

    private mutating func skipDigits() {
        while let byte = current, JSONByte.isDigit(byte) { position += 1 }
    }

    /// Skips one or more digits.
    private mutating func readDigits() throws(JSONError) {
        guard let byte = current, JSONByte.isDigit(byte) else { throw error(.expectedDigit) }
        skipDigits()
    }

    /// The value of an optionally negative run of digits, or nil if it overflows `Int64`.
    private static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        let isNegative = text.first == JSONByte.minus
        var value: Int64 = 0
        // Accumulate on the negative side so that Int64.min fits.
        for byte in text.dropFirst(isNegative ? 1 : 0) {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.subtractingReportingOverflow(Int64(byte - JSONByte.zero))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        if isNegative { return value }
        return value == .min ? nil : -value
    }
}
