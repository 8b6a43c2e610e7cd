/// What raw SQL the PostgreSQL backend will not run: statements that end, begin or split
/// the store's transaction (`BEGIN`, `COMMIT`, `SAVEPOINT`…), which the store owns, as the
/// SQLite backend refuses them.
///
/// It finds where each statement starts by reading the text as PostgreSQL's lexer would
/// for that purpose: `--` and `/* */` comments (nested), quoted strings and identifiers,
/// and dollar-quoted bodies are skipped, and `;` outside them ends a statement.
enum ServerSQLGuard {
    /// The commands that control transactions.
    private static let refused: Set<String> = [
        "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "PREPARE",
        // They drop the connection's prepared statements, which the store keeps.
        "DEALLOCATE", "DISCARD",
    ]

    /// Why `sql` is refused, or nil when every statement in it may run.
    static func refusal(of sql: String) -> String? {
        for (number, word) in firstWords(of: sql).enumerated() where refused.contains(word) {
            return "statement \(number + 1) of the SQL is \(word): raw SQL runs in the store's transaction, so it may not begin, end or split one (use the store's transactions)"
        }
        return nil
    }

    /// The first word of each statement, upper-cased; empty statements give none.
    static func firstWords(of sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var words: [String] = []
        var index = 0
        var current: [UInt8] = []
        var atStart = true
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || (byte >= 48 && byte <= 57)
        }
        func finishWord() {
            if atStart && !current.isEmpty {
                words.append(String(decoding: current, as: UTF8.self).uppercased())
                atStart = false
            }
            current = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == UInt8(ascii: "-") && next == UInt8(ascii: "-") {
                finishWord()
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            }
            if byte == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                finishWord()
                var depth = 0
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "/") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*") {
                        depth += 1
                        index += 2
                    } else if bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/") {
                        depth -= 1
                        index += 2
                        if depth == 0 { break }
                    } else {
                        index += 1
                    }
                }
                continue
            }
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // `E'…'`: backslash escapes a quote (the `E` is the word just read).
                let escapes = byte == UInt8(ascii: "'") && (current == [UInt8(ascii: "E")] || current == [UInt8(ascii: "e")])
                finishWord()
                atStart = false
                index += 1
                while index < bytes.count {
                    if escapes && bytes[index] == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if bytes[index] == byte {
                        if index + 1 < bytes.count && bytes[index + 1] == byte { index += 2; continue }
                        break
                    }
                    index += 1
                }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "$"), let tagEnd = dollarTagEnd(bytes, from: index) {
                finishWord()
                atStart = false
                let tag = Array(bytes[index...tagEnd])
                index = tagEnd + 1
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "$") && index + tag.count <= bytes.count && Array(bytes[index..<index + tag.count]) == tag {
                        index += tag.count
                        break
                    }
                    index += 1
                }
                continue
            }
            if byte == UInt8(ascii: ";") {
                finishWord()
                atStart = true
                index += 1
                continue
            }
            if isWordByte(byte) {
                current.append(byte)
            } else {
                finishWord()
                if byte > 32 { atStart = false }
            }
            index += 1
        }
        finishWord()
        return words
    }

    /// The index of the `$` that closes a dollar-quote tag opened at `start` (`$$` or
    /// `$tag$`), or nil when `start` is a parameter (`$1`) or a lone `$`.
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") { return index }
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || byte >= 128
            let isDigit = byte >= 48 && byte <= 57
            guard isLetter || (isDigit && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }
}
