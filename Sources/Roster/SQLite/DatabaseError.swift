import CSQLite

/// An error reported by SQLite: its result code, its message, and the SQL that failed.
///
/// ```swift
/// do { try connection.execute("INSERT INTO Post(id) VALUES ('p1')") }
/// catch let error as DatabaseError where error.code == .constraint { … }
/// ```
public struct DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// SQLite's result code (the primary code; see ``extendedCode`` for the detail).
    public let code: ResultCode
    /// SQLite's extended result code, e.g. 1555 for SQLITE_CONSTRAINT_PRIMARYKEY.
    public let extendedCode: Int32
    /// SQLite's own message, e.g. `UNIQUE constraint failed: Post.id`.
    public let message: String
    /// The SQL that failed, if any. Values are bound parameters, so it holds no data.
    public let sql: String?

    /// Creates an error.
    public init(code: ResultCode, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code.rawValue
        self.message = message
        self.sql = sql
    }

    /// Reads the current error of a connection.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let text = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: ResultCode(rawValue: code & 0xFF), extendedCode: extended, message: text, sql: sql)
    }

    /// Whether a `PRIMARY KEY` or `UNIQUE` constraint refused the write: another row
    /// already has the value.
    var isUniquenessViolation: Bool {
        // sqlite3.h defines the extended codes as macros that Swift does not import:
        // SQLITE_CONSTRAINT_PRIMARYKEY is SQLITE_CONSTRAINT | (6 << 8) (1555),
        // SQLITE_CONSTRAINT_UNIQUE is SQLITE_CONSTRAINT | (8 << 8) (2067).
        extendedCode == SQLITE_CONSTRAINT | (6 << 8) || extendedCode == SQLITE_CONSTRAINT | (8 << 8)
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(code.name)): \(message)"
        if let sql { text += " — in `\(sql)`" }
        return text
    }
}

/// A raw SQL statement that ``RawStatements/next()`` will not compile, and where it is.
struct RefusedStatement: Error, Sendable, Hashable {
    /// Why a kind of statement is refused.
    enum Kind: Sendable, Hashable {
        /// `BEGIN`, `COMMIT`/`END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`:
        /// the caller owns the transaction the SQL runs in.
        case transactionControl
        /// `ATTACH` or `DETACH`: they change the connection, not its data, and outlive a rollback.
        case attachment
    }

    /// What kind of statement it is.
    let kind: Kind
    /// The command as SQLite compiled it: `BEGIN`, `COMMIT` (for `END` too), `ROLLBACK`,
    /// `SAVEPOINT x`, `RELEASE x`, `ROLLBACK TO x`, `ATTACH` or `DETACH`.
    let command: String
    /// Which statement of the SQL it is, counting from 1; empty statements do not count.
    let number: Int
}

/// Why ``RawStatements/next()`` did not return a statement.
enum RawStatementError: Error, Sendable, Hashable {
    /// The statement is of a kind that raw SQL may not run.
    case refused(RefusedStatement)
    /// SQLite could not compile the statement.
    case database(DatabaseError)
}

/// A primary SQLite result code.
public struct ResultCode: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

    /// SQLite's symbolic name for the code, e.g. `SQLITE_CONSTRAINT`.
    public var name: String {
        switch rawValue {
        case SQLITE_ERROR: "SQLITE_ERROR"
        case SQLITE_BUSY: "SQLITE_BUSY"
        case SQLITE_LOCKED: "SQLITE_LOCKED"
        case SQLITE_READONLY: "SQLITE_READONLY"
        case SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: "SQLITE_MISMATCH"
        case SQLITE_MISUSE: "SQLITE_MISUSE"
        case SQLITE_RANGE: "SQLITE_RANGE"
        case SQLITE_CANTOPEN: "SQLITE_CANTOPEN"
        case SQLITE_IOERR: "SQLITE_IOERR"
        case SQLITE_FULL: "SQLITE_FULL"
        case SQLITE_CORRUPT: "SQLITE_CORRUPT"
        case SQLITE_NOMEM: "SQLITE_NOMEM"
        case SQLITE_TOOBIG: "SQLITE_TOOBIG"
        case SQLITE_AUTH: "SQLITE_AUTH"
        default: "SQLITE code \(rawValue)"
        }
    }
}
