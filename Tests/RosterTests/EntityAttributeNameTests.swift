import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Attribute names that the change log's own columns, SQLite's hidden columns or SQL's
/// keywords also use: every valid name works, and only names starting with `_roster`
/// (the store's own) are refused.
@Suite("Attribute names the store and SQLite use too")
struct EntityAttributeNameTests {
    /// An entity whose attributes are named like the before-image table's old sequence
    /// column (`seq`), SQLite's row id (`rowid`) and an SQL keyword (`order`).
    func itemEntity() throws -> Entity {
        try Entity("Item", key: "id", attributes: [
            Attribute("id", .string), Attribute("seq", .integer), Attribute("rowid", .string), Attribute("order", .integer),
        ])
    }

    @Test func aLiveQuerySortedByAnAttributeNamedSeqReportsEveryChange() throws {
        let store = try Store.temporary()
        try store.define(itemEntity())
        try store.write {
            for (key, seq) in [("a", 1), ("b", 2), ("c", 3)] {
                try store.insert("Item", ["id": .string(key), "seq": .integer(Int64(seq)), "rowid": "r", "order": .integer(Int64(10 * seq))])
            }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Item", predicate: QueryPredicate("order >= 10"), sortKeys: [SortKey("seq")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot == sections([(nil, ["a", "b", "c"])]))

        // An update of another attribute: an update in place.
        try store.update("Item", key: "b", ["rowid": "changed"])
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "b", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        // A new sort value: a move.
        try store.update("Item", key: "a", ["seq": 9])
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .move, item: "a", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 2, section: 0)),
        ])])
        // An insert and a delete.
        try store.write {
            try store.insert("Item", ["id": "d", "seq": 0, "order": 40])
            try store.delete("Item", key: "c")
        }
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .insert, item: "d", from: nil, to: IndexPath(item: 0, section: 0)),
            ObjectChange(type: .delete, item: "c", from: IndexPath(item: 1, section: 0), to: nil),
        ])])
        // Written and written back in one transaction, through raw SQL too: nothing.
        try store.write {
            try store.update("Item", key: "b", ["seq": 100, "rowid": "x"])
            try store.execute("UPDATE Item SET seq = 2, rowid = 'changed' WHERE id = 'b'")
        }
        #expect(recorder.takeGroups().isEmpty)
        // Leaving the predicate through the keyword-named attribute: a delete.
        try store.update("Item", key: "b", ["order": 1])
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: "b", from: IndexPath(item: 1, section: 0), to: nil),
        ])])
        #expect(controller.snapshot == sections([(nil, ["d", "a"])]))
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["seq"] == 9)
        // The log kept the values as they were, attributes `seq` and `rowid` included.
        try store.update("Item", key: "d", ["seq": 5, "rowid": "r"])
        let before = try rowBefore("d", inNewestBatchOf: "Item", in: store)
        #expect(before == ["seq": 0, "rowid": .null])
    }

    @Test(arguments: ["seq", "SEQ", "Seq", "rowid", "oid", "_rowid_", "ROWID", "order", "select", "key", "entity", "first", "value", "name", "roster_seq"])
    func anyValidAttributeNameCanBeStoredAndTracked(name: String) throws {
        let store = try Store.temporary()
        try store.define(Entity("T", key: "id", attributes: [Attribute("id", .integer), Attribute(name, .string)]))
        try store.insert("T", ["id": 1, name: "one"])
        try store.insert("T", ["id": 2, name: "two"])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "T", sortKeys: [SortKey(name)]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot == sections([(nil, [1, 2])]))
        try store.update("T", key: 1, [name: "zzz"])
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .move, item: 1, from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        try store.write {
            try store.update("T", key: 2, [name: "changed"])
            try store.update("T", key: 2, [name: "two"])
        }
        #expect(recorder.takeGroups().isEmpty)
        try store.delete("T", key: 2)
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: 2, from: IndexPath(item: 0, section: 0), to: nil),
        ])])
        #expect(try store.fetch("T", key: 1)?[name] == "zzz")
    }

    @Test(arguments: ["_roster", "_roster_seq", "_ROSTER_SEQ", "_Roster_x", "_rosterish"])
    func attributeNamesStartingWithRosterAreRefused(name: String) throws {
        #expect {
            _ = try Entity("T", key: "id", attributes: [Attribute("id", .integer), Attribute(name, .string)])
        } throws: { error in
            "\(error)".contains("'\(name)'") && "\(error)".contains("is reserved")
        }
        #expect(throws: SchemaError.self) { _ = try Entity("T", key: name, attributes: [Attribute(name, .integer)]) }
    }

    /// A file whose before-image tables still have the column `seq` (log format 2): what
    /// this Roster made before it named the column `_roster_seq`.
    func makeFormat2File(at path: String) throws {
        try LegacyChangeLog.makeFormat6(at: path)
        let connection = try Connection(path: path)
        defer { connection.close() }
        var entities: [String] = []
        let names = try connection.prepare("SELECT name FROM _roster_entities ORDER BY name")
        while try names.step() { if case let .string(name) = names.column(0) { entities.append(name) } }
        // Renaming the column renames it in the triggers too: they become format 2's.
        try connection.execute("BEGIN IMMEDIATE;\n"
            + entities.map { "ALTER TABLE _roster_before_\($0) RENAME COLUMN _roster_seq TO seq;\n" }.joined()
            + "UPDATE _roster_meta SET value = 2 WHERE name = 'log_format';\nCOMMIT;")
        let triggers = try connection.prepare("SELECT group_concat(sql, ' ') FROM sqlite_master WHERE type = 'trigger'")
        _ = try triggers.step()
        guard case let .string(sql) = triggers.column(0) else { Issue.record("no triggers"); return }
        #expect(sql.contains("(seq, ") && !sql.contains("_roster_seq"))
    }

    /// The file's schema and log, to compare before and after a refused open.
    func fileContents(at path: String) throws -> [[Value]] {
        let connection = try Connection(path: path)
        defer { connection.close() }
        var rows: [[Value]] = []
        for sql in ["SELECT type, name, sql FROM sqlite_master ORDER BY name", "SELECT name, value, NULL FROM _roster_meta ORDER BY name",
                    "SELECT seq, entity, key FROM _roster_changes ORDER BY seq"] {
            let statement = try connection.prepare(sql)
            while try statement.step() { rows.append((0..<3).map { statement.column($0) }) }
        }
        return rows
    }

    @Test func everyEntityOfAFormat2FileIsUpgradedMigratedOnesToo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-format2-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try Store(path: path)
            try store.define(postEntity())
            try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer), Attribute("label", .string)]))
            // As format 2 made them: every entity had its change log from its definition on.
            for name in ["Post", "Tag"] { try store.ensureTracking(of: store.entity(named: name)) }
            try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer), Attribute("label", .string), Attribute("uses", .integer)]))
            try store.insert("Tag", ["n": 1, "label": "a", "uses": 1])
        }
        try makeFormat2File(at: path)
        let store = try Store(path: path)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Tag", sortKeys: [SortKey("uses")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.write {
            try store.update("Tag", key: 1, ["uses": 2])
            try store.update("Tag", key: 1, ["uses": 1])
        }
        #expect(recorder.takeGroups().isEmpty)
        try store.update("Tag", key: 1, ["label": "b"])
        #expect(recorder.takeGroups().count == 1)
        // The update logged the one value it changed, as it was.
        let before = try rowBefore(1, inNewestBatchOf: "Tag", in: store)
        #expect(before == ["label": "a"])
    }

    @Test func aFormat2FileNotAsFormat2MadeItIsRefusedAndLeftAsItWas() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-format2-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try Store(path: path)
            try store.define(postEntity())
            try store.ensureTracking(of: store.entity(named: "Post"))   // as format 2 made it
            try store.insert("Post", ["id": "p1"])
            try store.update("Post", key: "p1", ["rank": 2])
        }
        try makeFormat2File(at: path)
        // Someone renamed the column of the before-image table to something else.
        let connection = try Connection(path: path)
        try connection.execute("ALTER TABLE _roster_before_Post RENAME COLUMN seq TO other")
        connection.close()
        let before = try fileContents(at: path)
        #expect {
            _ = try Store(path: path)
        } throws: { error in
            "\(error)".contains("cannot upgrade the change log of entity") && "\(error)".contains("nothing was changed")
        }
        #expect(try fileContents(at: path) == before)
    }

    /// The before-image table's columns (none once upgraded: the images are in the log's
    /// rows), the format recorded, and every log entry with its before-image, as the file
    /// holds them.
    func logState(at path: String) throws -> (columns: [String], format: Value, entries: [[Value]]) {
        let connection = try Connection(path: path)
        defer { connection.close() }
        var columns: [String] = []
        let info = try connection.prepare("SELECT name FROM pragma_table_info('_roster_before_Post')")
        while try info.step() { if case let .string(name) = info.column(0) { columns.append(name) } }
        let format = try connection.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
        _ = try format.step()
        let sequence = columns.first { $0.hasSuffix("seq") } ?? "seq"
        // Post's id, title and rank are its attributes 0, 1 and 3.
        let entries = try connection.prepare(columns.isEmpty ? """
            SELECT seq, entity, key, old0, old1, old3 FROM _roster_changes ORDER BY seq
            """ : """
            SELECT c.seq, c.entity, c.key, b."id", b."title", b."rank"
            FROM _roster_changes AS c LEFT JOIN _roster_before_Post AS b ON b."\(sequence)" = c.seq ORDER BY c.seq
            """)
        var rows: [[Value]] = []
        while try entries.step() { rows.append((0..<6).map { entries.column($0) }) }
        return (columns, format.column(0), rows)
    }

    @Test func aFileWithTheSecondLogFormatIsUpgradedWithoutLosingUnreadEntries() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-format2-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // A reader that stays open throughout, as another process would: its live query
        // has read the log up to here.
        let reader = try ChangeLogTests.Watched(store: Store(path: path))
        try makeFormat2File(at: path)

        // An older Roster writes through the format-2 triggers; the reader has not read it yet.
        let older = try Connection(path: path)
        try older.execute("UPDATE Post SET title = 'for a moment' WHERE id = 'p1'")
        try older.execute("UPDATE Post SET title = 't' WHERE id = 'p1'")   // written back
        try older.execute("UPDATE Post SET rank = 9 WHERE id = 'p2'")
        try older.execute("DELETE FROM Post WHERE id = 'p3'")
        older.close()
        let written = try logState(at: path)
        #expect(written.format == 2)
        #expect(written.columns.contains("seq"))
        #expect(written.entries.suffix(4).map { $0[2] } == ["p1", "p1", "p2", "p3"])
        #expect(written.entries.suffix(4).allSatisfy { !$0[3].isNull })

        // Opening it with this Roster upgrades it: same entries, same before-images.
        let opened = try Store(path: path)
        let upgraded = try logState(at: path)
        #expect(upgraded.format == .integer(Int64(SchemaCatalog.logFormat)))
        #expect(upgraded.columns.isEmpty)
        #expect(upgraded.entries == written.entries)

        // The reader now reads the older Roster's writes exactly: the written-back title
        // is nothing, the new rank an update (p2 keeps its place), the delete a delete.
        #expect(try reader.store.pollExternalChanges())
        #expect(reader.recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: "p3", from: IndexPath(item: 2, section: 0), to: nil),
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        #expect(reader.controller.snapshot == sections([(nil, ["p1", "p2"])]))

        // And both hear the upgraded file's own writes exactly.
        let watcher = try ResultsController(store: opened, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        watcher.delegate = recorder
        try watcher.performFetch()
        try opened.write {
            try opened.update("Post", key: "p1", ["title": "x"])
            try opened.update("Post", key: "p1", ["title": "t"])
        }
        #expect(recorder.takeGroups().isEmpty)
        try opened.update("Post", key: "p1", ["rank": 20])
        let move = [ChangeGroup<Value, Value>(objectChanges: [
            ObjectChange(type: .move, item: "p1", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0)),
        ])]
        #expect(recorder.takeGroups() == move)
        #expect(try reader.store.pollExternalChanges())
        #expect(reader.recorder.takeGroups() == move)
        // Opening it again changes nothing more.
        _ = try Store(path: path)
        #expect(try logState(at: path).columns == upgraded.columns)
    }
}

