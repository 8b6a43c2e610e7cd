/// The store's own tables: which entities exist, and the change log their triggers fill.
///
/// - `_roster_entities(name, definition)`: one row per entity, so a reopened file knows
///   its entities (SQLite's column types alone cannot tell `bool` from `integer`).
/// - `_roster_changes(seq, entity, key)`: every committed insert, real update and delete
///   appends the keys it touched. Triggers stored in the file do it, so writes from any
///   connection or process are logged too. See ``ChangeTracker``.
/// - `_roster_meta(name, value)`: `pruned_through`, the last log entry that was removed.
enum SchemaCatalog {
    static let changesTable = "_roster_changes"

    /// Creates the store's tables if the file does not have them yet.
    static func install(on connection: Connection) throws(DatabaseError) {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS _roster_entities(name TEXT NOT NULL PRIMARY KEY, definition TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS _roster_changes(seq INTEGER PRIMARY KEY AUTOINCREMENT, entity TEXT NOT NULL, key);
            CREATE TABLE IF NOT EXISTS _roster_meta(name TEXT NOT NULL PRIMARY KEY, value);
            INSERT OR IGNORE INTO _roster_meta(name, value) VALUES ('pruned_through', 0);
            """)
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

    /// Adds the columns `migrated` has beyond `existing`, and rewrites the update trigger
    /// and the recorded definition, in one transaction.
    static func migrate(from existing: Entity, to migrated: Entity, on connection: Connection) throws(StoreError) {
        let table = Identifier.quoted(migrated.name)
        var sql = "BEGIN IMMEDIATE;\n"
        for attribute in migrated.attributes where existing.attribute(named: attribute.name) == nil {
            let name = Identifier.quoted(attribute.name)
            var column = "\(name) \(attribute.type.columnType)"
            if attribute.type == .bool { column += " CHECK (\(name) IN (0, 1))" }
            sql += "ALTER TABLE \(table) ADD COLUMN \(column);\n"
        }
        sql += "DROP TRIGGER IF EXISTS \(Identifier.quoted("_roster_\(migrated.name)_update"));\n"
        sql += updateTrigger(for: migrated) + "\n"
        sql += "UPDATE _roster_entities SET definition = '\(describe(migrated))' WHERE name = '\(migrated.name)';\nCOMMIT;"
        do {
            try connection.execute(sql)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
    }

    /// The trigger that logs real updates: only when some value changes.
    private static func updateTrigger(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let changed = entity.attributes.map { "OLD.\(Identifier.quoted($0.name)) IS NOT NEW.\(Identifier.quoted($0.name))" }
        return """
            CREATE TRIGGER \(Identifier.quoted("_roster_\(entity.name)_update")) AFTER UPDATE ON \(table) WHEN \(changed.joined(separator: " OR ")) BEGIN
                INSERT INTO _roster_changes(entity, key) VALUES ('\(entity.name)', OLD.\(key));
                INSERT INTO _roster_changes(entity, key) SELECT '\(entity.name)', NEW.\(key) WHERE NEW.\(key) IS NOT OLD.\(key);
            END;
            """
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
        let key = Identifier.quoted(entity.key.name)
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        let log = "INSERT INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let trigger = Identifier.quoted("_roster_\(entity.name)")
        let sql = """
            BEGIN IMMEDIATE;
            CREATE TABLE \(table)(\(columns.joined(separator: ", "))) STRICT;
            CREATE TRIGGER \(trigger.dropLast())_insert" AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key)); END;
            CREATE TRIGGER \(trigger.dropLast())_delete" AFTER DELETE ON \(table) BEGIN \(log) OLD.\(key)); END;
            \(updateTrigger(for: entity))
            INSERT INTO _roster_entities(name, definition) VALUES ('\(entity.name)', '\(describe(entity))');
            COMMIT;
            """
        do {
            try connection.execute(sql)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw .database(error)
        }
    }
}
