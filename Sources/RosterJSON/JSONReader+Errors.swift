extension JSONReader {
    /// An error at the current position.
    func error(_ reason: JSONError.Reason) -> JSONError {
        error(reason, at: position)
    }

    /// An error at a byte offset, turned into a line and a column of Unicode scalars.
    func error(_ reason: JSONError.Reason, at offset: Int) -> JSONError {
        let end = min(offset, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == JSONByte.lineFeed {
            line += 1
            lineStart = index + 1
        }
        // Every byte that is not a UTF-8 continuation byte starts a scalar.
        let scalars = bytes[lineStart..<end].count(where: { $0 & 0xC0 != 0x80 })
        return JSONError(reason: reason, line: line, column: scalars + 1)
    }
}
