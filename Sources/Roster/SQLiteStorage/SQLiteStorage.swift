/// The store's backend over one SQLite database file (``StorageBackend``).
///
/// Two connections: the *writer* runs writes and transactions; the *reader* reads
/// committed state for live queries and the change log, in its own read transactions, so
/// an open write transaction is never seen. Writes are recorded by triggers stored in the
/// file (``SchemaCatalog/changeLogs(for:on:)``), so commits from other connections and processes are recorded
/// too; ``ChangeTracker`` reads them.
///
/// The file is in WAL mode with `synchronous = NORMAL`: a commit is atomic and survives a
/// crash of the process; a power loss may lose the last commits but never corrupts the file.
final class SQLiteStorage {
    /// The path of the database file.
    let path: String
    /// The connection that writes (and reads inside transactions).
    let writer: Connection
    /// The connection that reads committed state for live queries and change tracking.
    let reader: Connection
    /// Reads the change log.
    let tracker: ChangeTracker
    /// The schema version last checked by ``checkSchema(of:observed:)``.
    var knownSchemaVersion: Int64 = 0
    /// Entities whose change log ``checkSchema(of:observed:)`` put back, reported restored
    /// by each check until a delivery has read past them (``noteCommittedState()``).
    var restoredAwaitingDelivery: Set<String> = []
    /// The names of the change-log triggers of the current format in the file
    /// (lowercased), as of the schema version `version`: what the first watch of an entity
    /// looks its change log up in, so that it reads `sqlite_schema` (which has no index)
    /// only when the schema changed in a way this store did not make (``ChangeLogNames``).
    var changeLogNames: ChangeLogNames?
    /// Entities whose change log (its triggers) this backend has
    /// found or created in the file, so that a new live query on them costs no look-up.
    /// ``checkSchema(of:observed:)`` keeps it up to date when another connection changes
    /// the schema.
    var entitiesWithChangeLog: Set<String> = []
    /// Logs the writer's own writes per transaction (nil for a read-only store, or when the
    /// linked SQLite has no preupdate hook: the triggers log them then).
    let capture: ChangeCapture?
    /// Compiled statements of the writer by SQL text, reused across writes.
    private var statementCache: [String: Statement] = [:]
    /// Compiled statements of the reader by SQL text, for the reads each delivery repeats
    /// (rows by key, objects that refer to a changed one); at most 64, emptied when full.
    private var readerStatements: [String: Statement] = [:]
    /// The file's store identifier, once read (``storeIdentifier()``).
    var knownStoreIdentifier: String?

    /// Opens or creates the file (creates or upgrades the store's own tables in it, unless
    /// read-only).
    ///
    /// - Throws: ``StoreError/database(_:)`` when the file cannot be opened or holds a
    ///   change log this Roster cannot read.
    init(path: String, readOnly: Bool) throws(StoreError) {
        self.path = path
        do {
            writer = try Connection(path: path, readOnly: readOnly)
            writer.setBusyTimeout(milliseconds: 5_000)
            if !readOnly { try writer.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL") }
        } catch {
            throw .database(error)
        }
        if readOnly {
            try SchemaCatalog.checkFormat(on: writer)
        } else {
            try SchemaCatalog.install(on: writer)
        }
        capture = readOnly ? nil : ChangeCapture(connection: writer)
        do {
            reader = try Connection(path: path, readOnly: readOnly)
            reader.setBusyTimeout(milliseconds: 5_000)
            // The same file: what one works out from a schema version holds for the other.
            reader.schemaDerivedValues = writer.schemaDerivedValues
            tracker = try ChangeTracker(reader: reader, ownImages: capture?.images)
            knownSchemaVersion = try reader.schemaVersion()
        } catch {
            throw .database(error)
        }
    }
}

extension SQLiteStorage: StorageBackend {
    var isReadOnly: Bool { writer.isReadOnly }

    func setBusyTimeout(milliseconds: Int32) {
        writer.setBusyTimeout(milliseconds: milliseconds)
        reader.setBusyTimeout(milliseconds: milliseconds)
    }

    func close() {
        capture?.close()
        statementCache = [:]
        readerStatements = [:]
        tracker.forgetStatements()
        writer.close()
        reader.close()
    }

    // MARK: Entities

    func loadEntities() throws(StoreError) -> [String: Entity] {
        try SchemaCatalog.loadEntities(from: writer)
    }

    func create(_ entities: [Entity]) throws(StoreError) {
        let versions = try SchemaCatalog.create(entities, on: writer)
        // The store's own change is no news to its schema check (which would otherwise
        // check every entity's table at the next delivery: the square of their number for
        // entities defined one by one); another's, made before, still is.
        noteOwnSchemaChange(versions)
    }

    func migrate(from existing: Entity, to migrated: Entity) throws(StoreError) {
        try SchemaCatalog.migrate(from: existing, to: migrated, on: writer)
        // Statements compiled for the old columns would read too few.
        statementCache = [:]
        readerStatements = [:]
        tracker.forgetStatements()
    }

