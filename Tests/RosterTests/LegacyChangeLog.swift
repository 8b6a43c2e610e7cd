import Foundation
@testable import Roster

/// Store files as older Rosters left them, made from a file this Roster wrote: what the
/// upgrade tests open.
enum LegacyChangeLog {
    /// Rewrites the change log of the store file at `path` as format 6 had it:
    /// `_roster_changes` with `AUTOINCREMENT` (its counter at the newest entry), a partial
    /// index on batches, a table of before-images per entity that has triggers (the images
    /// moved there from the log's rows), and format 6's triggers.
    static func makeFormat6(at path: String) throws {
        let connection = try Connection(path: path)
        defer { connection.close() }
        let (entities, dropping) = try triggersToReplace(on: connection)
        var sql = "BEGIN IMMEDIATE;\n" + dropping
        sql += """
            CREATE TABLE _roster_changes6(seq INTEGER PRIMARY KEY AUTOINCREMENT, entity TEXT NOT NULL, key, batch BLOB);
            INSERT INTO _roster_changes6(seq, entity, key, batch) SELECT seq, entity, key, batch FROM _roster_changes WHERE entity IS NOT NULL;

            """
        for entity in entities {
            let names = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
            let images = entity.attributes.indices.map(SchemaCatalog.imageColumn).joined(separator: ", ")
            sql += """
                CREATE TABLE "_roster_before_\(entity.name)"(_roster_seq INTEGER PRIMARY KEY, \(names));
                INSERT INTO "_roster_before_\(entity.name)"(_roster_seq, \(names))
                    SELECT seq, \(images) FROM _roster_changes WHERE entity = '\(entity.name)' AND \(SchemaCatalog.imageColumn(entity.keyIndex)) IS NOT NULL;

                """
        }
        sql += """
            DROP TABLE _roster_changes;
            ALTER TABLE _roster_changes6 RENAME TO _roster_changes;
            DELETE FROM sqlite_sequence WHERE name = '_roster_changes';
            INSERT INTO sqlite_sequence(name, seq) SELECT '_roster_changes', coalesce(max(seq), 0) FROM _roster_changes;
            CREATE INDEX _roster_changes_batches ON _roster_changes(entity, seq) WHERE batch IS NOT NULL;

            """
        for entity in entities { sql += format6Triggers(for: entity) }
        sql += "UPDATE _roster_meta SET value = 6 WHERE name = 'log_format';\nCOMMIT;"
        try connection.execute(sql)
    }

    /// The four triggers of format 6, as it wrote them.
    static func format6Triggers(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let before = Identifier.quoted("_roster_before_\(entity.name)")
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        let log = "INSERT INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let saveOld = "INSERT INTO \(before)(_roster_seq, \(names.joined(separator: ", "))) VALUES (last_insert_rowid(), \(names.map { "OLD.\($0)" }.joined(separator: ", ")));"
        let changed = names.map { "OLD.\($0) IS NOT NEW.\($0) COLLATE BINARY" }.joined(separator: " OR ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        return """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key)); END;
            CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                \(log) NEW.\(key));
                INSERT INTO \(before)(_roster_seq, \(names.joined(separator: ", "))) SELECT last_insert_rowid(), \(names.joined(separator: ", ")) FROM \(table) WHERE \(key) = NEW.\(key);
            END;
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(table) WHEN \(changed) BEGIN
                \(log) OLD.\(key));
                \(saveOld)
                INSERT INTO _roster_changes(entity, key) SELECT '\(entity.name)', NEW.\(key) WHERE NEW.\(key) IS NOT OLD.\(key) COLLATE BINARY;
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(table) BEGIN \(log) OLD.\(key)); \(saveOld) END;

            """
    }

    /// Rewrites the change logs of the store file at `path` as log format 7 had them
    /// before the update trigger noted what it changed: no column `changed`, and the
    /// triggers of then.
    static func makeFormat7WithoutMask(at path: String) throws {
        let connection = try Connection(path: path)
        defer { connection.close() }
        let (entities, dropping) = try triggersToReplace(on: connection)
        var sql = "BEGIN IMMEDIATE;\n" + dropping
        sql += "ALTER TABLE _roster_changes DROP COLUMN changed;\n"
        for entity in entities { sql += format7TriggersWithoutMask(for: entity) }
        try connection.execute(sql + "UPDATE _roster_meta SET value = 7 WHERE name = 'log_format';\nCOMMIT;")
    }

    /// Rewrites the change logs of the store file at `path` as log format 7 had them last:
    /// the insert and replace triggers apart for every entity (``insertTriggersApart(for:)``).
    static func makeFormat7(at path: String) throws {
        let connection = try Connection(path: path)
        defer { connection.close() }
        let logged = try SchemaCatalog.entitiesWithTriggers(on: connection)
        var sql = "BEGIN IMMEDIATE;\n"
        // (A row-id key's change log already has them.)
        for entity in try SchemaCatalog.loadEntities(from: connection).values.sorted(by: { $0.name < $1.name })
        where logged.contains(entity.name.lowercased()) && SchemaCatalog.changeLogTriggerKinds(of: entity).contains("upsert") {
            sql += "DROP TRIGGER \"_roster_\(entity.name)_upsert\";\n" + insertTriggersApart(for: entity)
        }
        try connection.execute(sql + "UPDATE _roster_meta SET value = 7 WHERE name = 'log_format';\nCOMMIT;")
    }

    /// The four triggers of format 7 before the mask, as it wrote them.
    static func format7TriggersWithoutMask(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        let images = entity.attributes.indices.map(SchemaCatalog.imageColumn).joined(separator: ", ")
        let log = "INSERT OR IGNORE INTO _roster_changes(entity, key) VALUES ('\(entity.name)',"
        let logWithImage = "INSERT OR IGNORE INTO _roster_changes(entity, key, \(images))"
        let old = names.map { "OLD.\($0)" }.joined(separator: ", ")
        let changed = names.map { "OLD.\($0) IS NOT NEW.\($0) COLLATE BINARY" }.joined(separator: " OR ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        return """
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
    }

    /// The insert and replace triggers that format 7 wrote for every entity, before one
    /// trigger logged inserts and replaces alike for keys that are not row ids (what they
    /// still are for a row-id key).
    static func insertTriggersApart(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let names = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let images = entity.attributes.indices.map(SchemaCatalog.imageColumn).joined(separator: ", ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        return """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(SchemaCatalog.currentTriggerMark)) VALUES ('\(entity.name)', NEW.\(key), NULL); END;
            CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                \(SchemaCatalog.currentTriggerMark), \(images)) SELECT '\(entity.name)', NEW.\(key), NULL, \(names) FROM \(table) WHERE \(key) = NEW.\(key);
            END;

            """
    }

    /// The entities of the file that have triggers, by name, and the SQL that drops their
    /// triggers: what each older format starts from.
    private static func triggersToReplace(on connection: Connection) throws -> (entities: [Entity], dropping: String) {
        let logged = try SchemaCatalog.entitiesWithTriggers(on: connection)
        let entities = try SchemaCatalog.loadEntities(from: connection).values
            .filter { logged.contains($0.name.lowercased()) }.sorted { $0.name < $1.name }
        var sql = ""
        for entity in entities {
            for name in SchemaCatalog.changeLogObjectNames(of: entity) { sql += "DROP TRIGGER IF EXISTS \"\(name)\";\n" }
        }
        return (entities, sql)
    }
}
