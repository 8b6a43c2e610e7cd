#if PostgreSQL
/// The store's backend over a PostgreSQL server (``StorageBackend``): many clients, in
/// many processes and on many machines, sharing one schema's entities and live queries.
///
/// Two connections, as over SQLite: the *writer* runs writes and transactions (`READ
/// COMMITTED`, PostgreSQL's default); the *reader* reads committed state for live queries
/// and the change log, each delivery in one `REPEATABLE READ` transaction, so that the log
/// and the rows it points at are one snapshot. Writes are logged by statement triggers in
/// the schema (``ServerCatalog``), so `psql`, scripts and other machines are logged too;
/// commits are numbered in commit order, and a reader's cursor is the last number it read.
/// See Docs/ScaleOut.md.
final class PostgresStorage {
    /// The URL, without its password: what ``Store/path`` says.
    let path: String
    /// The schema's names.
    let names: ServerCatalog.Names
    /// The connection that writes (and reads inside transactions).
    var writer: ServerConnection
    /// The connection that reads committed state and the change log.
    var reader: ServerConnection
    /// The last commit number read: the committed state live queries show.
    var cursor: Int64 = 0
    /// The newest commit number seen by ``hasChangedSinceLastCheck()`` or a delivery.
    var notedNewest: Int64 = 0
    /// The newest commit number the current read transaction sees (read once per delivery).
    var newestInRead: Int64?
    /// `pruned_through` as the current read transaction sees it.
    var prunedInRead: Int64?
    /// The schema's fingerprint as the current read transaction sees it.
    var fingerprintInRead: String?
    /// The entities the schema's fingerprint covers: those of the last schema check.
    var fingerprintEntities: [String] = []
    /// The `pruned_through` last read.
    var knownPrunedThrough: Int64 = 0
    /// The schema's fingerprint at the last ``checkSchema(of:observed:)`` (empty: never checked).
    var knownFingerprint = ""
    /// Entities whose table the last schema check found missing or unfit, with why: every
    /// check reports them until the schema changes again (their logs cannot be read).
    var brokenEntities: [String: StoreError] = [:]
    /// Entities whose change log a schema check put back: each check reports them restored,
    /// in a snapshot that sees every write the log missed (``SchemaCheck/needsNewRead``),
    /// until a delivery has read past them (``noteCommittedState()``).
    var restoredLastCheck: Set<String> = []
    /// Entities whose log this backend put back with a gap mark
    /// (``ServerCatalog/changeLogGap(of:_:)``), with the newest commit number once it was
    /// committed: its deliveries skip a mark numbered no later, since its own live queries
    /// re-fetch anyway (``restoredLastCheck``). Dropped once read past.
    var ownGapMarks: [String: Int64] = [:]
    /// Entities whose change log this backend has found or created.
    var entitiesWithChangeLog: Set<String> = []
    /// How long change records stay.
    var changeLogRetention = ChangeLogRetention.default
    /// Deliveries since the log was last pruned: pruning runs every so many.
    var deliveriesSincePrune = 0
    /// The URL with its password, to open the monitor's and new connections.
    let url: String
    /// The writer's `lock_timeout` in milliseconds (``Store/busyTimeout``; 5 s unless set),
    /// set again on each new writing connection.
    var lockTimeout: Int32 = 5_000
    /// Whether the writer's session has ``lockTimeout``. A new value waits for the next
    /// transaction's `BEGIN`: a `SET` inside a transaction is undone when it rolls back, and
    /// a failure to set it is then that `BEGIN`'s error, which the caller hears.
    var lockTimeoutIsSet = true

    /// Connects to the server and installs the store's tables in the connection's schema
    /// (`current_schema()`) unless they are there.
    ///
    /// - Throws: ``StoreError/server(_:)`` when the server cannot be reached, refuses the
    ///   role, or the search path names no schema that exists.
    init(url: String) throws(StoreError) {
        self.url = url
        path = PostgresSchema.redacted(url)
        do throws(ServerError) {
            writer = try ServerConnection(url: url)
            let rows = try writer.query("SELECT current_schema()")
            guard let schema = rows.text(0, 0) else {
                throw ServerError(sqlState: "3F000", message: "the search path of \(path) names no schema that exists and that this role may use: create one (or GRANT USAGE, CREATE ON SCHEMA to the role) and name it in the URL (options=-csearch_path%3DNAME)")
            }
            names = ServerCatalog.Names(schema: schema)
            try ServerCatalog.install(names, on: writer)
            try writer.setLockTimeout(milliseconds: lockTimeout)
            reader = try ServerConnection(url: url)
            // The cursor and the pruning mark of one snapshot: a prune between two reads
            // could otherwise hide that the log no longer reaches back to the cursor.
            let start = try reader.query("""
                SELECT (SELECT coalesce(max(seq), 0) FROM \(names.commits)),
                       (SELECT value FROM \(names.meta) WHERE name = 'pruned_through')
                """)
            cursor = start.integer(0, 0) ?? 0
            notedNewest = cursor
            knownPrunedThrough = start.integer(0, 1) ?? 0
        } catch {
            throw .server(error)
        }
    }

