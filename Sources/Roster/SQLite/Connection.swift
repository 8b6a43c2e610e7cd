import CSQLite

/// One SQLite connection: the only place that opens, closes and executes SQL.
///
/// A connection is not `Sendable`: it belongs to one isolation domain at a time (a thread,
/// an actor, or the main actor). The ``Store`` owns its connections and never shares them.
final class Connection {
    /// The underlying handle; valid until ``close()`` or `deinit`.
    let handle: OpaquePointer
    private var isClosed = false
    /// The path of the database file.
    let path: String

    /// Opens (or creates) the database file at `path`.
    ///
    /// - Parameter readOnly: open for reading only.
    /// - Throws: ``DatabaseError`` when SQLite cannot open the file.
    init(path: String, readOnly: Bool = false) throws(DatabaseError) {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = DatabaseError(connection: handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw DatabaseError(code: error.code, extendedCode: error.extendedCode,
                                message: "cannot open database '\(path)': \(error.message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        close()
    }

    /// Closes the connection; statements still alive keep it until they are released.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// Sets how long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more SQL statements that take no arguments, stepping each to its end.
    ///
    /// - Throws: ``DatabaseError`` for the first statement that fails; the statements before
    ///   it have run.
    func execute(_ sql: String) throws(DatabaseError) {
        var utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeMutableBufferPointer { (buffer) throws(DatabaseError) in
            guard var cursor = UnsafePointer(buffer.baseAddress) else { return }
            let end = cursor + buffer.count - 1
            while cursor < end {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, cursor, Int32(end - cursor), &statementHandle, &tail)
                let text = String(decoding: UnsafeRawBufferPointer(start: cursor, count: (tail ?? end) - cursor), as: UTF8.self)
                guard code == SQLITE_OK else {
                    throw DatabaseError(connection: handle, code: code, sql: text.trimmedSQL)
                }
                guard let statementHandle else { break }  // only whitespace or comments were left
                defer { sqlite3_finalize(statementHandle) }
                var step = sqlite3_step(statementHandle)
                while step == SQLITE_ROW { step = sqlite3_step(statementHandle) }
                guard step == SQLITE_DONE else {
                    throw DatabaseError(connection: handle, code: step, sql: text.trimmedSQL)
                }
                cursor = tail ?? end
            }
        }
    }

    /// Compiles one SQL statement.
    ///
    /// - Throws: ``DatabaseError`` when the SQL does not compile.
    func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var statementHandle: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statementHandle, nil)
        guard code == SQLITE_OK, let statementHandle else {
            throw DatabaseError(connection: handle, code: code, sql: sql)
        }
        return Statement(handle: statementHandle, connection: self, sql: sql)
    }

    /// Whether the connection is outside any transaction (SQLite's autocommit mode).
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// `PRAGMA data_version`: changes whenever another connection commits to the file.
    func dataVersion() throws(DatabaseError) -> Int64 {
        let statement = try prepare("PRAGMA data_version")
        guard try statement.step(), case let .integer(version) = statement.column(0) else { return 0 }
        return version
    }
}

extension String {
    /// The SQL text without surrounding white space, for error messages.
    var trimmedSQL: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace || last == ";" { text.removeLast() }
        return String(text)
    }
}
