/// The writing side of the change log: the four triggers that fill `_roster_changes` for
/// an entity. ``ChangeTracker`` reads what they write, and
/// ``SQLiteStorage/checkSchema(of:observed:)`` puts them back when another process dropped
/// them; the three live in this folder, SQLite's backend, so that both sides of the log
/// are read together.
extension SchemaCatalog {
    /// The change logs of `entities` — each entity's four triggers, replacing those of an
    /// older format, and the image columns of `_roster_changes` the widest of them needs
    /// that the table lacks — as SQL to run in the same write transaction as this read.
    static func changeLogs(for entities: [Entity], on connection: Connection) throws(DatabaseError) -> String {
        let width = try imageColumnCount(on: connection)
        let needed = entities.map(\.attributes.count).max() ?? 0
        var sql = (width..<max(width, needed)).map { "ALTER TABLE _roster_changes ADD COLUMN \(imageColumn($0));\n" }.joined()
        for entity in entities { sql += changeLog(for: entity) }
        return sql
    }

    /// How many image columns (`old0` …) `_roster_changes` has.
    static func imageColumnCount(on connection: Connection) throws(DatabaseError) -> Int {
        Int(try integer("SELECT count(*) FROM pragma_table_info('_roster_changes', 'main') WHERE name GLOB 'old[0-9]*'", on: connection))
    }

    /// The four triggers that fill the change log of `entity` (replacing those of an older
    /// format), as SQL to run inside a transaction; `_roster_changes` must have an image
    /// column for each attribute, which is why callers go through ``changeLogs(for:on:)``.
    ///
    /// - insert: logs the key, with no before-image (the key did not exist);
    /// - replace (BEFORE INSERT, only when the key exists, as `INSERT OR REPLACE` does
    ///   without firing the delete trigger): logs the key with the row it replaces;
    /// - update, only when some value changes: logs the old key with the old row, and a
    ///   new key (when the key itself changed) with no before-image;
    /// - delete: logs the key with the old row.
    ///
    /// Each writes with `INSERT OR IGNORE` into a table without constraints: nothing in it
    /// can fail, so it adds no statement journal of its own to the writer's statement. That
    /// text is also how ``hasChangeLog(of:on:)`` and the schema check tell these triggers
    /// from an older format's (``currentTriggerMark``).
    private static func changeLog(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        let images = entity.attributes.indices.map(imageColumn).joined(separator: ", ")
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        let log = "INSERT OR IGNORE INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let logWithImage = "INSERT OR IGNORE INTO _roster_changes(entity, key, \(images))"
        let old = names.map { "OLD.\($0)" }.joined(separator: ", ")
        // By bytes, whatever collation another process gave the column: `'a'` to `'A'` is a
        // change (the contract orders text by bytes).
        let changed = names.map { "OLD.\($0) IS NOT NEW.\($0) COLLATE BINARY" }.joined(separator: " OR ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        var sql = ""
        for kind in ["insert", "replace", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS \(trigger(kind));\n" }
        sql += """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key)); END;
            CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                \(logWithImage) SELECT '\(entity.name)', NEW.\(key), \(names.joined(separator: ", ")) FROM \(table) WHERE \(key) = NEW.\(key);
            END;
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(table) WHEN \(changed) BEGIN
                \(logWithImage) VALUES ('\(entity.name)', OLD.\(key), \(old));
                INSERT OR IGNORE INTO _roster_changes(entity, key) SELECT '\(entity.name)', NEW.\(key) WHERE NEW.\(key) IS NOT OLD.\(key) COLLATE BINARY;
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(table) BEGIN \(logWithImage) VALUES ('\(entity.name)', OLD.\(key), \(old)); END;

            """
        return sql
    }

    /// Text that every trigger of the current format holds and no older format's does
    /// (they inserted without `OR IGNORE`). An older Roster still open on the file when it
    /// was upgraded puts its own triggers back when it misses its table of before-images;
    /// ``hasChangeLog(of:on:)`` and the schema check then take the entity's change log for
    /// missing, and write the current one again.
    static let currentTriggerMark = "INSERT OR IGNORE INTO _roster_changes"

    /// The names of the triggers that make up an entity's change log, lowercased, as
    /// SQLite compares names.
    static func changeLogObjectNames(of entity: Entity) -> [String] {
        ["insert", "replace", "update", "delete"].map { "_roster_\(entity.name)_\($0)".lowercased() }
    }

    /// Whether the file holds the entity's whole change log (four triggers of the current
    /// format, and an image column in `_roster_changes` for each attribute), as the
    /// connection sees it.
    ///
    /// Triggers can only be found in `sqlite_schema`, which has no index: this reads the
    /// whole schema table. The store looks change logs up in the names it keeps
    /// (``ChangeLogNames``) instead, and reads them once per schema change by another
    /// connection, not once per entity.
    static func hasChangeLog(of entity: Entity, on connection: Connection) throws(DatabaseError) -> Bool {
        let version = try connection.schemaVersion()
        let names = try ChangeLogNames.read(on: connection, version: version)
        guard names.hasTriggers(of: entity) else { return false }
        return try imageColumnCount(on: connection) >= entity.attributes.count
    }
}
