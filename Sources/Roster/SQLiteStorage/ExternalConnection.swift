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
public final class ExternalConnection {
    private let connection: Connection

    /// Opens the file.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - milliseconds: how long a write waits for another connection's transaction to
    ///     end before failing with SQLITE_BUSY.
    /// - Throws: ``StoreError/database(_:)`` when the file cannot be opened.
    public init(path: String, busyTimeout milliseconds: Int32 = 5_000) throws(StoreError) {
        do {
            connection = try Connection(path: path)
        } catch {
            throw .database(error)
        }
        connection.setBusyTimeout(milliseconds: milliseconds)
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
    public func execute(_ sql: String) throws(StoreError) {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw .database(error)
        }
        do throws(StoreError) {
            try RawSQL.run(sql, arguments: [], on: connection, transactionReason: "it runs in a transaction of its own")
            do throws(DatabaseError) { try connection.execute("COMMIT") } catch { throw .database(error) }
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
