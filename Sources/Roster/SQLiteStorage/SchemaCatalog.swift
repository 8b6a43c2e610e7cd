/// The store's own tables: which entities exist, and the change log their triggers fill.
///
/// - `_roster_entities(name, definition)`: one row per entity, so a reopened file knows
///   its entities (SQLite's column types alone cannot tell `bool` from `integer`).
/// - `_roster_changes(seq, entity, key, batch, changed, old0, old1, …)`: every committed insert,
///   real update and delete appends the keys it touched. Triggers stored in the file do
///   it, so writes from any connection or process are logged too; the store's own
///   connection logs a transaction per entity as one entry with a `batch` instead (see
///   ``ChangeTracker``). An update, delete or replace logged by a trigger holds the row as
///   it was before the write in the columns `old0` … (the entity's attributes in their
///   order; an insert holds none), so a trigger writes one row per key; an update also
///   notes which attributes it changed in `changed` (``changedMaskColumn``), so that a
///   resume need not read the rows whose updates placed nothing. (`changed` came within
///   format 7: a file without it gets it when a store that writes starts a change log,
///   and its older triggers are written again; a Roster of format 7 without it reads
///   such a file as before.) The first entry
///   of a key after a reader's cursor thus tells what the key held at the cursor, so a
///   live query can tell a real change from a value changed and changed back without
///   keeping anything of the row but its sort values. An entity's triggers (its
///   *change log*) exist only once a live query in some process has watched the entity
///   (see ``Store/ensureTracking(of:)``): defining an entity creates its table alone.
///   `seq` is the row id, not `AUTOINCREMENT` (which rewrote a row of `sqlite_sequence`
///   for every logging statement): pruning never deletes the newest entry, so numbers are
///   never reused all the same. Another program may delete entries all the same (`DELETE
///   FROM _roster_changes`): the trigger `_roster_changes_removed` (``removalGuard``)
///   then raises `pruned_through` past what it removed, so that a reader that had not read
///   it re-fetches, and keeps the newest number when the table empties, so that the
///   numbers never go back below a reader's cursor.
/// - `_roster_meta(name, value)`: `pruned_through`, the last log entry that was removed;
///   `log_format`, the version of the triggers and log table the file holds.
enum SchemaCatalog {
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
    /// 5 would miss them, and must refuse the file. 7 keeps a trigger's before-image in its
    /// log row (columns `old0` …) instead of a table per entity, numbers entries by row id
    /// instead of `AUTOINCREMENT`, and drops the partial index: a logged update costs one
    /// insert instead of two, with nothing else to maintain. A Roster that reads format 6
    /// would look for the before-images where they no longer are. 8 logs an insert, or the
    /// row it replaces, with one `BEFORE INSERT` trigger for an entity whose key is not a
    /// row id (three triggers where four were: ``changeLogTriggerKinds(of:)``); the log is
    /// format 7's. A Roster that writes format 7 would take that change log for missing
    /// and write its own triggers beside it — logging inserts twice, or, without the
    /// mask, rewriting them each time this one does — and must refuse the file.
    static let logFormat = 8
    /// The oldest format whose files a read-only store reads as they are: the layout of
    /// before-images changed in format 7, and format 8 logs what format 7 did.
    static let oldestReadableFormat = 7

    /// The column of `_roster_changes` that holds the value of an entity's attribute
    /// number `index` (in the entity's order) before the write an entry logs.
    static func imageColumn(_ index: Int) -> String { "old\(index)" }

