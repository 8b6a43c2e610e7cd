import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A compiled SQL statement with bound parameters, stepped row by row.
///
/// Values are always bound, never pasted into the SQL. A statement is not `Sendable` and
/// must not outlive its ``Connection``.
final class Statement {
    let handle: OpaquePointer
    /// Keeps the connection open while the statement exists.
    let connection: Connection
    /// The statement's SQL, for error messages.
    let sql: String

    init(handle: OpaquePointer, connection: Connection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of `?` parameters the statement takes.
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Resets the statement and binds `values` to its parameters, in order.
    ///
    /// - Throws: ``DatabaseError`` when the count does not match or SQLite refuses a value.
    func bind(_ values: [Value]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard values.count == parameterCount else {
            throw DatabaseError(code: .range, message: "statement takes \(parameterCount) arguments, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    func bind(_ value: Value, at index: Int32) throws(DatabaseError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case let .integer(number): code = sqlite3_bind_int64(handle, index, number)
        case let .double(number): code = sqlite3_bind_double(handle, index, number)
        case let .bool(flag): code = sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case var .string(text):
            // The string's own UTF-8, with its length (no terminated copy). SQLite binds a
            // null pointer as NULL: empty text needs a pointer.
            code = text.withUTF8 { buffer in
                buffer.baseAddress.map { sqlite3_bind_text64(handle, index, $0, UInt64(buffer.count), csqlite_transient, UInt8(SQLITE_UTF8)) }
                    ?? sqlite3_bind_text64(handle, index, "", 0, csqlite_transient, UInt8(SQLITE_UTF8))
            }
        case let .invalidUTF8(bytes):
            // Exactly these bytes, as text: SQLite copies them and does not check them.
            code = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
                // SQLite binds a null pointer as NULL: empty text needs a pointer.
                return start.map { sqlite3_bind_text64(handle, index, $0, UInt64(buffer.count), csqlite_transient, UInt8(SQLITE_UTF8)) }
                    ?? sqlite3_bind_text64(handle, index, "", 0, csqlite_transient, UInt8(SQLITE_UTF8))
            }
        }
        guard code == SQLITE_OK else { throw DatabaseError(connection: connection.handle, code: code, sql: sql) }
    }

    /// Binds `bytes` as a BLOB to the 1-based parameter `index`, without copying them: they
    /// must stay valid until the statement is reset.
    func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        let code = sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), nil)
        guard code == SQLITE_OK else { throw DatabaseError(connection: connection.handle, code: code, sql: sql) }
    }

    /// Calls `body` with the bytes of column `index` of the current row, as SQLite holds
    /// them (valid only during the call); empty for NULL.
    func withBytes<T, E: Error>(ofColumn index: Int, _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        let column = Int32(index)
        let start = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    }

    /// Calls `body` with column `index` of the current row as SQLite holds it (valid only
    /// during the call): one look-up of the column for its storage class and its bytes or
    /// number, where each `sqlite3_column_` call looks it up again. Its reads
    /// (`sqlite3_value_type`, `_text`, `_bytes`, `_int64`) are safe: the connection is used
    /// by one thread at a time (``Connection`` opens it `SQLITE_OPEN_NOMUTEX`).
    func withValue<T>(ofColumn index: Int, _ body: (OpaquePointer) -> T) -> T? {
        sqlite3_column_value(handle, Int32(index)).map(body)
    }

    /// SQLite's storage class of column `index` of the current row (`SQLITE_TEXT`, …).
    func storageClass(_ index: Int) -> Int32 {
        sqlite3_column_type(handle, Int32(index))
    }

    /// Column `index` as SQLite converts it to a 64-bit integer: for a column the statement
    /// computes as one (a comparison, `IS NOT NULL`, a rowid).
    func integer(_ index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` as SQLite converts it to a double.
    func real(_ index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    ///
    /// - Throws: ``DatabaseError`` when the statement fails; it is reset before throwing.
    @discardableResult
    func step() throws(DatabaseError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError(connection: connection.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it can run again with the same or new bindings.
    func reset() {
        sqlite3_reset(handle)
    }

    /// How many columns the statement's rows have (0 for a statement that reads none).
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index`, as SQLite gives it (for `SELECT *`, the table's).
    func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// The value of column `index` of the current row, typed as SQLite stores it
    /// (`.integer`, `.double`, `.string`, `.invalidUTF8` or `.null`; never `.bool` — see
    /// ``column(_:as:)``). Text is `.string` when it is valid UTF-8 and `.invalidUTF8`
    /// otherwise; a BLOB's bytes are read the same way.
    func column(_ index: Int) -> Value {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return text(column)
        case SQLITE_BLOB: return text(column)
        default: return .null
        }
    }

    /// The value of column `index`, converted to the attribute type that the column stores.
    func column(_ index: Int, as type: AttributeType) -> Value {
        let column = Int32(index)
        let storage = sqlite3_column_type(handle, column)
        if storage == SQLITE_NULL { return .null }
        switch type {
        case .bool where storage == SQLITE_INTEGER:
            // The column's CHECK keeps it to 0 and 1, but another writer may turn checks off
            // (`PRAGMA ignore_check_constraints`): any other integer stays what it is, so that
            // it keeps SQLite's order and its identity (2 and 5 are not the same `true`).
            let number = sqlite3_column_int64(handle, column)
            return number == 0 || number == 1 ? .bool(number == 1) : .integer(number)
        case .integer where storage == SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case .double where storage == SQLITE_FLOAT || storage == SQLITE_INTEGER:
            return .double(sqlite3_column_double(handle, column))
        case .string where storage == SQLITE_TEXT: return text(column)
        default: return self.column(index)
        }
    }

    /// Column `index` as ``column(_:as:)`` reads it, or `previous` itself when the column
    /// holds exactly that value, without building a new one; and whether it did.
    func column(_ index: Int, as type: AttributeType, reusing previous: Value) -> (value: Value, isSame: Bool) {
        let column = Int32(index)
        switch (sqlite3_column_type(handle, column), type, previous) {
        case (SQLITE_TEXT, .string, let .string(text)):
            // Compared byte for byte without building a value.
            let utf8 = text.utf8
            guard let bytes = sqlite3_column_text(handle, column), Int(sqlite3_column_bytes(handle, column)) == utf8.count else { break }
            let count = utf8.count
            let isSame = count == 0 || utf8.withContiguousStorageIfAvailable { old in old.baseAddress.map { memcmp($0, bytes, count) == 0 } ?? false } ?? false
            if isSame { return (previous, true) }
        case (SQLITE_TEXT, .string, let .invalidUTF8(old)):
            guard let bytes = sqlite3_column_text(handle, column), Int(sqlite3_column_bytes(handle, column)) == old.count else { break }
            let count = old.count
            let isSame = count == 0 || old.withUnsafeBufferPointer { old in old.baseAddress.map { memcmp($0, bytes, count) == 0 } ?? false }
            if isSame { return (previous, true) }
        case (SQLITE_INTEGER, .integer, let .integer(number)):
            let value = sqlite3_column_int64(handle, column)
            return (value == number ? previous : .integer(value), value == number)
        default:
            break
        }
        let value = self.column(index, as: type)
        return (value, value == previous)
    }

    /// Column `index` as ``column(_:as:)`` reads it, with its `hashValue`, hashed straight
    /// from the text's bytes — SQLite's own, which are those of the value, valid UTF-8 or
    /// not (as ``Value`` hashes text: by its bytes).
    func columnWithHash(_ index: Int, as type: AttributeType) -> (value: Value, hash: Int) {
        let column = Int32(index)
        if type == .string, sqlite3_column_type(handle, column) == SQLITE_TEXT, let start = sqlite3_column_text(handle, column) {
            let bytes = UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column)))
            var hasher = Hasher()
            Value.hashString(utf8: UnsafeRawBufferPointer(bytes), into: &hasher)
            return (Value.text(utf8: bytes), hasher.finalize())
        }
        let value = self.column(index, as: type)
        return (value, value.hashValue)
    }

    /// The text of a column as SQLite holds it: `.string` when its bytes are valid UTF-8,
    /// else `.invalidUTF8` with those bytes — never repaired.
    private func text(_ column: Int32) -> Value {
        guard let bytes = sqlite3_column_text(handle, column) else { return .string("") }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Value.text(utf8: UnsafeBufferPointer(start: bytes, count: count))
    }
}

