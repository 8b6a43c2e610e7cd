#if PostgreSQL
import CLibPQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a PostgreSQL server through libpq: the only place that opens, closes
/// and sends SQL to a server.
///
/// Like ``Connection`` (SQLite's), it is not `Sendable`: it belongs to one isolation domain
/// at a time. Every call blocks until the server answers; the store's public API is
/// synchronous, and libpq's blocking calls are what it needs.
final class ServerConnection {
    /// libpq's connection; nil once closed.
    private var handle: OpaquePointer?
    /// The URL as given, password included: only for opening more connections.
    let url: String

    /// Connects to the server at `url` (a `postgresql://` URL or a `key=value` string, read
    /// as libpq reads it: `PGHOST`, `PGPASSWORD` and the other environment variables fill
    /// what it leaves out).
    ///
    /// - Throws: ``ServerError`` naming the server and why it refused, or why nothing
    ///   answered; when the database's encoding is not UTF-8 (text would not round-trip).
    init(url: String) throws(ServerError) {
        self.url = url
        guard let connection = PQconnectdb(url) else {
            throw ServerError(sqlState: "08000", message: "libpq could not allocate a connection to \(PostgresSchema.redacted(url))")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw ServerError(sqlState: "08001", message: "cannot connect to PostgreSQL at \(PostgresSchema.redacted(url)): \(reason)")
        }
        handle = connection
        // NOTICEs (`relation already exists, skipping`) are not errors; libpq would print them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQsetClientEncoding(connection, "UTF8") == 0 else {
            close()
            throw ServerError(sqlState: "22021", message: "the server at \(PostgresSchema.redacted(url)) refused client_encoding UTF8")
        }
        // Doubles as text that reads back as the same Double, whatever the role or database
        // sets (a lower setting rounds, and distinct values would read back equal).
        PQclear(PQexec(connection, "SET extra_float_digits = 3"))
        let encoding = PQparameterStatus(connection, "server_encoding").map { String(cString: $0) } ?? "?"
        guard encoding == "UTF8" else {
            close()
            throw ServerError(sqlState: "22021", message: "the database at \(PostgresSchema.redacted(url)) is encoded \(encoding); Roster needs UTF8, so that text is stored as it is given")
        }
    }

    deinit { close() }

    /// Closes the connection; it is not used again.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection is open and healthy, as libpq last saw it.
    var isHealthy: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Whether a transaction failed and awaits its rollback (no statement runs in it).
    private var isInTransactionFailed: Bool { handle.map { PQtransactionStatus($0) == PQTRANS_INERROR } ?? false }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The `lock_timeout` last set by ``setLockTimeout(milliseconds:)``, in milliseconds;
    /// 0 (the server's default: wait forever) until then.
    private(set) var lockTimeout: Int32 = 0

    /// How long a commit waits its turn among committing transactions when ``lockTimeout``
    /// is shorter: 5 s.
    ///
    /// A short `lock_timeout` means "do not wait for another transaction's locks"
    /// (``Store/busyTimeout``, SQLite's SQLITE_BUSY). Commits of a Roster schema queue for
    /// its commit lock, and every commit that notifies queues for the server's lock on its
    /// notification queue; both are held only while another transaction commits, for a
    /// moment, so a commit always waits there, up to this bound, whatever the timeout.
    static let commitQueueWait: Int32 = 5_000

    /// Sets how long each statement waits for a lock before it fails with SQLSTATE 55P03.
    /// 0 means "do not wait" (as to SQLite); the shortest wait the server knows, 1 ms,
    /// stands for it (0 means "wait forever" to PostgreSQL).
    func setLockTimeout(milliseconds: Int32) throws(ServerError) {
        let timeout = max(milliseconds, 1)
        try execute("SET lock_timeout = \(timeout)")
        lockTimeout = timeout
    }

    /// Commits the open transaction, waiting its turn among committing transactions up to
    /// ``commitQueueWait`` whatever ``lockTimeout`` says, and returns the server's command
    /// status: `COMMIT`, or `ROLLBACK` when a statement in the transaction had failed.
    func commit() throws(ServerError) -> String {
        if lockTimeout < Self.commitQueueWait, !isInTransactionFailed {
            try execute("SET LOCAL lock_timeout = \(Self.commitQueueWait)")
        }
        return try query("COMMIT").commandStatus
    }

    /// The socket libpq talks over, to wait on for notifications; -1 when closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Runs one or more statements without parameters (DDL, transaction control, raw SQL),
    /// discarding what they return.
    func execute(_ sql: String) throws(ServerError) {
        let handle = try open()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs statements without parameters in one round trip, and returns the rows of the
    /// last (`BEGIN …; SELECT …`).
    func executeReturningLast(_ sql: String) throws(ServerError) -> ServerRows {
        let handle = try open()
        let result = PQexec(handle, sql)
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw ServerError(sqlState: "08006", message: "the server sent no result", sql: sql) }
        return ServerRows(result)
    }

    /// Runs one statement with parameters (`$1`, `$2`…, sent as text; the server infers
    /// their types from where they stand) and returns its rows.
    ///
    /// The statement is prepared on the server the first time its text is run, and
    /// executed by name after that, so that the server plans it once per connection (a
    /// delivery's few statements cost a round trip each, not a plan each). At most
    /// ``maximumPreparedStatements`` are kept; then they are all dropped and prepared again
    /// as they come.
    ///
    /// - Parameter prepared: false for a statement run once (a user's raw SQL), which is
    ///   sent with its parameters and planned for that run only.
    func query(_ sql: String, _ parameters: [Value] = [], prepared isPrepared: Bool = true) throws(ServerError) -> ServerRows {
        let handle = try open()
        let texts = try parameters.map { (value) throws(ServerError) in try ServerText.parameter(value) }
        func run() throws(ServerError) -> OpaquePointer? {
            guard isPrepared else {
                return Self.withCStrings(texts) { pointers in
                    PQexecParams(handle, sql, Int32(pointers.count), nil, pointers.baseAddress, nil, nil, 0)
                }
            }
            let name = try preparedName(of: sql, parameterCount: texts.count, on: handle)
            return Self.withCStrings(texts) { pointers in
                PQexecPrepared(handle, name, Int32(pointers.count), pointers.baseAddress, nil, nil, 0)
            }
        }
        var result = try run()
        do {
            try check(result, sql: sql)
        } catch where isPrepared && (error.sqlState == "26000" || error.sqlState == "0A000") && !isInTransactionFailed {
            // The statement is gone (another `DEALLOCATE`, a pooler's `DISCARD ALL`) or its
            // plan no longer fits the table: prepare it again, once.
            PQclear(result)
            forgetPrepared(sql, stillOnServer: error.sqlState == "0A000")
            result = try run()
            do { try check(result, sql: sql) } catch {
                PQclear(result)
                throw error
            }
        } catch {
            PQclear(result)
            // In a failed transaction, which runs nothing until its rollback: prepared again
            // when next run, rather than failing the same way for good (a table another
            // client recreated with another column type or collation).
            if isPrepared && (error.sqlState == "26000" || error.sqlState == "0A000") {
                forgetPrepared(sql, stillOnServer: error.sqlState == "0A000")
            }
            throw error
        }
        guard let result else { throw ServerError(sqlState: "08006", message: "the server sent no result", sql: sql) }
        return ServerRows(result)
    }

    /// Drops `sql`'s prepared name, so that its next run prepares it again under a new
    /// one. A plan that no longer fits its table (`stillOnServer`) says that the table
    /// changed under every statement on it: they are all dropped before the next one runs.
    private func forgetPrepared(_ sql: String, stillOnServer: Bool) {
        prepared[sql] = nil
        if stillOnServer { mustDropPrepared = true }
    }

    /// The most statements a connection keeps prepared.
    static let maximumPreparedStatements = 256

    /// Prepared statements by their SQL text: the name each was prepared under.
    private var prepared: [String: String] = [:]
    /// Set when a plan no longer fit its table: every statement is prepared again.
    private var mustDropPrepared = false
    /// Prepares every statement again before the next one runs: after the schema changed
    /// under them (a table another client recreated with another collation or column
    /// type), a plan cached before fails (`0A000`), and fails the transaction it runs in.
    func forgetPreparedStatements() {
        guard !prepared.isEmpty else { return }
        prepared = [:]
        mustDropPrepared = true
    }

    /// The number in the next prepared statement's name: never one still on the server,
    /// which a count of `prepared` would give after a statement was prepared again.
    private var nextPreparedNumber = 0

    /// The name `sql` is prepared under on this connection, preparing it first if needed.
    private func preparedName(of sql: String, parameterCount: Int, on handle: OpaquePointer) throws(ServerError) -> String {
        if mustDropPrepared && !isInTransactionFailed {
            try execute("DEALLOCATE ALL")
            prepared = [:]
            mustDropPrepared = false
            nextPreparedNumber = 0
        }
        if let name = prepared[sql] { return name }
        if prepared.count >= Self.maximumPreparedStatements {
            try execute("DEALLOCATE ALL")
            prepared = [:]
            nextPreparedNumber = 0
        }
        let name = "roster_\(nextPreparedNumber)"
        nextPreparedNumber += 1
        let result = PQprepare(handle, name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// The number of rows a statement changed, for `UPDATE` and `DELETE`.
    func run(_ sql: String, _ parameters: [Value]) throws(ServerError) -> Int {
        let rows = try query(sql, parameters)
        return rows.affectedCount
    }

    /// Reads what the server sent without waiting, and returns how many notifications
    /// (`NOTIFY`) arrived since the last call.
    ///
    /// - Throws: ``ServerError`` when the connection broke.
    func drainNotifications() throws(ServerError) -> Int {
        let handle = try open()
        guard PQconsumeInput(handle) == 1 else {
            throw ServerError(sqlState: "08006", message: "lost the connection to the server: \(Self.trimmed(PQerrorMessage(handle)))")
        }
        var count = 0
        while let notification = PQnotifies(handle) {
            count += 1
            PQfreemem(notification)
        }
        return count
    }

    /// Waits up to `milliseconds` for the server to send something (a notification).
    ///
    /// - Returns: whether something arrived (or the socket failed: read it to find out).
    func waitForInput(milliseconds: Int32) -> Bool {
        let descriptor = socket
        guard descriptor >= 0 else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) != 0
    }

    // MARK: Helpers

    private func open() throws(ServerError) -> OpaquePointer {
        guard let handle else { throw ServerError(sqlState: "08003", message: "the connection to \(PostgresSchema.redacted(url)) is closed") }
        return handle
    }

    /// Throws the result's error, if it is one.
    private func check(_ result: OpaquePointer?, sql: String) throws(ServerError) {
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
            let message = result.flatMap { PQresultErrorMessage($0) }.map { Self.trimmed($0) } ?? ""
            let reason = message.isEmpty ? handle.map { Self.trimmed(PQerrorMessage($0)) } ?? "" : message
            // No SQLSTATE: libpq itself failed, most often because the connection broke.
            let brokenState = handle.map { PQstatus($0) == CONNECTION_BAD } ?? true ? "08006" : ""
            throw ServerError(sqlState: state ?? brokenState, message: reason.isEmpty ? "the statement failed" : reason, sql: sql)
        }
    }

    /// libpq's message without its trailing newline and its `ERROR:  ` prefix.
    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        var message = String(cString: text)
        while message.last?.isNewline == true { message.removeLast() }
        for prefix in ["ERROR:  ", "FATAL:  "] where message.hasPrefix(prefix) { message.removeFirst(prefix.count) }
        return message
    }

    /// Calls `body` with C strings for `texts` (NULL for nil), alive for the call.
    private static func withCStrings<R>(_ texts: [String?], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = texts.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer(body)
    }
}

/// The rows a statement returned, read as `Value`s; frees libpq's result when released.
final class ServerRows {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    /// How many rows.
    var count: Int { Int(PQntuples(result)) }
    /// How many columns each row has.
    var columnCount: Int { Int(PQnfields(result)) }
    /// The command tag the server answered with (`COMMIT`, `ROLLBACK`, `UPDATE 3`).
    var commandStatus: String { String(cString: PQcmdStatus(result)) }
    /// How many rows an `INSERT`, `UPDATE` or `DELETE` changed.
    var affectedCount: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The value at a row and column, read as an attribute of `type`.
    func value(_ row: Int, _ column: Int, as type: AttributeType) -> Value {
        let (row, column) = (Int32(row), Int32(column))
        guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { return .null }
        return ServerText.value(text, length: Int(PQgetlength(result, row, column)), as: type)
    }

    /// The text at a row and column, nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        let (row, column) = (Int32(row), Int32(column))
        guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { return nil }
        return String(cString: text)
    }

    /// The integer at a row and column, nil for NULL or text that is not one.
    func integer(_ row: Int, _ column: Int) -> Int64? {
        if case let .integer(number) = value(row, column, as: .integer) { return number }
        return nil
    }
}
#endif
