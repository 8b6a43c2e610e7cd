import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The triggers that log inserts: one `BEFORE INSERT` trigger logs an insert or the row it
/// replaces when the key is not a row id; a row-id key, which SQLite may pick only once
/// the row goes in, keeps an insert trigger after it and a replace trigger before. One
/// trigger less an entity is one object less for SQLite to load on every `CREATE` after it
/// (issue 37). Every insert another connection makes is heard as what it did.
@Suite("Insert triggers")
struct InsertTriggerTests {
    /// The names of the store's triggers on `table`, sorted.
    func triggers(on table: String, in store: Store) throws -> [String] {
        let statement = try store.writer.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? ORDER BY name")
        try statement.bind([.string(table)])
        var names: [String] = []
        while try statement.step() {
            if case let .string(name) = statement.column(0) { names.append(name) }
        }
        return names
    }

    /// A new store holding `entity` with one row, watched by key.
    func watched(_ entity: Entity, holding row: [String: Value]) throws -> (store: Store, controller: ResultsController, recorder: GroupRecorder) {
        let store = try Store.temporary()
        try store.define(entity)
        try store.insert(entity.name, row)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: entity.name, sortKeys: [SortKey(entity.key.name)]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (store, controller, recorder)
    }

    /// An entity keyed by an integer (its table's row id) holding item 10, watched by key.
    func watchedItems() throws -> (store: Store, controller: ResultsController, recorder: GroupRecorder) {
        try watched(Entity("Item", key: "id", attributes: [Attribute("id", .integer), Attribute("title", .string)]), holding: ["id": 10, "title": "first"])
    }

    @Test func aStringKeyHasOneInsertTriggerARowIDKeyTwo() throws {
        let watched = try WatchedPosts()
        #expect(try triggers(on: "Post", in: watched.store) == ["_roster_Post_delete", "_roster_Post_update", "_roster_Post_upsert"])
        let items = try watchedItems()
        #expect(try triggers(on: "Item", in: items.store) == ["_roster_Item_delete", "_roster_Item_insert", "_roster_Item_replace", "_roster_Item_update"])
    }

