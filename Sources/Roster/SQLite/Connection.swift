import CRosterText
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
    /// What the authorizer refuses while raw SQL compiles; nil until raw SQL first runs.
    private var rawSQLAuthorizer: RawSQLAuthorizer?
    /// `PRAGMA schema_version`, compiled once: the store reads it at every delivery. A
    /// bare handle, not a ``Statement``: a statement keeps its connection alive, so a
    /// connection that kept one would never be released, nor its file closed.
    private var schemaVersionHandle: OpaquePointer?

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
        // A predicate's [c] and [d] fold text in SQL with the C function Swift folds with
        // (TextFolding, in Query/).
        let registered = roster_fold_register(handle)
        guard registered == SQLITE_OK else {
            let error = DatabaseError(connection: handle, code: registered, sql: nil)
            sqlite3_close_v2(handle)
            throw DatabaseError(code: error.code, extendedCode: error.extendedCode,
                                message: "cannot register roster_fold on '\(path)': \(error.message)")
        }
        // A predicate's string operators match whole texts with the matcher Swift uses.
        let globRegistered = GlobFunction.register(on: handle)
        guard globRegistered == SQLITE_OK else {
            let error = DatabaseError(connection: handle, code: globRegistered, sql: nil)
            sqlite3_close_v2(handle)
            throw DatabaseError(code: error.code, extendedCode: error.extendedCode,
                                message: "cannot register \(GlobFunction.name) on '\(path)': \(error.message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        close()
    }

    /// Whether ``close()`` has not been called yet.
    var isOpen: Bool { !isClosed }

    /// Closes the connection; statements still alive keep it until they are released.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_finalize(schemaVersionHandle)
        schemaVersionHandle = nil
        sqlite3_close_v2(handle)
    }

    /// Whether the database file this connection has open was deleted, renamed or
    /// replaced since it was opened (SQLite's `SQLITE_FCNTL_HAS_MOVED`): the connection then
    /// reads and writes a file no other process sees.
    func fileHasMoved() -> Bool {
        var moved: Int32 = 0
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return code == SQLITE_OK && moved != 0
    }

    /// Whether the connection was opened read-only, or the file allows no writes.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

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
                // The length counts the terminating NUL: without it SQLite copies the rest
                // of the text for every statement, the square of a long script's length
                // (a thousand entities' change logs: megabytes copied thousands of times).
                let code = sqlite3_prepare_v2(handle, cursor, Int32(end - cursor + 1), &statementHandle, &tail)
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

    /// The rowid of the last row this connection inserted.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// `PRAGMA data_version`: changes whenever another connection commits to the file.
    func dataVersion() throws(DatabaseError) -> Int64 {
        let statement = try prepare("PRAGMA data_version")
        guard try statement.step(), case let .integer(version) = statement.column(0) else { return 0 }
        return version
    }

    /// `PRAGMA schema_version`: changes whenever any connection changes the schema.
    func schemaVersion() throws(DatabaseError) -> Int64 {
        if schemaVersionHandle == nil {
            let code = sqlite3_prepare_v2(handle, "PRAGMA schema_version", -1, &schemaVersionHandle, nil)
            guard code == SQLITE_OK else {
                throw DatabaseError(connection: handle, code: code, sql: "PRAGMA schema_version")
            }
        }
        guard let statement = schemaVersionHandle else { return 0 }
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_ROW else {
            if code == SQLITE_DONE { return 0 }
            throw DatabaseError(connection: handle, code: code, sql: "PRAGMA schema_version")
        }
        return sqlite3_column_int64(statement, 0)
    }

    /// A value worked out from the schema, kept until `PRAGMA schema_version` changes: the
    /// same value for the same schema, whatever reads it (a new store's first watch asks
    /// for the change log's columns three times). One value per type.
    ///
    /// The version is read before `compute` runs, never after: a value read across a
    /// schema change is kept under the version before it, which the next call finds gone.
    /// Nothing is kept from inside a write transaction: its schema may roll back, and
    /// another connection's next change could then take the same version number.
    func schemaDerived<T>(_ compute: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        guard sqlite3_txn_state(handle, "main") != SQLITE_TXN_WRITE else { return try compute() }
        let version = try schemaVersion()
        let type = ObjectIdentifier(T.self)
        if let kept = schemaDerivedValues.values[type], kept.version == version, let value = kept.value as? T { return value }
        let value = try compute()
        schemaDerivedValues.values[type] = (version, value)
        return value
    }

    /// What ``schemaDerived(_:)`` keeps. Connections to the same file may share it (a
    /// store's reader and writer do): the same schema version of one file is the same schema.
    var schemaDerivedValues = SchemaDerivedValues()

    /// The statements of `sql`, to compile one at a time, refusing transaction control
    /// and ATTACH/DETACH.
    ///
    /// Raw SQL comes from users and runs inside a transaction that its caller owns, so it
    /// must not begin, end or nest one, nor change which files the connection writes.
    /// SQLite itself splits the text into statements and says what each one is, through
    /// the connection's authorizer, so no quoting or comment can hide a statement.
    func rawStatements(in sql: String) -> RawStatements {
        RawStatements(connection: self, sql: sql)
    }

    /// Compiles the first statement of `text` (a NUL-terminated buffer) from byte `offset`,
    /// refusing what ``RawStatements`` refuses.
    ///
    /// The authorizer is installed the first time (installing one makes SQLite recompile
    /// the connection's prepared statements once, on their next step) and stays, refusing
    /// only while this compiles, so the store's own `BEGIN`/`SAVEPOINT` still run.
    ///
    /// - Returns: the statement (nil when only white space, comments or `;` were left) and
    ///   the offset where the next one starts.
    /// - Throws: ``RawStatementError/refused(_:)`` (with `number` 0; the caller counts),
    ///   or ``RawStatementError/database(_:)`` when the statement does not compile.
    fileprivate func prepareRaw(_ text: [CChar], from offset: Int) throws(RawStatementError) -> (statement: Statement?, next: Int) {
        let authorizer = installRawSQLAuthorizer()
        let end = text.count - 1
        var statementHandle: OpaquePointer?
        var next = end
        authorizer.refusal = nil
        authorizer.isRefusing = true
        let code = text.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress! + offset
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(handle, start, Int32(end - offset), &statementHandle, &tail)
            if let tail, tail >= start { next = min(end, tail - buffer.baseAddress!) }
            return code
        }
        authorizer.isRefusing = false
        let sql = text.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress! + offset, count: max(0, next - offset)), as: UTF8.self)
        }
        guard code == SQLITE_OK else {
            if code & 0xFF == SQLITE_AUTH, let refusal = authorizer.refusal {
                throw .refused(RefusedStatement(kind: refusal.kind, command: refusal.command, number: 0))
            }
            throw .database(DatabaseError(connection: handle, code: code, sql: sql.trimmedSQL))
        }
        return (statementHandle.map { Statement(handle: $0, connection: self, sql: sql.trimmedSQL) }, next)
    }

    /// The connection's raw SQL authorizer, installed on first use.
    ///
    /// Installed once and kept, rather than around each compile: installing an authorizer
    /// makes SQLite recompile every prepared statement of the connection, the store's
    /// cached ones included.
    private func installRawSQLAuthorizer() -> RawSQLAuthorizer {
        if let rawSQLAuthorizer { return rawSQLAuthorizer }
        let authorizer = RawSQLAuthorizer()
        rawSQLAuthorizer = authorizer
        // The connection keeps the authorizer alive for as long as SQLite can call it:
        // statements keep the connection, and only a statement's step can compile again.
        sqlite3_set_authorizer(handle, { context, action, detail, name, _, _ in
            guard let context else { return SQLITE_OK }
            let authorizer = Unmanaged<RawSQLAuthorizer>.fromOpaque(context).takeUnretainedValue()
            guard authorizer.isRefusing else { return SQLITE_OK }
            let detail = detail.map { String(cString: $0) } ?? ""
            let name = name.map { String(cString: $0) } ?? ""
            let refusal: (kind: RefusedStatement.Kind, command: String)
            switch action {
            case SQLITE_TRANSACTION:
                refusal = (.transactionControl, detail)  // BEGIN, COMMIT (also for END), ROLLBACK
            case SQLITE_SAVEPOINT:
                let verb = ["BEGIN": "SAVEPOINT", "ROLLBACK": "ROLLBACK TO"][detail] ?? detail
                refusal = (.transactionControl, "\(verb) \(name)")
            case SQLITE_ATTACH:
                refusal = (.attachment, "ATTACH")
            case SQLITE_DETACH:
                refusal = (.attachment, "DETACH")
            default:
                return SQLITE_OK
            }
            if authorizer.refusal == nil { authorizer.refusal = refusal }
            return SQLITE_DENY
        }, Unmanaged.passUnretained(authorizer).toOpaque())
        return authorizer
    }
}