    /// The newest commit number the connection sees.
    static func newest(_ names: ServerCatalog.Names, on connection: ServerConnection) throws(ServerError) -> Int64 {
        try connection.query("SELECT coalesce(max(seq), 0) FROM \(names.commits)").integer(0, 0) ?? 0
    }

    /// A number of `_roster_meta`.
    static func meta(_ name: String, _ names: ServerCatalog.Names, on connection: ServerConnection) throws(ServerError) -> Int64 {
        try connection.query("SELECT value FROM \(names.meta) WHERE name = $1", [.string(name)]).integer(0, 0) ?? 0
    }

    /// Runs `body` with the reader; when the connection broke, opens a new one for the next
    /// call (the cursor is a commit number, so the next delivery catches up exactly) and
    /// throws the error, which the live queries hear.
    func reading<T>(_ body: (ServerConnection) throws(ServerError) -> T) throws(StoreError) -> T {
        do {
            return try body(reader)
        } catch {
            if error.isConnectionFailure || !reader.isHealthy { reconnectReader() }
            throw .server(error)
        }
    }

    private func reconnectReader() {
        reader.close()
        newestInRead = nil
        prunedInRead = nil
        fingerprintInRead = nil
        if let fresh = try? ServerConnection(url: url) { reader = fresh }
    }

    /// Runs `body` with the writer, turning its errors into ``StoreError``s.
    func writing<T>(_ body: (ServerConnection) throws(ServerError) -> T) throws(StoreError) -> T {
        do { return try body(writer) } catch { throw .server(error) }
    }
}

extension PostgresStorage: StorageBackend {
    var isReadOnly: Bool { false }

    func setBusyTimeout(milliseconds: Int32) {
        // The server's equivalent: how long a statement waits for a lock before it fails
        // (SQLSTATE 55P03); `setLockTimeout` maps 0, "do not wait", to the server's shortest.
        // Set at the next `BEGIN` (``lockTimeoutIsSet``).
        lockTimeout = milliseconds
        lockTimeoutIsSet = false
    }

    /// Sets the writer's lock timeout when it changed since it was last set; outside a
    /// transaction, just before one begins.
    private func setLockTimeoutIfChanged() throws(ServerError) {
        guard !lockTimeoutIsSet else { return }
        try writer.setLockTimeout(milliseconds: lockTimeout)
        lockTimeoutIsSet = true
    }

    /// A new writing connection, with the store's lock timeout.
    private func reconnectedWriter() throws(ServerError) -> ServerConnection {
        let fresh = try ServerConnection(url: url)
        try fresh.setLockTimeout(milliseconds: lockTimeout)
        lockTimeoutIsSet = true
        return fresh
    }

    func close() {
        writer.close()
        reader.close()
    }

    // MARK: Entities

    func loadEntities() throws(StoreError) -> [String: Entity] {
        try ServerCatalog.loadEntities(names, on: writer)
    }

    func create(_ entities: [Entity]) throws(StoreError) {
        for entity in entities where entity.name.utf8.count > ServerCatalog.maximumEntityNameLength {
            throw .schema(SchemaError("entity name '\(entity.name)' is longer than \(ServerCatalog.maximumEntityNameLength) bytes, the most PostgreSQL's identifiers leave for it"))
        }
        try schemaChange { (connection) throws(StoreError) in
            var sql = ""
            for entity in entities {
                let exists: Bool
                let clash: String?
                do throws(ServerError) {
                    exists = try connection.query("SELECT to_regclass($1) IS NOT NULL", [.string(names.table(entity.name))]).text(0, 0) == "t"
                    // Names are ASCII identifiers: lower() folds them as SQLite does. Another
                    // client may have defined the other since this store read the entities.
                    clash = try connection.query("SELECT name FROM \(names.entities) WHERE lower(name) = lower($1) AND name <> $1", [.string(entity.name)]).text(0, 0)
                } catch {
                    throw .server(error)
                }
                if let clash { throw .schema(.caseClash(entity.name, with: clash)) }
                if exists {
                    // Another client defined the same entity since this store opened: done.
                    if try ServerCatalog.recordedEntity(named: entity.name, names, on: connection) == entity { continue }
                    throw .schemaMismatch(entity: entity.name, reason: "the schema '\(names.schema)' already has a table named '\(entity.name)' that Roster did not create with this definition")
                }
                sql += ServerCatalog.creation(of: entity, names)
            }
            return sql
        }
    }

    func migrate(from existing: Entity, to migrated: Entity) throws(StoreError) {
        try schemaChange { (connection) throws(StoreError) in
            let hasLog: Bool
            do throws(ServerError) { hasLog = try ServerCatalog.hasChangeLog(of: existing, names, on: connection) } catch { throw .server(error) }
            return ServerCatalog.migration(from: existing, to: migrated, hasLog: hasLog, names)
        }
    }

