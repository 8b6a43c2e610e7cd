/// Reads just enough of raw SQL to refuse what the store must control itself.
enum RawSQL {
    /// The first transaction-control keyword that starts one of the statements in `sql`
    /// (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`), or nil.
    ///
    /// It skips comments and string literals, and splits statements at `;`. It can be
    /// fooled only into refusing, never into accepting: a statement it misreads still runs
    /// inside the store's own transaction, which SQLite then refuses to nest.
    static func transactionKeyword(in sql: String) -> String? {
        let keywords: Set<String> = ["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]
        let bytes = Array(sql.utf8)
        var index = 0
        var atStatementStart = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "`") {
                index += 1
                while index < bytes.count, bytes[index] != byte { index += 1 }
                index += 1
                atStatementStart = false
            } else if byte == UInt8(ascii: ";") {
                atStatementStart = true
                index += 1
            } else if isWordByte(byte) {
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                if atStatementStart {
                    let word = String(decoding: bytes[start..<index], as: UTF8.self).uppercased()
                    if keywords.contains(word) { return word }
                }
                atStatementStart = false
            } else {
                if !(byte == 32 || (byte >= 9 && byte <= 13)) { atStatementStart = false }
                index += 1
            }
        }
        return nil
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 95
    }
}