    /// Inserts that add, replace, upsert, are ignored or fail, through another connection:
    /// each heard as what it did to the rows, and nothing for what it did not do.
    @Test func insertsByAnotherConnectionAreHeardAsWhatTheyDid() throws {
        let watched = try WatchedPosts()
        let other = try Connection(path: watched.store.path)
        defer { other.close() }
        #expect(try watched.heard(after: "INSERT INTO Post(id, rank, title) VALUES ('p4', 4, 't')", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .insert, item: "p4", from: nil, to: IndexPath(item: 3, section: 0)),
        ])])
        // Ignored on an existing key; ignored on a new key whose bool fails its check: no change,
        // though the trigger ran before the insert was ignored.
        #expect(try watched.heard(after: """
            INSERT OR IGNORE INTO Post(id, rank) VALUES ('p1', 9);
            INSERT OR IGNORE INTO Post(id, rank, pinned) VALUES ('p5', 5, 7);
            INSERT INTO Post(id, rank, title) VALUES ('p2', 2, 't') ON CONFLICT(id) DO NOTHING;
            """, on: other).isEmpty)
        // Replaced with the same values: nothing; with another rank: a move.
        #expect(try watched.heard(after: "INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p3', 3, 't')", on: other).isEmpty)
        #expect(try watched.heard(after: "INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p1', 9, 't')", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .move, item: "p1", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 3, section: 0)),
        ])])
        #expect(try watched.heard(after: "INSERT INTO Post(id, rank, title) VALUES ('p2', 2, 'x') ON CONFLICT(id) DO UPDATE SET title = excluded.title", on: other)
            == [ChangeGroup(objectChanges: [
                ObjectChange(type: .update, item: "p2", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0)),
            ])])
        // `OR FAIL` keeps the rows before the one that failed: p6 is in, p7 is not.
        #expect(throws: DatabaseError.self) { try other.execute("INSERT OR FAIL INTO Post(id, rank, pinned) VALUES ('p6', 6, 0), ('p7', 7, 7)") }
        _ = try watched.store.pollExternalChanges()
        #expect(watched.recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .insert, item: "p6", from: nil, to: IndexPath(item: 3, section: 0)),
        ])])
        #expect(try watched.isExact())
    }

    /// A row-id key that SQLite picks is heard with the key it picked; a replace of it as an update.
    @Test func aRowIDKeySQLitePicksIsHeard() throws {
        let items = try watchedItems()
        let other = try Connection(path: items.store.path)
        defer { other.close() }
        try other.execute("INSERT INTO Item(title) VALUES ('picked'); INSERT INTO Item(id, title) VALUES (NULL, 'picked too')")
        _ = try items.store.pollExternalChanges()
        #expect(items.recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .insert, item: .integer(11), from: nil, to: IndexPath(item: 1, section: 0)),
            ObjectChange(type: .insert, item: .integer(12), from: nil, to: IndexPath(item: 2, section: 0)),
        ])])
        try other.execute("INSERT OR REPLACE INTO Item(id, title) VALUES (11, 'replaced')")
        _ = try items.store.pollExternalChanges()
        #expect(items.recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: .integer(11), from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        #expect(items.controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "replaced")
    }

    /// Format 7's four triggers for a string key, put back by a Roster of format 7 open when
    /// the file was upgraded, are kept (they log the same entries), and what they log is
    /// heard; when one of them is gone, the store writes its own three, and the old insert
    /// trigger goes with the rest.
    @Test func format7sFourTriggersAreKeptUntilOneIsMissing() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        let post = try store.entity(named: "Post")
        let other = try Connection(path: store.path)
        defer { other.close() }
        try other.execute("BEGIN IMMEDIATE; DROP TRIGGER _roster_Post_upsert; \(LegacyChangeLog.insertTriggersApart(for: post)) COMMIT")
        let apart = ["_roster_Post_delete", "_roster_Post_insert", "_roster_Post_replace", "_roster_Post_update"]
        #expect(try watched.heard(after: "INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p2', 2, 'x')", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        #expect(try SchemaCatalog.hasChangeLog(of: post, on: store.writer))
        // A store opening the file, and one more live query, leave them as they are.
        let reopened = try Store(path: store.path)
        let second = try ResultsController(store: reopened, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try second.performFetch()
        #expect(try triggers(on: "Post", in: reopened) == apart)

        try other.execute("DROP TRIGGER _roster_Post_replace")
        #expect(try !SchemaCatalog.hasChangeLog(of: post, on: store.writer))
        _ = try store.pollExternalChanges()
        _ = watched.recorder.takeGroups()
        #expect(try triggers(on: "Post", in: store) == ["_roster_Post_delete", "_roster_Post_update", "_roster_Post_upsert"])
        #expect(try watched.heard(after: "INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p3', 0, 't')", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .move, item: "p3", from: IndexPath(item: 2, section: 0), to: IndexPath(item: 0, section: 0)),
        ])])
        #expect(try watched.isExact())
        withExtendedLifetime(second) {}
    }

    /// Statements that insert many rows: one key twice, and copies of the table's own rows.
    @Test func statementsThatInsertManyRowsAreHeardAsTheirNetEffect() throws {
        let watched = try WatchedPosts()
        let other = try Connection(path: watched.store.path)
        defer { other.close() }
        var shown = watched.controller.snapshot
        for sql in [
            "INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p8', 8, 'a'), ('p8', 8, 'b'), ('p1', 1, 'c')",
            "INSERT INTO Post(id, rank, title) SELECT id || 'c', rank + 10, title FROM Post",
        ] {
            let groups = try watched.heard(after: sql, on: other)
            #expect(groups.count == 1, "\(sql)")
            for group in groups { shown = try group.apply(to: shown) }
            #expect(shown == watched.controller.snapshot)
            #expect(try watched.isExact())
        }
        #expect(shown.flatMap(\.items) == ["p1", "p2", "p3", "p8", "p1c", "p2c", "p3c", "p8c"])
        #expect(watched.controller.object(at: IndexPath(item: 3, section: 0))?["title"] == "b")
    }

    /// A double key is no row id: one insert trigger, which logs the key as the table
    /// stores it (5 given, 5.0 kept).
    @Test func aDoubleKeyHasOneInsertTriggerAndIsHeardAsStored() throws {
        let (store, controller, recorder) = try watched(Entity("Pt", key: "x", attributes: [Attribute("x", .double), Attribute("label", .string)]),
                                                        holding: ["x": 1.5, "label": "a"])
        #expect(try triggers(on: "Pt", in: store) == ["_roster_Pt_delete", "_roster_Pt_update", "_roster_Pt_upsert"])
        let other = try Connection(path: store.path)
        defer { other.close() }
        try other.execute("INSERT INTO Pt(x, label) VALUES (5, 'five'); INSERT OR REPLACE INTO Pt(x, label) VALUES (1.5, 'b')")
        _ = try store.pollExternalChanges()
        let changes = recorder.takeGroups().flatMap(\.objectChanges)
        #expect(Set(changes.map { "\($0.type) \($0.item)" }) == ["insert 5.0", "update 1.5"])
        #expect(controller.snapshot.flatMap(\.items) == [.double(1.5), .double(5)])
        #expect(controller.object(at: IndexPath(item: 0, section: 0))?["label"] == "b")
    }

    /// A format 7 file (the insert and replace triggers apart for every entity): a read-only
    /// store reads it as it is, and hears inserts through those triggers; a store that
    /// writes brings it to format 8, with three triggers, and hears them through the new one.
    @Test func aFormat7FileIsReadAsItIsAndUpgradedToThreeTriggers() throws {
        try withPostStoreFile { path in
            try LegacyChangeLog.makeFormat7(at: path)
            let other = try Connection(path: path)
            defer { other.close() }
            func format() throws -> Value {
                let statement = try other.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
                _ = try statement.step()
                return statement.column(0)
            }
            let apart = ["_roster_Post_delete", "_roster_Post_insert", "_roster_Post_replace", "_roster_Post_update"]

            let reader = try Store(path: path, readOnly: true)
            let read = try ResultsController(store: reader, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
            try read.performFetch()
            try other.execute("INSERT INTO Post(id, rank) VALUES ('a', 1)")
            _ = try reader.pollExternalChanges()
            #expect(read.snapshot.flatMap(\.items) == ["a"])
            #expect(try format() == .integer(7))
            #expect(try triggers(on: "Post", in: reader) == apart)

            let writer = try Store(path: path)
            #expect(try format() == .integer(Int64(SchemaCatalog.logFormat)))
            #expect(try triggers(on: "Post", in: writer) == ["_roster_Post_delete", "_roster_Post_update", "_roster_Post_upsert"])
            try other.execute("INSERT OR REPLACE INTO Post(id, rank) VALUES ('a', 2); INSERT INTO Post(id, rank) VALUES ('b', 0)")
            _ = try reader.pollExternalChanges()
            #expect(read.snapshot.flatMap(\.items) == ["b", "a"])
            #expect(read.object(at: IndexPath(item: 1, section: 0))?["rank"] == 2)
        }
    }
}