/// The statements of one string of raw SQL, compiled one at a time where SQLite's own
/// parser ends each, so a statement can use a table that the one before it created.
///
/// Made by ``Connection/rawStatements(in:)``; ``next()`` refuses transaction control
/// and ATTACH/DETACH by what the statement is, whatever quoting or comments surround it.
///
/// ```swift
/// let statements = connection.rawStatements(in: "UPDATE T SET x = 1; COMMIT")
/// while let statement = try statements.next() { while try statement.step() {} }
/// // throws .refused(RefusedStatement(kind: .transactionControl, command: "COMMIT", number: 2))
/// // after the UPDATE ran: the caller's transaction must undo it.
/// ```
final class RawStatements {
    /// The connection that compiles the statements, and that they run on.
    private let connection: Connection
    /// The SQL as UTF-8, NUL-terminated.
    private let text: [CChar]
    /// Where the next statement starts, in bytes.
    private var offset = 0
    /// How many statements ``next()`` has returned; empty ones (`;;`) do not count.
    private(set) var count = 0

    /// Starts before the first statement of `sql`; nothing is compiled until ``next()``.
    fileprivate init(connection: Connection, sql: String) {
        self.connection = connection
        text = Array(sql.utf8CString)
    }

    /// Compiles the next statement, or returns nil when only white space, comments or
    /// `;` are left.
    ///
    /// Call it again only once the statement it returned has run, as `sqlite3_exec`
    /// does, so that each statement compiles against what the ones before it did. SQLite
    /// reads the text up to its first NUL character; nothing after one runs.
    ///
    /// - Throws: ``RawStatementError/refused(_:)`` for `BEGIN`, `COMMIT`, `END`,
    ///   `ROLLBACK`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`, `ATTACH` or `DETACH`, with
    ///   its statement's number; ``RawStatementError/database(_:)`` for SQL that does
    ///   not compile. Either way the statements before it have run.
    func next() throws(RawStatementError) -> Statement? {
        while offset < text.count - 1 {
            let prepared: (statement: Statement?, next: Int)
            do throws(RawStatementError) {
                prepared = try connection.prepareRaw(text, from: offset)
            } catch let .refused(refusal) {
                throw .refused(RefusedStatement(kind: refusal.kind, command: refusal.command, number: count + 1))
            }
            guard prepared.next > offset else { break }  // a NUL character ends the text
            offset = prepared.next
            if let statement = prepared.statement {
                count += 1
                return statement
            }
        }
        offset = text.count - 1
        return nil
    }
}

/// What a connection's authorizer refuses while raw SQL compiles, and what it refused.
///
/// SQLite calls the authorizer through a C function pointer that cannot capture state,
/// so the connection hands SQLite a pointer to this object instead.
private final class RawSQLAuthorizer {
    /// Refuse transaction control and ATTACH/DETACH; set only while raw SQL compiles.
    var isRefusing = false
    /// The first statement refused since ``isRefusing`` was last set.
    var refusal: (kind: RefusedStatement.Kind, command: String)?
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

/// The values ``Connection/schemaDerived(_:)`` keeps, by type, each with the schema
/// version it was worked out from.
final class SchemaDerivedValues {
    fileprivate var values: [ObjectIdentifier: (version: Int64, value: Any)] = [:]
}
