/// An error reported by a PostgreSQL server, or by libpq on its way there: the SQLSTATE
/// code, the server's message, and the SQL that failed.
///
/// ```swift
/// do { try store.execute("UPDATE Post SET rank = rank + 1") }
/// catch let StoreError.server(error) where error.sqlState == "40P01" { … }  // a deadlock
/// ```
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The five-character SQLSTATE code (`23505` for a duplicate key, `40001` for a
    /// serialization failure); `08000`-class codes when the connection failed, empty when
    /// libpq gave none.
    public let sqlState: String
    /// What went wrong, in the server's (or libpq's) words, with what Roster knows of where.
    public let message: String
    /// The SQL that failed, if any. Values are parameters, so it holds no data.
    public let sql: String?

    /// Creates an error.
    public init(sqlState: String, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// What every PostgreSQL entry point throws in a build without the backend
    /// (``RosterRelease/hasPostgreSQL``): SQLSTATE `0A000`, feature not supported.
    static let notBuilt = ServerError(sqlState: "0A000", message: """
        this build of Roster has no PostgreSQL backend: enable the package trait PostgreSQL \
        (swift build --traits PostgreSQL; in a manifest, traits: ["PostgreSQL"]), which needs libpq's headers (Debian: libpq-dev)
        """)

    /// Whether running the transaction again may succeed: a serialization failure
    /// (`40001`) or a deadlock (`40P01`), where the server rolled the transaction back.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// Whether a `PRIMARY KEY` or `UNIQUE` constraint refused the write (`23505`).
    var isUniquenessViolation: Bool { sqlState == "23505" }

    /// Whether the connection to the server is broken (class `08`, or the server shutting
    /// down, `57P01`–`57P03`): the error is not the statement's fault.
    public var isConnectionFailure: Bool {
        sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    public var description: String {
        var text = "PostgreSQL error\(sqlState.isEmpty ? "" : " \(sqlState)"): \(message)"
        if let sql { text += " — in `\(sql)`" }
        return text
    }
}