/// Entity names that differ only in letter case (`Item`, `item`): one table to SQLite, two
/// to PostgreSQL; refused on both, with the clash named, also when another store of the
/// same file or schema defined the first since this one opened.
@Suite("Entity names that differ only in case")
struct EntityNameCaseTests {
    static func entity(_ name: String) throws -> Entity {
        try Entity(name, key: "id", attributes: [Attribute("id", .string)])
    }

    static func expectClash(_ body: () throws -> Void, name: String, existing: String) {
        let error = #expect(throws: StoreError.self) { try body() }
        #expect(error?.code == .schema)
        #expect(error?.description.contains("entity '\(name)' differs from the entity '\(existing)' only in letter case") == true, "\(String(describing: error))")
    }

    @Test func onSQLiteInOneStoreAndFromAnotherStoreOfTheFile() throws {
        let first = try Store.temporary()
        let path = first.path
        let second = try Store(path: path)
        try first.define(Self.entity("Item"))
        Self.expectClash({ try first.define(Self.entity("item")) }, name: "item", existing: "Item")
        // The second store read the entities before Item was defined.
        Self.expectClash({ try second.define(Self.entity("ITEM")) }, name: "ITEM", existing: "Item")
        #expect(try first.entity(named: "Item").name == "Item")
        #expect(throws: StoreError.self) { try first.entity(named: "item") }
    }

    @Test(.needsPostgreSQL) func onPostgreSQLInOneStoreAndFromAnotherStoreOfTheSchema() throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        let first = try Store(postgresURL: schema.url)
        let second = try Store(postgresURL: schema.url)
        try first.define(Self.entity("Item"))
        Self.expectClash({ try first.define(Self.entity("item")) }, name: "item", existing: "Item")
        Self.expectClash({ try second.define(Self.entity("ITEM")) }, name: "ITEM", existing: "Item")
        let tables = try ExternalConnection(path: schema.url).run("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND lower(tablename) = 'item'")
        #expect(tables == [["1"]])
    }
}
