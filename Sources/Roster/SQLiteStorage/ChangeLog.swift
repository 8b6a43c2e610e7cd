/// The writing side of the change log: the table of before-images and the four triggers
/// that fill `_roster_changes` for an entity. ``ChangeTracker`` reads what they write, and
/// ``SQLiteStorage/checkSchema(of:observed:)`` puts them back when another process dropped
/// them; the three live in this folder, SQLite's backend, so that both sides of the log
/// are read together.
extension SchemaCatalog {
    /// The table of before-images (unless it exists) and the four triggers that fill the
    /// change log (replacing those of an older format), as SQL to run inside a transaction.
    ///
    /// - insert: logs the key, with no before-image (the key did not exist);
    /// - replace (BEFORE INSERT, only when the key exists, as `INSERT OR REPLACE` does
    ///   without firing the delete trigger): logs the key with the row it replaces;
    /// - update, only when some value changes: logs the old key with the old row, and a
    ///   new key (when the key itself changed) with no before-image;
    /// - delete: logs the key with the old row.
    ///
    /// Each before-image row takes the `seq` of the log entry just written, as its
    /// `_roster_seq` (`last_insert_rowid()` inside a trigger is the trigger's own last insert).
    static func changeLog(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let before = beforeTable(entity)
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        let log = "INSERT INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let saveOld = "INSERT INTO \(before)(\(beforeSequenceColumn), \(names.joined(separator: ", "))) VALUES (last_insert_rowid(), \(names.map { "OLD.\($0)" }.joined(separator: ", ")));"
        // By bytes, whatever collation another process gave the column: `'a'` to `'A'` is a
        // change (the contract orders text by bytes).
        let changed = names.map { "OLD.\($0) IS NOT NEW.\($0) COLLATE BINARY" }.joined(separator: " OR ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        var sql = ""
        for kind in ["insert", "replace", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS \(trigger(kind));\n" }
        sql += "CREATE TABLE IF NOT EXISTS \(before)(\(beforeSequenceColumn) INTEGER PRIMARY KEY, \(names.joined(separator: ", ")));\n"
        sql += """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key)); END;
            CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                \(log) NEW.\(key));
                INSERT INTO \(before)(\(beforeSequenceColumn), \(names.joined(separator: ", "))) SELECT last_insert_rowid(), \(names.joined(separator: ", ")) FROM \(table) WHERE \(key) = NEW.\(key);
            END;
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(table) WHEN \(changed) BEGIN
                \(log) OLD.\(key));
                \(saveOld)
                INSERT INTO _roster_changes(entity, key) SELECT '\(entity.name)', NEW.\(key) WHERE NEW.\(key) IS NOT OLD.\(key) COLLATE BINARY;
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(table) BEGIN \(log) OLD.\(key)); \(saveOld) END;

            """
        return sql
    }

    /// The names of the objects that make up an entity's change log — its four triggers
    /// and its table of before-images — lowercased, as SQLite compares names.
    static func changeLogObjectNames(of entity: Entity) -> [String] {
        ["insert", "replace", "update", "delete"].map { "_roster_\(entity.name)_\($0)".lowercased() }
            + ["_roster_before_\(entity.name)".lowercased()]
    }

    /// Whether the file holds the entity's whole change log (four triggers and the table of
    /// before-images), as the connection sees it.
    ///
    /// Triggers can only be found in `sqlite_schema`, which has no index: this reads the
    /// whole schema table once, so call it once per entity (when it is first watched), not
    /// per delivery.
    static func hasChangeLog(of entity: Entity, on connection: Connection) throws(DatabaseError) -> Bool {
        let names = changeLogObjectNames(of: entity)
        let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type IN ('trigger', 'table') AND lower(name) IN (?, ?, ?, ?, ?)")
        try statement.bind(names.map { .string($0) })
        defer { statement.reset() }
        guard try statement.step(), case let .integer(count) = statement.column(0) else { return false }
        return count == Int64(names.count)
    }
}