    // MARK: Transactions

    var isInTransaction: Bool { !writer.isAutocommit }

    func perform(_ step: TransactionStep) throws(StoreError) {
        let sql: String
        switch step {
        case .begin: sql = "BEGIN IMMEDIATE"
        case .commit: sql = "COMMIT"
        case .rollback: sql = "ROLLBACK"
        // Savepoint names are the store's own identifiers, never a user's text.
        case let .savepoint(name): sql = "SAVEPOINT \(name)"
        case let .release(name): sql = "RELEASE \(name)"
        case let .rollbackTo(name): sql = "ROLLBACK TO \(name)"
        }
        do {
            // The store's own writes are logged before they commit (``ChangeCapture``).
            if case .commit = step { try capture?.flush() }
            try writer.execute(sql)
            if case .begin = step { try capture?.prepareTransaction() }
        } catch {
            switch step {
            case .begin, .commit, .rollback:
                if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
                capture?.discard()
            case .rollbackTo: capture?.invalidateImages()
            default: break
            }
            throw .database(error)
        }
        switch step {
        case .commit: capture?.transactionCommitted()
        case .rollback: capture?.discard()
        // The rows the hook saw written may be undone: the delivery reads them instead.
        // Every write of the store runs in a savepoint or a transaction of its own that is
        // rolled back when it fails (``Store/atomically(_:)``), so this is also what drops
        // the rows of a statement that failed part way.
        case .rollbackTo: capture?.invalidateImages()
        default: break
        }
    }

    // MARK: Writes

    func insert(_ row: [Value], into entity: Entity) throws(StoreError) {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: row.count).joined(separator: ", ")
        let sql = "INSERT INTO \(Identifier.quoted(entity.name))(\(columns)) VALUES (\(placeholders))"
        do throws(DatabaseError) {
            try runCached(sql, row)
        } catch where error.isUniquenessViolation {
            throw .duplicateKey(entity: entity.name, key: row[entity.keyIndex])
        } catch {
            throw .database(error)
        }
    }

    func update(_ entity: Entity, key: Value, setting assignments: [(index: Int, value: Value)]) throws(StoreError) -> Bool {
        let setters = assignments.map { "\(Identifier.quoted(entity.attributes[$0.index].name)) = ?" }.joined(separator: ", ")
        let sql = "UPDATE \(Identifier.quoted(entity.name)) SET \(setters) WHERE \(Identifier.quoted(entity.key.name)) = ?"
        do throws(DatabaseError) {
            try runCached(sql, assignments.map(\.value) + [key])
        } catch {
            throw .database(error)
        }
        return writer.changes > 0
    }

    func delete(_ entity: Entity, key: Value) throws(StoreError) -> Bool {
        let sql = "DELETE FROM \(Identifier.quoted(entity.name)) WHERE \(Identifier.quoted(entity.key.name)) = ?"
        do throws(DatabaseError) { try runCached(sql, [key]) } catch { throw .database(error) }
        return writer.changes > 0
    }

    func execute(_ sql: String, arguments: [Value]) throws(StoreError) {
        try RawSQL.run(sql, arguments: arguments, on: writer, transactionReason: "it runs in the store's transaction") { () throws(DatabaseError) in
            try capture?.noteStatementRan()
        }
    }

    func keys(of entity: Entity, whereAttribute index: Int, equals value: Value) throws(StoreError) -> [Value] {
        let sql = "SELECT \(Identifier.quoted(entity.key.name)) FROM \(Identifier.quoted(entity.name)) WHERE \(Identifier.quoted(entity.attributes[index].name)) = ?"
        do {
            let statement = try cachedStatement(sql)
            try statement.bind([value])
            defer { statement.reset() }
            var keys: [Value] = []
            while try statement.step() { keys.append(statement.column(0, as: entity.key.type)) }
            return keys
        } catch {
            throw .database(error)
        }
    }

    func row(of entity: Entity, key: Value) throws(StoreError) -> [Value]? {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(Identifier.quoted(entity.name)) WHERE \(Identifier.quoted(entity.key.name)) = ?"
        do {
            let statement = try cachedStatement(sql)
            try statement.bind([key])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            return entity.attributes.indices.map { statement.column($0, as: entity.attributes[$0].type) }
        } catch {
            throw .database(error)
        }
    }

    /// A compiled statement of the reader for `sql`, reused; reset it after use.
    func cachedReaderStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = readerStatements[sql] { return statement }
        if readerStatements.count >= 64 { readerStatements = [:] }
        let statement = try reader.prepare(sql)
        readerStatements[sql] = statement
        return statement
    }

    private func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try writer.prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    private func runCached(_ sql: String, _ arguments: [Value]) throws(DatabaseError) {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {}
    }
}