    /// Creates the store's tables if the file does not have them yet, and brings the
    /// change log of a file written by an older Roster up to the current log format, in
    /// one transaction that keeps every log entry and before-image (a reader in another
    /// process may not have read them yet): see ``upgradeLog(from:on:)``.
    ///
    /// - Throws: ``StoreError/database(_:)`` for a format newer than ``logFormat`` or one
    ///   no Roster wrote, or a log that is not as its format made it, without changing
    ///   anything.
    static func install(on connection: Connection) throws(StoreError) {
        do throws(DatabaseError) {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS _roster_entities(name TEXT NOT NULL PRIMARY KEY, definition TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS _roster_changes(seq INTEGER PRIMARY KEY, entity TEXT, key, batch BLOB);
                CREATE TABLE IF NOT EXISTS _roster_meta(name TEXT NOT NULL PRIMARY KEY, value);
                INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('pruned_through', 0);
                INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('store_id', lower(hex(randomblob(16))));
                CREATE TABLE IF NOT EXISTS _roster_log_marks(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL);
                """)
            if try formatToUpgrade(on: connection) == nil {
                try connection.execute(removalGuard)
                return
            }
            // Decided again under the write lock: another process opening the file at the
            // same moment may have upgraded it meanwhile.
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw .database(error)
        }
        do throws(StoreError) {
            let format: Int64
            do throws(DatabaseError) {
                guard let older = try formatToUpgrade(on: connection) else {
                    try connection.execute(removalGuard + "COMMIT;")
                    return
                }
                format = older
            } catch {
                throw .database(error)
            }
            try upgradeLog(from: format, on: connection)
            do {
                try connection.execute("INSERT OR REPLACE INTO _roster_meta(name, value) VALUES ('log_format', \(logFormat));\n" + removalGuard + "COMMIT;")
            } catch {
                throw .database(error)
            }
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// The name of the trigger that ``removalGuard`` creates.
    static let removalGuardName = "_roster_changes_removed"

    /// The trigger that makes entries another program deletes a resync rather than a
    /// silent gap. Roster's own pruning raises `pruned_through` before it deletes, so its
    /// deletions do not run the trigger's body. Any other deletion of an entry past
    /// `pruned_through` raises `pruned_through` to that entry: a reader whose cursor was
    /// below it missed it and re-fetches (``ChangeTracker/collect(entities:)``), a reader
    /// that had read it misses nothing. When the table empties, an entry that names no
    /// entity keeps the number of the newest one removed, so that the next entry is
    /// numbered after it (the row id would start again from 1, below every reader's cursor,
    /// and the commits after would never be read). Created with the store's tables, and by
    /// a Roster that opens a file without it; it is not part of the log format, which a
    /// Roster without it reads as before.
    static let removalGuard = """
        CREATE TRIGGER IF NOT EXISTS \(removalGuardName) AFTER DELETE ON _roster_changes
        WHEN OLD.seq > coalesce((SELECT CAST(value AS INTEGER) FROM _roster_meta WHERE name = 'pruned_through'), 0)
            OR NOT EXISTS (SELECT 1 FROM _roster_changes)
        BEGIN
            UPDATE _roster_meta SET value = OLD.seq WHERE name = 'pruned_through' AND coalesce(CAST(value AS INTEGER), 0) < OLD.seq;
            INSERT INTO _roster_changes(seq)
                SELECT max(OLD.seq, coalesce((SELECT CAST(value AS INTEGER) FROM _roster_meta WHERE name = 'pruned_through'), 0))
                WHERE NOT EXISTS (SELECT 1 FROM _roster_changes);
        END;

        """

    /// Whether `_roster_changes` has the column `batch` (format 6 and later).
    static func hasBatchColumn(on connection: Connection) throws(DatabaseError) -> Bool {
        let columns = try tableInfo(of: "_roster_changes", on: connection)
        defer { columns.reset() }
        while try columns.step() {
            if columns.column(1) == .string("batch") { return true }
        }
        return false
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

    /// The integer a one-row query returns (0 when it returns none).
    static func integer(_ sql: String, on connection: Connection) throws(DatabaseError) -> Int64 {
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
            let readable = oldestReadableFormat == logFormat ? "format \(logFormat)" : "format \(oldestReadableFormat) to \(logFormat)"
            switch current {
            case let .integer(number) where number > Int64(logFormat):
                throw DatabaseError(code: .cantOpen, message: "the store's change log has format \(number), written by a newer Roster, but a read-only store of this Roster needs \(readable): open it with a newer Roster")
            case let .integer(number) where number >= Int64(oldestReadableFormat):
                return
            default:
                throw DatabaseError(code: .cantOpen, message: "the store's change log has format \(current), but a read-only store needs \(readable): open it read-write once with this Roster to upgrade it")
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
    /// definition, in one transaction; when the entity has a change log (its triggers
    /// exist), rewrites its triggers in the same transaction, with an image column for each
    /// new attribute. An entity without one gets it, complete, when it is first watched.
    static func migrate(from existing: Entity, to migrated: Entity, on connection: Connection) throws(StoreError) {
        let table = Identifier.quoted(migrated.name)
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw .database(error)
        }
        do throws(StoreError) {
            // Decided under the write lock: the change log's images follow the attributes'
            // order, which must be the one every process reads.
            if let recorded = try recordedEntity(named: migrated.name, on: connection), recorded != existing {
                throw .schemaMismatch(entity: migrated.name, reason: "another process changed its definition since this store read it (now \(EntityDefinition.describe(recorded))); open the store again to migrate from it. Nothing was changed")
            }
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
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
        do {
            // Decided under the write lock: another process may be creating it right now.
            if try entitiesWithTriggers(on: connection).contains(migrated.name.lowercased()) {
                sql += try changeLogs(for: [migrated], on: connection)
            }
        } catch {
            try? connection.execute("ROLLBACK")
            throw .database(error)
        }
        sql += "UPDATE _roster_entities SET definition = '\(EntityDefinition.describe(migrated))' WHERE name = '\(migrated.name)';\nCOMMIT;"
        try run(sql, on: connection)
    }

    /// The entities (their table names, lowercased) that have at least one of the store's
    /// triggers, read in one pass over `sqlite_schema`.
    static func entitiesWithTriggers(on connection: Connection) throws(DatabaseError) -> Set<String> {
        let statement = try connection.prepare("SELECT DISTINCT lower(tbl_name) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '\\_roster\\_%' ESCAPE '\\' AND lower(tbl_name) <> '_roster_changes'")
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
        let statement = try tableInfo(of: name, on: connection)
        defer { statement.reset() }
        return try statement.step()
    }

    /// The columns of the table `name` in `main`, one row each as `PRAGMA table_info` gives
    /// them: `cid`, `name`, `type`, `notnull`, `dflt_value`, `pk`; no row when there is no
    /// such table.
    ///
    /// The pragma itself for a name that is an identifier (as every entity's is): preparing
    /// the `pragma_table_info` table costs five times as much, on every definition and every
    /// new store's first watch. A pragma takes no bound value, so any other name is bound
    /// to the table form.
    static func tableInfo(of name: String, on connection: Connection) throws(DatabaseError) -> Statement {
        if Identifier.isValid(name) { return try connection.prepare("PRAGMA main.table_info(\(Identifier.quoted(name)))") }
        let statement = try connection.prepare("SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?, 'main')")
        try statement.bind([.string(name)])
        return statement
    }

    /// Whether the table `name` in `main` is `STRICT`; nil when there is no such table. As
    /// ``tableInfo(of:on:)``: the pragma itself for an identifier, a sixth of the table's cost.
    static func isStrictTable(_ name: String, on connection: Connection) throws(DatabaseError) -> Bool? {
        let statement: Statement
        if Identifier.isValid(name) {
            // Columns: schema, name, type, ncol, wr, strict.
            statement = try connection.prepare("PRAGMA main.table_list(\(Identifier.quoted(name)))")
        } else {
            statement = try connection.prepare("SELECT schema, name, type, ncol, wr, strict FROM pragma_table_list(?) WHERE schema = 'main'")
            try statement.bind([.string(name)])
        }
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.column(5) != .integer(0)
    }

    /// Creates the tables of new entities and records them, all in one transaction: one
    /// `CREATE` each and one schema change for all, so that defining thousands of entities
    /// stays fast (SQLite re-reads its whole schema table for each `CREATE`, and every
    /// other connection reads the whole schema again after each schema change). The
    /// change logs come when the entities are first watched.
    ///
    /// - Returns: the schema version before and after the change, both read under the
    ///   write lock: a caller that knew the version before knows that nobody else changed
    ///   the schema meanwhile.
    /// - Throws: ``StoreError`` naming the first entity whose name is taken, in any case,
    ///   by a table or an entity another process defined; nothing is created then.
    static func create(_ entities: [Entity], on connection: Connection) throws(StoreError) -> (before: Int64, after: Int64) {
        do {
            // Another process may have defined one since this store read the entities.
            let clashes = try recordedNames(differingInCaseFrom: entities, on: connection)
            for entity in entities {
                if let clash = clashes[entity.name] {
                    throw StoreError.schema(.caseClash(entity.name, with: clash))
                }
                if try hasTable(named: entity.name, on: connection) {
                    throw StoreError.schemaMismatch(entity: entity.name, reason: "the file already has a table named '\(entity.name)' that Roster did not create")
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(error as? DatabaseError ?? DatabaseError(code: .error, message: "\(error)"))
        }
        do {
            try connection.execute("BEGIN IMMEDIATE")
            let before = try connection.schemaVersion()
            for entity in entities { try connection.execute(creation(of: entity)) }
            let after = try connection.schemaVersion()
            try connection.execute("COMMIT")
            return (before, after)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
    }

    /// The recorded entities whose names differ only in case from those of `entities`, by
    /// the name they clash with: for one entity, one search of `_roster_entities` (as a
    /// store that defines entities one by one does) — a walk of its index of names, which
    /// `lower(name)` cannot seek: a page per 200 entities or so; for a batch, one pass over
    /// it rather than one per entity.
    private static func recordedNames(differingInCaseFrom entities: [Entity], on connection: Connection) throws(DatabaseError) -> [String: String] {
        if let entity = entities.first, entities.count == 1 {
            let statement = try connection.prepare("SELECT name FROM _roster_entities WHERE lower(name) = lower(?) AND name <> ?")
            try statement.bind([.string(entity.name), .string(entity.name)])
            guard try statement.step(), case let .string(name) = statement.column(0) else { return [:] }
            return [entity.name: name]
        }
        let wanted = Dictionary(entities.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { first, _ in first })
        let statement = try connection.prepare("SELECT name FROM _roster_entities")
        var clashes: [String: String] = [:]
        while try statement.step() {
            guard case let .string(name) = statement.column(0), let entity = wanted[name.lowercased()], entity != name else { continue }
            clashes[entity] = name
        }
        return clashes
    }

    /// The SQL that creates the entity's table and records it, to run inside a transaction.
    /// Its change log (``changeLogs(for:on:)``) is not part of it: see ``Store/ensureTracking(of:)``.
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
