import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Values and tables that another process wrote past Roster's own rules: a bool column
/// holding other integers (with SQLite's `ignore_check_constraints`), a table rebuilt
/// without `STRICT`, a column rebuilt with another collation. Live queries keep SQLite's
/// order and each value's identity, or report the table on the error channel; they never
/// trap and never lose a change.
@Suite("Tables written past Roster's rules")
struct ForeignTableTests {
    /// Posts p1…p3 with a live query sorted by `sortKeys`, and another connection.
    final class Setup {
        let store: Store
        let controller: ResultsController
        let recorder = GroupRecorder()
        let other: ExternalConnection

        init(sortKeys: [SortKey]) throws {
            let store = try postStore()
            self.store = store
            try store.write {
                for (key, title) in [("p1", "a"), ("p2", "B"), ("p3", "c")] {
                    try store.insert("Post", ["id": .string(key), "title": .string(title), "rank": 1, "pinned": false])
                }
            }
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: sortKeys))
            controller.delegate = recorder
            try controller.performFetch()
            self.controller = controller
            other = try ExternalConnection(path: store.path)
        }

        var keys: [Value] { controller.snapshot.flatMap(\.items) }

        /// Whether the live query holds what a fresh fetch reads now.
        func isExact() throws -> Bool {
            let fresh = try ResultsController(store: store, request: controller.request)
            try fresh.performFetch()
            return fresh.snapshot == controller.snapshot
        }
    }

    @Test func aBoolColumnHoldingOtherIntegersKeepsSQLitesOrderAndEachValue() throws {
        let setup = try Setup(sortKeys: [SortKey("pinned"), SortKey("id")])
        try setup.other.execute("""
            PRAGMA ignore_check_constraints = ON;
            UPDATE Post SET pinned = 5 WHERE id = 'p1';
            UPDATE Post SET pinned = 2 WHERE id = 'p2'
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.isEmpty)
        #expect(setup.keys == ["p3", "p2", "p1"], "SQLite orders 0, 2, 5")
        #expect(setup.controller.object(at: IndexPath(item: 2, section: 0))?["pinned"] == .integer(5))
        #expect(try setup.isExact())
        _ = setup.recorder.takeGroups()

        // 5 → 1: a change (5 and true are different values), and a move before p2.
        try setup.other.execute("PRAGMA ignore_check_constraints = ON; UPDATE Post SET pinned = 1 WHERE id = 'p1'")
        try setup.store.pollExternalChanges()
        let groups = setup.recorder.takeGroups()
        #expect(groups.map { $0.objectChanges.map(\.type) } == [[.move]])
        #expect(setup.keys == ["p3", "p1", "p2"])
        #expect(setup.controller.object(at: IndexPath(item: 1, section: 0))?["pinned"] == .bool(true))
        #expect(try setup.isExact())
    }

    @Test func aTableRebuiltWithoutStrictIsReportedUntilItIsStrictAgain() throws {
        let setup = try Setup(sortKeys: [SortKey("title")])
        let before = setup.keys
        // Without STRICT a TEXT column takes a BLOB, which SQLite orders after all text.
        try setup.other.execute("""
            CREATE TABLE Loose(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER);
            INSERT INTO Loose SELECT * FROM Post; DROP TABLE Post; ALTER TABLE Loose RENAME TO Post;
            INSERT INTO Post(id, title, rank, pinned) VALUES ('p4', X'61', 1, 0)
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1)
        #expect("\(setup.recorder.errors.first.map { "\($0)" } ?? "")".contains("STRICT"))
        #expect(setup.recorder.takeGroups().isEmpty)
        #expect(setup.keys == before, "the results stay as the delegate last saw them")

        try setup.other.execute("""
            CREATE TABLE Strict(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO Strict SELECT id, CAST(title AS TEXT), day, rank, score, pinned FROM Post; DROP TABLE Post; ALTER TABLE Strict RENAME TO Post
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        #expect(setup.recorder.takeGroups().count == 1)
        #expect(try setup.isExact())
    }

    @Test func aColumnRebuiltWithAnotherCollationStillSortsByBytes() throws {
        let setup = try Setup(sortKeys: [SortKey("title")])
        #expect(setup.keys == ["p2", "p1", "p3"], "B < a < c by bytes")
        try setup.other.execute("""
            CREATE TABLE Folded(id TEXT NOT NULL PRIMARY KEY, title TEXT COLLATE NOCASE, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO Folded SELECT * FROM Post; DROP TABLE Post; ALTER TABLE Folded RENAME TO Post
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.keys == ["p2", "p1", "p3"], "the re-fetch sorts by bytes, as the contract says")
        // Row-by-row changes land where the fetch put their neighbours.
        try setup.other.execute("INSERT INTO Post(id, title, rank, pinned) VALUES ('p4', 'b', 1, 0); UPDATE Post SET title = 'A' WHERE id = 'p3'")
        try setup.store.pollExternalChanges()
        #expect(setup.keys == ["p3", "p2", "p1", "p4"])
        #expect(try setup.isExact())
        // A change of letter case alone is a change: 'A' → 'a' moves p3 after 'B', next to
        // p1 (its equal by bytes, which its key follows), and makes its row new.
        _ = setup.recorder.takeGroups()
        try setup.other.execute("UPDATE Post SET title = 'a' WHERE id = 'p3'")
        try setup.store.pollExternalChanges()
        #expect(setup.keys == ["p2", "p1", "p3", "p4"])
        #expect(setup.controller.object(at: IndexPath(item: 2, section: 0))?["title"] == "a")
        #expect(setup.recorder.takeGroups().count == 1)
        #expect(try setup.isExact())
        #expect(setup.recorder.errors.isEmpty)
    }

    @Test func aLiveQueryOnATableRebuiltWhileTheStoreWasClosedIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-loose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try Store(path: path)
            try store.define(postEntity())
            try store.insert("Post", ["id": "p1", "title": "a", "rank": 1, "pinned": false])
        }
        // Rebuilt by another process while no store had the file open: no primary key.
        let other = try ExternalConnection(path: path)
        try other.execute("""
            CREATE TABLE Loose(id TEXT NOT NULL, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO Loose SELECT * FROM Post; INSERT INTO Loose SELECT * FROM Post;
            DROP TABLE Post; ALTER TABLE Loose RENAME TO Post
            """)
        let store = try Store(path: path)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("title")]))
        #expect {
            try controller.performFetch()
        } throws: { error in
            guard let error = error as? StoreError, error.code == .schemaMismatch else { return false }
            return error.entity == "Post" && error.description.contains("primary key")
        }
    }

    @Test func aSecondLiveQueryOrANewRequestOnATableRebuiltLooseIsRefused() throws {
        let setup = try Setup(sortKeys: [SortKey("title")])
        try setup.other.execute("""
            CREATE TABLE Loose(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER);
            INSERT INTO Loose SELECT * FROM Post; DROP TABLE Post; ALTER TABLE Loose RENAME TO Post;
            INSERT INTO Post(id, title, rank, pinned) VALUES ('p4', X'61', 1, 0)
            """)
        // No poll in between: the store has not heard of the rebuild when these fetch.
        func isLooseTable(_ error: any Error) -> Bool {
            guard let error = error as? StoreError, error.code == .schemaMismatch else { return false }
            return error.description.contains("STRICT")
        }
        let second = try ResultsController(store: setup.store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("title")]))
        #expect(performing: { try second.performFetch() }, throws: isLooseTable)
        #expect(performing: { try setup.controller.setRequest(FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])) }, throws: isLooseTable)
        #expect(setup.keys == ["p2", "p1", "p3"], "the first query keeps its results")
    }

    @Test func aPredicateOnAColumnRebuiltWithAnotherCollationComparesBytes() throws {
        let setup = try Setup(sortKeys: [SortKey("id")])
        try setup.other.execute("""
            CREATE TABLE Folded(id TEXT NOT NULL PRIMARY KEY, title TEXT COLLATE NOCASE, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO Folded SELECT * FROM Post; DROP TABLE Post; ALTER TABLE Folded RENAME TO Post
            """)
        try setup.store.pollExternalChanges()
        let controller = try ResultsController(store: setup.store, request: FetchRequest(
            entity: "Post", predicate: QueryPredicate("title == %@", "b"), sortKeys: [SortKey("id")]))
        try controller.performFetch()
        #expect(controller.snapshot.flatMap(\.items).isEmpty, "'B' is not 'b' (only [c] folds case)")
        // [d] folds with a function, whose result has no collation: still bytes.
        let accents = try ResultsController(store: setup.store, request: FetchRequest(
            entity: "Post", predicate: QueryPredicate("title ==[d] %@", "b"), sortKeys: [SortKey("id")]))
        try accents.performFetch()
        #expect(accents.snapshot.flatMap(\.items).isEmpty, "'B' is not 'b' under [d] either")
        try setup.other.execute("INSERT INTO Post(id, title, rank, pinned) VALUES ('p4', 'b', 1, 0)")
        try setup.store.pollExternalChanges()
        #expect(controller.snapshot.flatMap(\.items) == ["p4"])
        #expect(accents.snapshot.flatMap(\.items) == ["p4"])
    }
}
