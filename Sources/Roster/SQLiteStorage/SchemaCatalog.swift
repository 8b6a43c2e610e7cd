/// The store's own tables: which entities exist, and the change log their triggers fill.
///
/// - `_roster_entities(name, definition)`: one row per entity, so a reopened file knows
///   its entities (SQLite's column types alone cannot tell `bool` from `integer`).
/// - `_roster_changes(seq, entity, key)`: every committed insert, real update and delete
///   appends the keys it touched. Triggers stored in the file do it, so writes from any
///   connection or process are logged too. See ``ChangeTracker``.
/// - `_roster_before_<Entity>(_roster_seq, <the entity's columns>)`: the row as it was
///   before the write logged at `_roster_changes.seq = _roster_seq`, for updates and
///   deletes (an insert has no before-image). It exists, with the entity's four triggers
///   (its *change log*), only once a live query in some process has watched the entity
///   (see ``Store/ensureTracking(of:)``): defining an entity creates its table alone. The column has the store's reserved prefix,
///   so it never collides with an attribute (`seq` is a valid attribute name). The
///   first entry of a key after a reader's cursor thus tells what the key held at the
///   cursor, so a live query can tell a real change from a value changed and changed back
///   without keeping anything of the row but its sort values.
/// - `_roster_meta(name, value)`: `pruned_through`, the last log entry that was removed;
///   `log_format`, the version of the triggers and before-image tables the file holds.
enum SchemaCatalog {
    static let changesTable = "_roster_changes"
    /// The version of the change log's triggers and tables: 1 logs keys only, 2 adds
    /// before-images under a column `seq`, 3 names that column `_roster_seq`, 4 creates an
    /// entity's change log when it is first watched rather than when it is defined (so an
    /// entity may have none; a Roster that writes format 3 would assume it has one, miss
    /// its writes, and must refuse the file). A format 3 file is a valid format 4 one. 5
    /// compares values in the update trigger by bytes (`COLLATE BINARY`), as the contract
    /// orders them: with a column another process rebuilt `COLLATE NOCASE`, format 4 took
    /// a change of letter case for no change, and logged nothing. 6 adds the column
    /// `_roster_changes.batch`: the store's own connection logs each transaction as one
    /// entry per entity holding its keys and rows before (``ChangeBatch``, written by
    /// ``ChangeCapture``), with a partial index on those entries; a Roster that reads format
    /// 5 would miss them, and must refuse the file.
    static let logFormat = 6
    /// The oldest format whose files a read-only store reads as they are.
    static let oldestReadableFormat = 3
    /// The column of a before-image table that holds the log entry's `seq`.
    static let beforeSequenceColumn = "_roster_seq"

    /// The table of before-images of `entity`.
    static func beforeTable(_ entity: Entity) -> String { Identifier.quoted("_roster_before_\(entity.name)") }

