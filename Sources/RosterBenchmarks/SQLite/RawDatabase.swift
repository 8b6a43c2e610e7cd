import CRosterBenchmarkSupport
import CSQLite

/// A plain SQLite connection of the benchmark's own: what the floor and the baseline read
/// through, the way code without Roster would. Every `sqlite3_*` call of the benchmarks
/// is in this folder.
final class RawDatabase {
    let handle: OpaquePointer
    private let ownsHandle: Bool

    /// Opens the database file at `path` for reading and writing.
    init(path: String) throws(BenchmarkError) {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            sqlite3_close_v2(handle)
            throw BenchmarkError("cannot open '\(path)': \(message)")
        }
        self.handle = handle
        ownsHandle = true
        sqlite3_busy_timeout(handle, 5_000)
    }

    /// Wraps a connection that someone else opened and will close.
    init(borrowing handle: OpaquePointer) {
        self.handle = handle
        ownsHandle = false
    }

    deinit {
        if ownsHandle { sqlite3_close_v2(handle) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(BenchmarkError) -> RawStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw BenchmarkError("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return RawStatement(handle: statement, database: self, sql: sql)
    }

    /// The first column of the first row of `sql`, as text; nil when there is no row.
    func text(_ sql: String) throws(BenchmarkError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs SQL that returns no rows (one or more statements).
    func execute(_ sql: String) throws(BenchmarkError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    /// Sets (`column` not nil) or removes the `writes` scenario's floor hook: a preupdate
    /// hook that reads what any change capture must read of each row and logs nothing
    /// (`roster_bench_set_floor_hook`). False when this SQLite has no preupdate hook.
    func setFloorHook(column: Int32?) -> Bool {
        roster_bench_set_floor_hook(handle, column ?? -1) != 0
    }

    /// The version of the SQLite library in use.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A compiled statement of a ``RawDatabase``, stepped row by row.
final class RawStatement {
    private let handle: OpaquePointer
    private let database: RawDatabase
    private let sql: String

    fileprivate init(handle: OpaquePointer, database: RawDatabase, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Advances to the next row; false when the statement is done (it is then reset, so
    /// the next `step` runs it again and reads the newest committed state).
    func step() throws(BenchmarkError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let message = String(cString: sqlite3_errmsg(database.handle))
            sqlite3_reset(handle)
            throw BenchmarkError("\(sql): \(message)")
        }
    }

    /// Ends the current run before its last row, for the next run.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Binds parameter `index` (1-based) for the next run.
    func bind(_ text: String, at index: Int32) {
        sqlite3_bind_text(handle, index, text, -1, csqlite_transient)
    }

    /// Binds parameter `index` (1-based) for the next run.
    func bind(_ number: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, number)
    }

    /// Binds parameter `index` (1-based) for the next run.
    func bind(_ number: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, number)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
