/// The store's own tables: which entities exist, and the change log their triggers fill.
///
/// - `_roster_entities(name, definition)`: one row per entity, so a reopened file knows
///   its entities (SQLite's column types alone cannot tell `bool` from `integer`).
/// - `_roster_changes(seq, entity, key)`: every committed insert, real update and delete
///   appends the keys it touched. Triggers stored in the file do it, so writes from any
///   connection or process are logged too. See ``ChangeTracker``.
/// - `_roster_before_<Entity>(seq, <the entity's columns>)`: the row as it was before the
///   write logged at `seq`, for updates and deletes (an insert has no before-image). The
///   first entry of a key after a reader's cursor thus tells what the key held at the
///   cursor, so a live query can tell a real change from a value changed and changed back
///   without keeping anything of the row but its sort values.
/// - `_roster_meta(name, value)`: `pruned_through`, the last log entry that was removed;
///   `log_format`, the version of the triggers the file holds.
enum SchemaCatalog {
    static let changesTable = "_roster_changes"
    /// The version of the change-log triggers: 2 logs before-images.
    static let logFormat = 2

    /// The table of before-images of `entity`.
    static func beforeTable(_ entity: Entity) -> String { Identifier.quoted("_roster_before_\(entity.name)") }

    /// Creates the store's tables if the file does not have them yet, and brings the
    /// triggers of a file written by an older Roster up to the current log format.
    static func install(on connection: Connection) throws(StoreError) {
        do {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS _roster_entities(name TEXT NOT NULL PRIMARY KEY, definition TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS _roster_changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, entity TEXT NOT NULL, key);
                CREATE TABLE IF NOT EXISTS _roster_meta(name TEXT NOT NULL PRIMARY KEY, value);
                INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('pruned_through', 0);
                """)
            let format = try connection.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
            let current = try format.step() ? format.column(0) : .null
            format.reset()
            if current == .integer(Int64(logFormat)) { return }
        } catch {
            throw .database(error)
        }
        var sql = "BEGIN IMMEDIATE;\n"
        for entity in try loadEntities(from: connection).values.sorted(by: { $0.name < $1.name }) {
            sql += changeLog(for: entity)
        }
        sql += "INSERT OR REPLACE INTO _roster_meta(name, value) VALUES ('log_format', \(logFormat));\nCOMMIT;"
        try run(sql, on: connection)
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
                entities[name] = try parse(name: name, definition: definition)
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

    /// A definition as stored: `key=id;id:string,title:string,…`.
    static func describe(_ entity: Entity) -> String {
        "key=\(entity.key.name);" + entity.attributes.map { "\($0.name):\($0.type.rawValue)" }.joined(separator: ",")
    }

    private static func parse(name: String, definition: String) throws(StoreError) -> Entity {
        let parts = definition.split(separator: ";", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].hasPrefix("key=") else {
            throw .schemaMismatch(entity: name, reason: "unreadable definition '\(definition)' in _roster_entities")
        }
        var attributes: [Attribute] = []
        for field in parts[1].split(separator: ",") {
            let pair = field.split(separator: ":").map(String.init)
            guard pair.count == 2, let type = AttributeType(rawValue: pair[1]) else {
                throw .schemaMismatch(entity: name, reason: "unreadable attribute '\(field)' in _roster_entities")
            }
            attributes.append(Attribute(pair[0], type))
        }
        do {
            return try Entity(name, key: String(parts[0].dropFirst(4)), attributes: attributes)
        } catch {
            throw .schema(error)
        }
    }

    /// The entity that results from migrating `existing` to `wanted`: the existing
    /// attributes, then those `wanted` adds.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` unless `wanted` has every
    ///   existing attribute with the same type, and the same key.
    static func migration(from existing: Entity, to wanted: Entity) throws(StoreError) -> Entity {
        guard existing.key.name == wanted.key.name else {
            throw .schemaMismatch(entity: wanted.name, reason: "its key is '\(existing.key.name)' in the database, not '\(wanted.key.name)'")
        }
        for attribute in existing.attributes {
            guard let match = wanted.attribute(named: attribute.name) else {
                throw .schemaMismatch(entity: wanted.name, reason: "attribute '\(attribute.name)' is in the database but not in the new definition; Roster does not drop columns (their data would be lost)")
            }
            guard match.type == attribute.type else {
                throw .schemaMismatch(entity: wanted.name, reason: "attribute '\(attribute.name)' is \(attribute.type.rawValue) in the database, not \(match.type.rawValue); Roster does not convert stored values")
            }
        }
        let added = wanted.attributes.filter { existing.attribute(named: $0.name) == nil }
        do {
            return try Entity(existing.name, key: existing.key.name, attributes: existing.attributes + added)
        } catch {
            throw .schema(error)
        }
    }

    /// Adds the columns `migrated` has beyond `existing` (to its table and its table of
    /// before-images), and rewrites the triggers and the recorded definition, in one
    /// transaction.
    static func migrate(from existing: Entity, to migrated: Entity, on connection: Connection) throws(StoreError) {
        let table = Identifier.quoted(migrated.name)
        var sql = "BEGIN IMMEDIATE;\n"
        for attribute in migrated.attributes where existing.attribute(named: attribute.name) == nil {
            let name = Identifier.quoted(attribute.name)
            var column = "\(name) \(attribute.type.columnType)"
            if attribute.type == .bool { column += " CHECK (\(name) IN (0, 1))" }
            sql += "ALTER TABLE \(table) ADD COLUMN \(column);\n"
        }
        for attribute in migrated.attributes where existing.attribute(named: attribute.name) == nil {
            sql += "ALTER TABLE \(beforeTable(migrated)) ADD COLUMN \(Identifier.quoted(attribute.name));\n"
        }
        sql += changeLog(for: migrated)
        sql += "UPDATE _roster_entities SET definition = '\(describe(migrated))' WHERE name = '\(migrated.name)';\nCOMMIT;"
        try run(sql, on: connection)
    }

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
    /// Each before-image row takes the `seq` of the log entry just written
    /// (`last_insert_rowid()` inside a trigger is the trigger's own last insert).
    static func changeLog(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let before = beforeTable(entity)
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        let log = "INSERT INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let saveOld = "INSERT INTO \(before)(seq, \(names.joined(separator: ", "))) VALUES (last_insert_rowid(), \(names.map { "OLD.\($0)" }.joined(separator: ", ")));"
        let changed = names.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        var sql = ""
        for kind in ["insert", "replace", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS \(trigger(kind));\n" }
        sql += "CREATE TABLE IF NOT EXISTS \(before)(seq INTEGER PRIMARY KEY, \(names.joined(separator: ", ")));\n"
        sql += """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key)); END;
            CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                \(log) NEW.\(key));
                INSERT INTO \(before)(seq, \(names.joined(separator: ", "))) SELECT last_insert_rowid(), \(names.joined(separator: ", ")) FROM \(table) WHERE \(key) = NEW.\(key);
            END;
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(table) WHEN \(changed) BEGIN
                \(log) OLD.\(key));
                \(saveOld)
                INSERT INTO _roster_changes(entity, key) SELECT '\(entity.name)', NEW.\(key) WHERE NEW.\(key) IS NOT OLD.\(key);
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(table) BEGIN \(log) OLD.\(key)); \(saveOld) END;

            """
        return sql
    }

    /// Creates the entity's table and change-log triggers, and records the entity, in one transaction.
    static func create(_ entity: Entity, on connection: Connection) throws(StoreError) {
        let table = Identifier.quoted(entity.name)
        let exists: Bool
        do {
            let statement = try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE")
            try statement.bind([.string(entity.name)])
            exists = try statement.step()
        } catch {
            throw .database(error)
        }
        if exists {
            throw .schemaMismatch(entity: entity.name, reason: "the file already has a table named '\(entity.name)' that Roster did not create")
        }
        let columns = entity.attributes.enumerated().map { index, attribute in
            let name = Identifier.quoted(attribute.name)
            var column = "\(name) \(attribute.type.columnType)"
            if index == entity.keyIndex { column += " NOT NULL PRIMARY KEY" }
            if attribute.type == .bool { column += " CHECK (\(name) IN (0, 1))" }
            return column
        }
        let sql = """
            BEGIN IMMEDIATE;
            CREATE TABLE \(table)(\(columns.joined(separator: ", "))) STRICT;
            \(changeLog(for: entity))INSERT INTO _roster_entities(name, definition) VALUES ('\(entity.name)', '\(describe(entity))');
            COMMIT;
            """
        try run(sql, on: connection)
    }
}
