/// Bringing the change log of a file written by an older Roster to the current format.
extension SchemaCatalog {
    /// Brings a change log in format 1 to 7 to format 8, inside the caller's write
    /// transaction, keeping every entry and before-image (a reader in another process may
    /// not have read them yet):
    ///
    /// - the store's triggers are dropped (they name the tables this replaces) and those of
    ///   every entity that had them are written again, as format 8 makes them (for a
    ///   format 7 file, that is all there is to do);
    /// - `_roster_changes` is rebuilt as format 7 has it — `seq` the row id rather than
    ///   `AUTOINCREMENT`, no `NOT NULL`, no partial index, the columns `old0` … — with
    ///   every entry under its `seq`; each before-image (formats 2 to 6 kept them in a table
    ///   `_roster_before_<Entity>`, keyed by `seq` in format 2 and `_roster_seq` after)
    ///   moves into its entry's row, and those tables are dropped;
    /// - when pruning had removed the newest entries, an entry that names no entity keeps
    ///   the newest number, so that no number is ever given out twice (what
    ///   `AUTOINCREMENT` promised; format 7's pruning never deletes the newest entry).
    ///
    /// A file that is not as its format made it (a before-image table without its key
    /// column, or without a column of its entity) is refused with what is wrong; the
    /// caller's rollback leaves it as it was.
    static func upgradeLog(from format: Int64, on connection: Connection) throws(StoreError) {
        let entities = try loadEntities(from: connection).values.sorted(by: { $0.name < $1.name })
        do throws(DatabaseError) {
            let triggered = try entitiesWithTriggers(on: connection)
            let logged = entities.filter { triggered.contains($0.name.lowercased()) }
            let images = try beforeImageTables(of: entities, format: format, on: connection)
            let isCurrentTable = try integer("""
                SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '_roster_changes'
                AND sql NOT LIKE '%AUTOINCREMENT%' AND sql NOT LIKE '%NOT NULL%'
                """, on: connection) == 1
            let hasBatches = try hasBatchColumn(on: connection)
            if !isCurrentTable || !images.isEmpty || !hasBatches {
                let width = (logged + images.map(\.entity)).map(\.attributes.count).max() ?? 0
                try rebuildChangesTable(moving: images, width: width, keepingBatches: hasBatches, on: connection)
            }
            try connection.execute(changeLogs(for: logged, on: connection))
        } catch where error.message.hasSuffix("nothing was changed") {
            throw .database(error)
        } catch {
            throw .database(DatabaseError(code: .cantOpen, extendedCode: error.extendedCode,
                                          message: "cannot upgrade the change log from format \(format) to \(logFormat): \(error.message); nothing was changed",
                                          sql: error.sql))
        }
    }

    /// The tables of before-images an older format holds, each with its entity and the
    /// column that holds its entries' `seq`.
    private static func beforeImageTables(of entities: [Entity], format: Int64, on connection: Connection)
        throws(DatabaseError) -> [(entity: Entity, table: String, sequence: String)] {
        let sequence = format == 2 ? "seq" : "_roster_seq"
        var tables: [(entity: Entity, table: String, sequence: String)] = []
        for entity in entities {
            let name = "_roster_before_\(entity.name)"
            guard try hasTable(named: name, on: connection) else { continue }
            let columns = try tableInfo(of: name, on: connection)
            defer { columns.reset() }
            var hasKey = false
            while try columns.step() {
                if columns.column(1) == .string(sequence) && columns.column(5) == .integer(1) { hasKey = true }
            }
            guard hasKey else {
                throw DatabaseError(code: .cantOpen, message: "cannot upgrade the change log of entity \(entity.name) from format \(format): its table of before-images \(name) has no key column '\(sequence)', as that format made it; nothing was changed")
            }
            tables.append((entity, Identifier.quoted(name), sequence))
        }
        return tables
    }

    /// Rebuilds `_roster_changes` in format 7 with `width` image columns (as many as the
    /// widest entity that is logged or has before-images), moving those into their
    /// entries' rows; `keepingBatches` when the old table has the column `batch`.
    private static func rebuildChangesTable(moving images: [(entity: Entity, table: String, sequence: String)],
                                            width: Int, keepingBatches: Bool, on connection: Connection) throws(DatabaseError) {
        var sql = ""
        let triggers = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '\\_roster\\_%' ESCAPE '\\'")
        while try triggers.step() {
            if case let .string(name) = triggers.column(0) { sql += "DROP TRIGGER \(Identifier.quoted(name));\n" }
        }
        let columns = (0..<width).map { ", \(imageColumn($0))" }.joined()
        let batch = keepingBatches ? "batch" : "NULL"
        sql += """
            CREATE TABLE _roster_changes_upgrade(seq INTEGER PRIMARY KEY, entity TEXT, key, batch BLOB\(columns));
            INSERT INTO _roster_changes_upgrade(seq, entity, key, batch) SELECT seq, entity, key, \(batch) FROM _roster_changes;

            """
        try connection.execute(sql)
        for (entity, table, sequence) in images {
            let targets = entity.attributes.indices.map(imageColumn).joined(separator: ", ")
            let values = entity.attributes.map { "b.\(Identifier.quoted($0.name))" }.joined(separator: ", ")
            do {
                try connection.execute("""
                    UPDATE _roster_changes_upgrade SET (\(targets)) = (\(values))
                    FROM \(table) AS b WHERE _roster_changes_upgrade.seq = b.\(Identifier.quoted(sequence))
                    """)
            } catch {
                throw DatabaseError(code: .cantOpen, message: "cannot upgrade the change log of entity \(entity.name): its before-images in \(table) cannot be moved into the log (\(error.message)); nothing was changed")
            }
        }
        // The newest number given out: the log's own, or, when pruning removed the newest
        // entries, what `AUTOINCREMENT` remembers (no entry was ever logged without it).
        var newest: Int64 = 0
        if try hasTable(named: "sqlite_sequence", on: connection) {
            newest = try integer("SELECT seq FROM sqlite_sequence WHERE name = '_roster_changes'", on: connection)
        }
        let logged = try integer("SELECT coalesce(max(seq), 0) FROM _roster_changes_upgrade", on: connection)
        if newest > logged {
            try connection.execute("INSERT INTO _roster_changes_upgrade(seq) VALUES (\(newest))")
        }
        // Renamed as SQLite did before 3.26 (`legacy_alter_table`): without re-checking every
        // view and trigger, so that a view of the user's that reads `_roster_changes` (and
        // will find it again under that name) does not fail the upgrade.
        try connection.execute("DROP TABLE _roster_changes;\n" + images.map { "DROP TABLE \($0.table);\n" }.joined())
        try connection.execute("PRAGMA legacy_alter_table = ON")
        defer { try? connection.execute("PRAGMA legacy_alter_table = OFF") }
        try connection.execute("ALTER TABLE _roster_changes_upgrade RENAME TO _roster_changes")
    }
}
