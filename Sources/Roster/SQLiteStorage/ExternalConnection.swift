/// A separate connection to a store's database file, as another process would open it.
///
/// Writes through it bypass the ``Store`` entirely; the store sees them only through the
/// change log that its triggers keep in the file, when ``Store/pollExternalChanges()``
/// runs. Tools and tests use it to stand in for another process.
///
/// ```swift
/// let other = try ExternalConnection(path: store.path)
/// try other.execute("UPDATE Post SET rank = rank + 1")
/// try store.pollExternalChanges()   // live queries hear about it now
/// ```
///
/// On a PostgreSQL URL (`postgresql://…`, with the store's schema as its search path) it is
/// a connection to that server: another client, as `psql` or another machine would be.
public final class ExternalConnection {
    private let connection: Connection?
    #if PostgreSQL
    private let server: ServerConnection?
    #endif

    /// Opens the file, or connects to the server a `postgresql://` URL names.
    ///
    /// - Parameters:
    ///   - path: the database file, or a PostgreSQL URL.
    ///   - milliseconds: how long a write waits for another connection's transaction to
    ///     end before failing with SQLITE_BUSY (on a server: `lock_timeout`, then SQLSTATE
    ///     `55P03`; the commit still waits its turn behind other clients' commits, up to 5 s).
    /// - Throws: ``StoreError/database(_:)`` when the file cannot be opened;
    ///   ``StoreError/server(_:)`` when the server cannot be reached.
    public init(path: String, busyTimeout milliseconds: Int32 = 5_000) throws {
        if PostgresSchema.isURL(path) {
            #if !PostgreSQL
            throw StoreError.server(.notBuilt)
            #else
            connection = nil
            do {
                let server = try ServerConnection(url: path)
                try server.setLockTimeout(milliseconds: milliseconds)
                self.server = server
            } catch {
                throw StoreError.server(error)
            }
            return
            #endif
        }
        #if PostgreSQL
        server = nil
        #endif
        do {
            let connection = try Connection(path: path)
            connection.setBusyTimeout(milliseconds: milliseconds)
            self.connection = connection
        } catch {
            throw StoreError.database(error)
        }
    }

    /// Runs SQL (one or more statements, in order) in its own transaction, committed as a
    /// whole or not at all.
    ///
    /// As in ``Store/execute(_:arguments:)``, SQLite itself reads the statements, and
    /// transaction control (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`)
    /// and `ATTACH`/`DETACH` are refused wherever they are: the call owns the transaction.
    ///
    /// - Throws: ``StoreError/database(_:)`` with SQLite's code and message, or
    ///   ``StoreError/rejectedSQL(_:)`` naming the refused statement. Either way nothing
    ///   is kept.
    public func execute(_ sql: String) throws {
        _ = try run(sql, keepingRows: false)
    }

    /// Runs SQL as ``execute(_:)`` does, and returns the rows its statements read, each
    /// value as text (nil for NULL): every statement's on SQLite, the last statement's on
    /// PostgreSQL (as `sqlite3` and `psql -c` print them). What `roster sql` prints.
    ///
    /// - Throws: what ``execute(_:)`` throws; nothing is kept then.
    package func run(_ sql: String) throws -> [[String?]] {
        try run(sql, keepingRows: true)
    }

    /// The statements run in one transaction; their rows as text when `keepingRows`.
    private func run(_ sql: String, keepingRows: Bool) throws -> [[String?]] {
        var rows: [[String?]] = []
        #if PostgreSQL
        if let server {
            if let refused = ServerSQLGuard.refusal(of: sql) { throw StoreError.rejectedSQL(refused) }
            do throws(ServerError) {
                try server.execute("BEGIN")
                let result = try server.executeReturningLast(sql)
                _ = try server.commit()
                if keepingRows { rows = (0..<result.count).map { row in (0..<result.columnCount).map { result.text(row, $0) } } }
            } catch {
                if server.isInTransaction { try? server.execute("ROLLBACK") }
                throw StoreError.server(error)
            }
            return rows
        }
        #endif
        guard let connection else { return rows }
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw StoreError.database(error)
        }
        do throws(StoreError) {
            try RawSQL.run(sql, arguments: [], on: connection, transactionReason: "it runs in a transaction of its own", eachRow: { statement in
                if keepingRows { rows.append((0..<statement.columnCount).map { statement.column($0).text }) }
            })
            do throws(DatabaseError) { try connection.execute("COMMIT") } catch { throw .database(error) }
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
        return rows
    }
}