    /// Creates the store's tables if the file does not have them yet, and brings the
    /// change log of a file written by an older Roster up to the current log format, in
    /// one transaction that keeps every log entry and before-image (a reader in another
    /// process may not have read them yet):
    ///
    /// - format 1 (keys only): creates the before-image tables and the triggers of the
    ///   entities that have triggers (every entity, in a file Roster wrote);
    /// - format 2 (before-images under `seq`): renames that column `_roster_seq` in the
    ///   before-image tables and their triggers (see ``renameSequenceColumns(of:on:)``);
    /// - formats 3 and 4: the triggers of the entities that have them are written again
    ///   (format 5's compare values by bytes);
    /// - formats 1 to 5: `_roster_changes` gains the column `batch` and its partial index.
    ///
    /// Every older format ends with the triggers written again, as format 1's are.
    ///
    /// - Throws: ``StoreError/database(_:)`` for a format newer than ``logFormat`` or one
    ///   no Roster wrote, without changing anything.
    static func install(on connection: Connection) throws(StoreError) {
        do throws(DatabaseError) {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS _roster_entities(name TEXT NOT NULL PRIMARY KEY, definition TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS _roster_changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, entity TEXT NOT NULL, key, batch BLOB);
                CREATE TABLE IF NOT EXISTS _roster_meta(name TEXT NOT NULL PRIMARY KEY, value);
                INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('pruned_through', 0);
                INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('store_id', lower(hex(randomblob(16))));
                CREATE TABLE IF NOT EXISTS _roster_log_marks(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL);
                """)
            if try formatToUpgrade(on: connection) == nil { return }
            // Decided again under the write lock: another process opening the file at the
            // same moment may have upgraded it meanwhile.
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw .database(error)
        }
        let format: Int64
        do throws(DatabaseError) {
            guard let older = try formatToUpgrade(on: connection) else {
                try connection.execute("COMMIT")
                return
            }
            format = older
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
        let entities: [Entity]
        do throws(StoreError) {
            entities = try loadEntities(from: connection).values.sorted(by: { $0.name < $1.name })
            if format == 2 {
                do { try renameSequenceColumns(of: entities, on: connection) } catch { throw .database(error) }
            }
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
        var sql = ""
        // Only entities that have a change log get the current one: an entity nobody
        // watches needs none (it is created when a live query first watches it).
        let logged: Set<String>
        do { logged = try entitiesWithTriggers(on: connection) } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
        for entity in entities where logged.contains(entity.name.lowercased()) { sql += changeLog(for: entity) }
        let hasBatches: Bool
        do { hasBatches = try hasBatchColumn(on: connection) } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
        if !hasBatches { sql += "ALTER TABLE _roster_changes ADD COLUMN batch BLOB;\n" }
        sql += "CREATE INDEX IF NOT EXISTS _roster_changes_batches ON _roster_changes(entity, seq) WHERE batch IS NOT NULL;\n"
        sql += "INSERT OR REPLACE INTO _roster_meta(name, value) VALUES ('log_format', \(logFormat));\nCOMMIT;"
        try run(sql, on: connection)
    }

    /// Whether `_roster_changes` has the column `batch` (format 6 and later).
    static func hasBatchColumn(on connection: Connection) throws(DatabaseError) -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM pragma_table_info('_roster_changes', 'main') WHERE name = 'batch'")
        return try statement.step()
    }

    /// The log format of the file, when it is older than ``logFormat`` (1 when none is
    /// recorded); nil when it is current.
    ///
    /// - Throws: a ``DatabaseError`` for a file from a newer Roster, or metadata that no
    ///   Roster wrote: rewriting its triggers would silently drop whatever that version
    ///   logs, so the store refuses it and changes nothing.
    private static func formatToUpgrade(on connection: Connection) throws(DatabaseError) -> Int64? {
        let statement = try connection.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
        let current = try statement.step() ? statement.column(0) : .null
        statement.reset()
        switch current {
        case .integer(Int64(logFormat)):
            return nil
        case .null:
            return 1
        case let .integer(format) where format >= 1 && format < Int64(logFormat):
            return format
        case let .integer(format) where format > Int64(logFormat):
            throw DatabaseError(code: .cantOpen, message: "the file's change log has format \(format), written by a newer Roster; this Roster reads formats 1 to \(logFormat). Open it with a newer Roster (nothing was changed)")
        default:
            throw DatabaseError(code: .cantOpen, message: "_roster_meta.log_format holds \(current), which is not a change-log format this Roster knows (1 to \(logFormat)); nothing was changed")
        }
    }

    /// Upgrades a format 2 file, inside the caller's write transaction: renames the
    /// before-image tables' column `seq` to `_roster_seq`, in the tables' definitions and
    /// in the triggers that fill them.
    ///
    /// The column is each table's `INTEGER PRIMARY KEY`, which SQLite stores as the row id,
    /// not in the rows: renaming it changes the schema's text and nothing stored, so every
    /// log entry and before-image stays as it was. The text is rewritten in place for all
    /// tables at once, as SQLite documents for schema changes that leave the stored content
    /// alone (<https://www.sqlite.org/lang_altertable.html#otheralter>: `writable_schema`,
    /// then a new `schema_version`, which makes every connection load the new schema).
    /// `ALTER TABLE … RENAME COLUMN` would do the same one table at a time, but re-parses
    /// the whole schema for each: minutes for a file with thousands of entities.
    ///
    /// The rewritten schema is then loaded and checked — every before-image table has
    /// `_roster_seq` as its key, no trigger still names `seq`, and each entity's triggers
    /// compile — so a file whose text is not what format 2 wrote fails here, and the
    /// caller's rollback leaves it as it was.
    ///
    /// - Throws: ``DatabaseError`` when the schema cannot be rewritten or does not check.
    private static func renameSequenceColumns(of entities: [Entity], on connection: Connection) throws(DatabaseError) {
        // Format 2 wrote `CREATE TABLE "_roster_before_E"(seq INTEGER PRIMARY KEY, …)` and,
        // in the replace, update and delete triggers, `INSERT INTO "_roster_before_E"(seq, …)`.
        // Only those rows are touched, and in them only that text.
        let version = try integer("PRAGMA schema_version", on: connection)
        try connection.execute("PRAGMA writable_schema = ON")
        do throws(DatabaseError) {
            try connection.execute("""
                UPDATE sqlite_schema
                SET sql = replace(sql, '"(seq INTEGER PRIMARY KEY, ', '"(\(beforeSequenceColumn) INTEGER PRIMARY KEY, ')
                WHERE type = 'table' AND name IN (SELECT '_roster_before_' || name FROM _roster_entities);
                UPDATE sqlite_schema
                SET sql = replace(sql, '"(seq, ', '"(\(beforeSequenceColumn), ')
                WHERE type = 'trigger' AND name IN (
                    SELECT '_roster_' || e.name || '_' || kind.value
                    FROM _roster_entities AS e,
                         (SELECT 'replace' AS value UNION ALL SELECT 'update' UNION ALL SELECT 'delete') AS kind);
                PRAGMA schema_version = \(version + 1);
                """)
        } catch {
            try? connection.execute("PRAGMA writable_schema = RESET")
            throw error
        }
        // Stops writing the schema, and loads the rewritten one.
        try connection.execute("PRAGMA writable_schema = RESET")
        let unrenamed = try connection.prepare("""
            SELECT e.name FROM _roster_entities AS e
            WHERE NOT EXISTS (SELECT 1 FROM pragma_table_info('_roster_before_' || e.name) AS c
                              WHERE c.name = '\(beforeSequenceColumn)' AND c.pk = 1)
            UNION ALL
            SELECT tbl_name FROM sqlite_schema
            WHERE type = 'trigger' AND name LIKE '\\_roster\\_%' ESCAPE '\\' AND instr(sql, '"(seq, ') > 0
            LIMIT 1
            """)
        if try unrenamed.step() {
            throw DatabaseError(code: .cantOpen, message: "cannot upgrade the change log of entity \(unrenamed.column(0)) from format 2: its before-image table or triggers are not as format 2 made them; nothing was changed")
        }
        // Compiling a write compiles the triggers it fires, against the new schema.
        for entity in entities {
            let table = Identifier.quoted(entity.name)
            let key = Identifier.quoted(entity.key.name)
            _ = try connection.prepare("INSERT INTO \(table)(\(key)) VALUES (NULL)")
            _ = try connection.prepare("UPDATE \(table) SET \(key) = \(key) WHERE 0")
            _ = try connection.prepare("DELETE FROM \(table) WHERE 0")
        }
    }

    /// The integer a one-row query returns (0 when it returns none).
    private static func integer(_ sql: String, on connection: Connection) throws(DatabaseError) -> Int64 {
        let statement = try connection.prepare(sql)
        guard try statement.step(), case let .integer(value) = statement.column(0) else { return 0 }
        return value
    }

    /// Checks, without writing, that a file opened read-only holds a store whose change log
    /// this Roster reads as it is.
    ///
    /// - Throws: ``StoreError/database(_:)`` naming what is missing or which format it holds.
    static func checkFormat(on connection: Connection) throws(StoreError) {
        do throws(DatabaseError) {
            let format = try connection.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
            let current = try format.step() ? format.column(0) : .null
            format.reset()
            guard case let .integer(number) = current, number >= Int64(oldestReadableFormat), number <= Int64(logFormat) else {
                throw DatabaseError(code: .cantOpen, message: "the store's change log has format \(current), but a read-only store needs format \(oldestReadableFormat) to \(logFormat): open it read-write once with this Roster to upgrade it")
            }
        } catch {
            throw .database(error)
        }
    }

    /// Runs a script that holds its own transaction; rolls back when a statement fails.
    private static func run(_ sql: String, on connection: Connection) throws(StoreError) {
        do {
            try connection.execute(sql)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
    }

    /// Reads the entities recorded in the file.
    static func loadEntities(from connection: Connection) throws(StoreError) -> [String: Entity] {
        var entities: [String: Entity] = [:]
        do {
            let statement = try connection.prepare("SELECT name, definition FROM _roster_entities")
            while try statement.step() {
                guard case let .string(name) = statement.column(0), case let .string(definition) = statement.column(1) else {
                    throw StoreError.schemaMismatch(entity: "?", reason: "_roster_entities holds a row that is not text")
                }
                entities[name] = try EntityDefinition.parse(name: name, definition: definition)
            }
        } catch let error as DatabaseError {
            throw .database(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(DatabaseError(code: .error, message: "\(error)"))
        }
        return entities
    }

    /// The index the store keeps on a relationship's column, so that finding the objects
    /// that refer to one costs a search, not a scan; named `_roster_ref_Entity.attribute`
    /// (a dot, which no name holds, so that no two relationships share a name).
    static func relationshipIndex(_ entity: Entity, _ attribute: Attribute) -> String {
        "CREATE INDEX IF NOT EXISTS \(Identifier.quoted("_roster_ref_\(entity.name).\(attribute.name)")) ON \(Identifier.quoted(entity.name))(\(Identifier.quoted(attribute.name)));\n"
    }

    /// Adds the columns `migrated` has beyond `existing` to its table and records the new
    /// definition, in one transaction; when the entity has a change log (its table of
    /// before-images exists), adds them there too and rewrites its triggers in the same
    /// transaction. An entity without one gets it, complete, when it is first watched.
    static func migrate(from existing: Entity, to migrated: Entity, on connection: Connection) throws(StoreError) {
        let table = Identifier.quoted(migrated.name)
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw .database(error)
        }
        let isLogged: Bool
        do {
            // Decided under the write lock: another process may be creating it right now.
            isLogged = try hasTable(named: "_roster_before_\(migrated.name)", on: connection)
        } catch {
            try? connection.execute("ROLLBACK")
            throw .database(error)
        }
        var sql = ""
        for attribute in migrated.attributes where existing.attribute(named: attribute.name) == nil {
            let name = Identifier.quoted(attribute.name)
            var column = "\(name) \(attribute.type.columnType)"
            if attribute.type == .bool { column += " CHECK (\(name) IN (0, 1))" }
            sql += "ALTER TABLE \(table) ADD COLUMN \(column);\n"
        }
        for attribute in migrated.attributes where attribute.relationship != nil && existing.attribute(named: attribute.name)?.relationship == nil {
            sql += relationshipIndex(migrated, attribute)
        }
        if isLogged {
            for attribute in migrated.attributes where existing.attribute(named: attribute.name) == nil {
                sql += "ALTER TABLE \(beforeTable(migrated)) ADD COLUMN \(Identifier.quoted(attribute.name));\n"
            }
            sql += changeLog(for: migrated)
        }
        sql += "UPDATE _roster_entities SET definition = '\(EntityDefinition.describe(migrated))' WHERE name = '\(migrated.name)';\nCOMMIT;"
        try run(sql, on: connection)
    }

    /// The entities (their table names, lowercased) that have at least one of the store's
    /// triggers, read in one pass over `sqlite_schema`.
    static func entitiesWithTriggers(on connection: Connection) throws(DatabaseError) -> Set<String> {
        let statement = try connection.prepare("SELECT DISTINCT lower(tbl_name) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '\\_roster\\_%' ESCAPE '\\'")
        var names: Set<String> = []
        while try statement.step() {
            if case let .string(name) = statement.column(0) { names.insert(name) }
        }
        return names
    }

    /// The entity as the file records it now (another process may have added attributes
    /// since this one loaded it), or nil when the file does not record it.
    static func recordedEntity(named name: String, on connection: Connection) throws(StoreError) -> Entity? {
        let definition: Value
        do {
            let statement = try connection.prepare("SELECT definition FROM _roster_entities WHERE name = ?")
            try statement.bind([.string(name)])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            definition = statement.column(0)
        } catch {
            throw .database(error)
        }
        guard case let .string(text) = definition else {
            throw .schemaMismatch(entity: name, reason: "_roster_entities holds a definition that is not text")
        }
        return try EntityDefinition.parse(name: name, definition: text)
    }

    /// Whether the file has a table or view with this name, in any case (as SQLite compares
    /// names).
    ///
    /// It is looked up by name in the connection's parsed schema, not found by reading
    /// `sqlite_schema`, which has no index and grows with every entity: defining entities
    /// one after another would otherwise read the whole schema table once more each time.
    static func hasTable(named name: String, on connection: Connection) throws(DatabaseError) -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM pragma_table_info(?, 'main') LIMIT 1")
        try statement.bind([.string(name)])
        return try statement.step()
    }

    /// Creates the entity's table and records the entity, in one transaction: one `CREATE`,
    /// so that defining thousands of entities stays fast (SQLite re-reads its whole schema
    /// table for each `CREATE`). The change log comes when the entity is first watched.
    static func create(_ entity: Entity, on connection: Connection) throws(StoreError) {
        let exists: Bool
        do {
            exists = try hasTable(named: entity.name, on: connection)
        } catch {
            throw .database(error)
        }
        if exists {
            throw .schemaMismatch(entity: entity.name, reason: "the file already has a table named '\(entity.name)' that Roster did not create")
        }
        try run("BEGIN IMMEDIATE;\n\(creation(of: entity))COMMIT;", on: connection)
    }

    /// The SQL that creates the entity's table and records it, to run inside a transaction.
    /// Its change log (``changeLog(for:)``) is not part of it: see ``Store/ensureTracking(of:)``.
    ///
    /// SQLite itself spends time in proportion to the size of the schema on each `CREATE`
    /// (it reads `sqlite_schema` again to load the new object), so each definition costs a
    /// little more than the one before; Roster adds nothing that grows with the schema,
    /// and runs one `CREATE` per entity.
    static func creation(of entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let columns = entity.attributes.enumerated().map { index, attribute in
            let name = Identifier.quoted(attribute.name)
            var column = "\(name) \(attribute.type.columnType)"
            if index == entity.keyIndex { column += " NOT NULL PRIMARY KEY" }
            if attribute.type == .bool { column += " CHECK (\(name) IN (0, 1))" }
            return column
        }
        let indexes = entity.attributes.filter { $0.relationship != nil }.map { relationshipIndex(entity, $0) }.joined()
        return """
            CREATE TABLE \(table)(\(columns.joined(separator: ", "))) STRICT;
            \(indexes)INSERT INTO _roster_entities(name, definition) VALUES ('\(entity.name)', '\(EntityDefinition.describe(entity))');

            """
    }
}
