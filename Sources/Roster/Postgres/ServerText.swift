/// `Value`s as PostgreSQL's text format writes and reads them: how parameters are sent and
/// results read (libpq's text format, the one every server version speaks).
enum ServerText {
    /// The text a parameter sends for `value`, nil for SQL NULL.
    ///
    /// - Throws: ``ServerError`` (SQLSTATE `22021`) for text PostgreSQL cannot hold: not
    ///   valid UTF-8, or holding NUL (U+0000), which no PostgreSQL text value may contain.
    /// NaN is sent as NULL and -0.0 as 0, as SQLite stores them.
    static func parameter(_ value: Value) throws(ServerError) -> String? {
        switch value {
        case .null: return nil
        case let .integer(number): return String(number)
        case let .double(number):
            // SQLite stores NaN as NULL, and the contract orders NaN as null: so does this.
            if number.isNaN { return nil }
            if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
            // SQLite stores -0.0 as 0 (an integral real is stored as an integer): so does this.
            if number == 0 { return "0" }
            return "\(number)"  // the shortest text that reads back as the same Double
        case let .bool(flag): return flag ? "t" : "f"
        case let .string(text):
            guard !text.utf8.contains(0) else {
                throw ServerError(sqlState: "22021", message: "text holding NUL (U+0000) cannot be stored in PostgreSQL, whose text values may not contain it")
            }
            return text
        case .invalidUTF8:
            throw ServerError(sqlState: "22021", message: "text that is not valid UTF-8 cannot be stored in PostgreSQL, which checks every text value")
        }
    }

    /// The value of an attribute of `type` that PostgreSQL wrote as `text`; null for text
    /// that does not read as the type (a column another client retyped: the schema check
    /// reports it), never a trap.
    static func value(_ text: UnsafePointer<CChar>, length: Int, as type: AttributeType) -> Value {
        let bytes = UnsafeRawBufferPointer(start: text, count: length)
        switch type {
        case .string:
            return .string(String(decoding: bytes, as: UTF8.self))
        case .integer:
            return integer(bytes).map(Value.integer) ?? .null
        case .double:
            // NaN (which another client may store) reads as null, as SQLite stores it.
            guard let number = Double(String(decoding: bytes, as: UTF8.self)), !number.isNaN else { return .null }
            // -0.0 (which another client may store) reads as 0.0, as SQLite reads it back.
            return .double(number == 0 ? 0 : number)
        case .bool:
            guard length == 1 else { return .null }
            return bytes[0] == UInt8(ascii: "t") ? .bool(true) : bytes[0] == UInt8(ascii: "f") ? .bool(false) : .null
        }
    }

    /// A decimal integer, read without building a String (the commonest column, keys included).
    private static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var result: Int64 = 0
        while index < bytes.count {
            let digit = Int64(bytes[index]) - 48
            guard digit >= 0, digit <= 9 else { return nil }
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            result = next
            index += 1
        }
        return result
    }

    /// The SQL type of the column that stores an attribute of `type`: text compares by
    /// bytes (`COLLATE "C"`), as the contract orders strings.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string: "text COLLATE \"C\""
        case .integer: "bigint"
        case .double: "double precision"
        case .bool: "boolean"
        }
    }

    /// A string as an SQL literal (`'it''s'`), for the few statements that cannot take
    /// parameters (DDL, function bodies). Only Roster's own identifiers and checked names
    /// go through it.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