    /// Runs the SQL that `plan` returns in one transaction under the schema's lock (the
    /// SQL bumps `schema_version`, which every client's schema check notices).
    func schemaChange(_ plan: (ServerConnection) throws(StoreError) -> String) throws(StoreError) {
        guard !writer.isInTransaction else { throw .transaction("entities are defined and tracked outside a transaction") }
        try writing { connection throws(ServerError) in try connection.execute("BEGIN") }
        do throws(StoreError) {
            try writing { connection throws(ServerError) in
                _ = try connection.query("SELECT pg_advisory_xact_lock(\(names.schemaLock))")
            }
            let sql = try plan(writer)
            try writing { connection throws(ServerError) in
                if !sql.isEmpty { try connection.execute(sql) }
                _ = try connection.commit()
            }
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: Transactions

    var isInTransaction: Bool { writer.isInTransaction }

    func perform(_ step: TransactionStep) throws(StoreError) {
        let sql: String
        switch step {
        case .begin: sql = "BEGIN"
        case .commit: sql = "COMMIT"
        case .rollback: sql = "ROLLBACK"
        // Savepoint names are the store's own identifiers, never a user's text.
        case let .savepoint(name): sql = "SAVEPOINT \(name)"
        case let .release(name): sql = "RELEASE SAVEPOINT \(name)"
        case let .rollbackTo(name): sql = "ROLLBACK TO SAVEPOINT \(name)"
        }
        if case .begin = step, !writer.isHealthy, let fresh = try? reconnectedWriter() {
            // The server restarted or the connection dropped between transactions.
            writer = fresh
        }
        do throws(ServerError) {
            if case .begin = step {
                do {
                    try setLockTimeoutIfChanged()
                    try writer.execute(sql)
                } catch where error.isConnectionFailure {
                    // Found broken only now (libpq learns it by using the connection):
                    // nothing was done yet, so begin again on a new connection.
                    writer = try reconnectedWriter()
                    try writer.execute(sql)
                }
            } else if case .commit = step {
                // A transaction in which a statement failed ends as ROLLBACK, without an error.
                let status = try writer.commit()
                if status == "ROLLBACK" {
                    throw ServerError(sqlState: "25P02", message: "the transaction was rolled back: a statement in it failed, and nothing of it was committed")
                }
            } else {
                try writer.execute(sql)
            }
        } catch {
            if case .commit = step, writer.isInTransaction { try? writer.execute("ROLLBACK") }
            if case .begin = step, writer.isInTransaction { try? writer.execute("ROLLBACK") }
            throw .server(error)
        }
    }

    // MARK: Writes

    func insert(_ row: [Value], into entity: Entity) throws(StoreError) {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let placeholders = row.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        do {
            _ = try writer.query("INSERT INTO \(names.table(entity.name))(\(columns)) VALUES (\(placeholders))", row)
        } catch where error.isUniquenessViolation {
            throw .duplicateKey(entity: entity.name, key: row[entity.keyIndex])
        } catch {
            throw .server(error)
        }
    }

    func update(_ entity: Entity, key: Value, setting assignments: [(index: Int, value: Value)]) throws(StoreError) -> Bool {
        let setters = assignments.enumerated().map { "\(Identifier.quoted(entity.attributes[$0.element.index].name)) = $\($0.offset + 1)" }
        let sql = "UPDATE \(names.table(entity.name)) SET \(setters.joined(separator: ", ")) WHERE \(Identifier.quoted(entity.key.name)) = $\(assignments.count + 1)"
        return try writing { connection throws(ServerError) in try connection.run(sql, assignments.map(\.value) + [key]) > 0 }
    }

    func delete(_ entity: Entity, key: Value) throws(StoreError) -> Bool {
        let sql = "DELETE FROM \(names.table(entity.name)) WHERE \(Identifier.quoted(entity.key.name)) = $1"
        return try writing { connection throws(ServerError) in try connection.run(sql, [key]) > 0 }
    }

    func execute(_ sql: String, arguments: [Value]) throws(StoreError) {
        if let refused = ServerSQLGuard.refusal(of: sql) { throw .rejectedSQL(refused) }
        try writing { connection throws(ServerError) in
            // Not prepared: a user's statement runs once, and must not outlive a migration
            // in the statement cache.
            if arguments.isEmpty { try connection.execute(sql) } else { _ = try connection.query(sql, arguments, prepared: false) }
        }
    }

    func keys(of entity: Entity, whereAttribute index: Int, equals value: Value) throws(StoreError) -> [Value] {
        let sql = "SELECT \(Identifier.quoted(entity.key.name)) FROM \(names.table(entity.name)) WHERE \(Identifier.quoted(entity.attributes[index].name)) = $1"
        let rows = try writing { connection throws(ServerError) in try connection.query(sql, [value]) }
        return (0..<rows.count).map { rows.value($0, 0, as: entity.key.type) }
    }

    func row(of entity: Entity, key: Value) throws(StoreError) -> [Value]? {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(names.table(entity.name)) WHERE \(Identifier.quoted(entity.key.name)) = $1"
        let rows = try writing { connection throws(ServerError) in try connection.query(sql, [key]) }
        guard rows.count > 0 else { return nil }
        return entity.attributes.indices.map { rows.value(0, $0, as: entity.attributes[$0].type) }
    }
}
#endif
