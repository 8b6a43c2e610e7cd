import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Failures while delivering changes reach every live consumer, and nothing is lost: the
/// results stay as the consumer last saw them, and once reads work again the consumer
/// catches up exactly (a resync group when its own read failed).
@Suite("Error channel and resync")
struct ErrorChannelTests {
    /// The watched posts, and another connection to the file.
    final class Setup {
        let watched: WatchedPosts
        let other: ExternalConnection
        var store: Store { watched.store }
        var controller: ResultsController { watched.controller }
        var recorder: GroupRecorder { watched.recorder }

        init() throws {
            watched = try WatchedPosts()
            other = try ExternalConnection(path: watched.store.path)
        }

        func isExact() throws -> Bool { try watched.isExact() }
    }

    @Test func aTableRenamedAwayIsReportedAndItsQueriesResyncOnceItIsBack() throws {
        let setup = try Setup()
        let before = setup.controller.snapshot
        // The table disappears under the store (renamed), and a write is logged meanwhile.
        try setup.other.execute("ALTER TABLE Post RENAME TO Hidden; INSERT INTO Hidden(id, rank) VALUES ('p0', 0)")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1, "the failure must reach the delegate")
        #expect("\(setup.recorder.errors.first.map { "\($0)" } ?? "")".contains("dropped or renamed"))
        #expect(setup.recorder.takeGroups().isEmpty)
        #expect(setup.controller.snapshot == before, "the results stay as the delegate last saw them")

        try setup.other.execute("ALTER TABLE Hidden RENAME TO Post")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        let groups = setup.recorder.takeGroups()
        #expect(groups.count == 1)
        #expect(try groups.first?.apply(to: before) == setup.controller.snapshot)
        #expect(setup.controller.indexPath(for: "p0") == IndexPath(item: 0, section: 0))
        #expect(try setup.isExact())
        #expect(setup.recorder.callbackOrderProblems.isEmpty)
    }

    @Test func aPollRetriesAFailedDeliveryEvenWhenNothingNewWasCommitted() throws {
        let setup = try Setup()
        try setup.other.execute("ALTER TABLE Post RENAME TO Hidden; UPDATE Hidden SET rank = 9 WHERE id = 'p1'")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1)
        // Renamed back by the store's own connection: its data version does not change.
        try setup.store.execute("ALTER TABLE Hidden RENAME TO Post")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        #expect(setup.recorder.takeGroups().count == 1)
        #expect(try setup.isExact())
    }

    @Test func aTableRecreatedByAnotherProcessGetsItsChangeLogBackAndItsQueriesResync() throws {
        let setup = try Setup()
        let before = setup.controller.snapshot
        // A migration tool rebuilds the table: the triggers go with the old one.
        try setup.other.execute("""
            CREATE TABLE New(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO New SELECT * FROM Post; DROP TABLE Post; ALTER TABLE New RENAME TO Post;
            UPDATE Post SET rank = 0 WHERE id = 'p3'
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.isEmpty)
        #expect(setup.recorder.resyncs == [.schemaChanged])
        let groups = setup.recorder.takeGroups()
        #expect(try groups.first?.apply(to: before) == setup.controller.snapshot)
        #expect(try setup.isExact())
        // The change log works again: a later write is reported row by row.
        try setup.other.execute("DELETE FROM Post WHERE id = 'p1'")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        #expect(setup.recorder.takeGroups().map { $0.objectChanges.map(\.type) } == [[.delete]])
        #expect(try setup.isExact())
    }

    /// The migration's own writes went unlogged. Another process's store, which finds the
    /// triggers back in place (this store put them back first), and a resume from a token
    /// saved before, learn it from the gap mark the restore left in the log, and resync;
    /// this store skips its own mark.
    @Test func aRecreatedTableLeavesAGapMarkAtWhichOtherReadersOfTheLogResync() throws {
        let setup = try Setup()
        let otherStore = try Store(path: setup.store.path)
        let otherQuery = try ResultsController(store: otherStore, request: setup.controller.request)
        let otherRecorder = GroupRecorder()
        otherQuery.delegate = otherRecorder
        try otherQuery.performFetch()
        let token = try setup.controller.resumeToken()
        try setup.other.execute("""
            CREATE TABLE New(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO New SELECT * FROM Post; DROP TABLE Post; ALTER TABLE New RENAME TO Post;
            UPDATE Post SET title = 'migrated' WHERE id = 'p2'
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        _ = setup.recorder.takeGroups()
        func updatesP2(_ groups: [ChangeGroup<Value, Value>]) -> Bool {
            groups.flatMap(\.objectChanges).contains { $0.item == "p2" && $0.type == .update }
        }
        // Another process: the triggers are there, the mark says what they missed.
        try otherStore.pollExternalChanges()
        #expect(otherRecorder.resyncs == [.schemaChanged])
        #expect(updatesP2(otherRecorder.takeGroups()))
        #expect(otherQuery.object(at: IndexPath(item: 1, section: 0))?["title"] == "migrated")
        // A token saved before the migration.
        let resumed = try ResultsController(store: try Store(path: setup.store.path), request: setup.controller.request)
        let resumedRecorder = GroupRecorder()
        resumed.delegate = resumedRecorder
        try resumed.performFetch(resumingFrom: token)
        #expect(resumedRecorder.resyncs == [.schemaChanged])
        #expect(updatesP2(resumedRecorder.takeGroups()))
        // Row by row again, in both stores.
        try setup.store.write { try setup.store.update("Post", key: "p3", ["title": "later"]) }
        try otherStore.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.schemaChanged])
        #expect(otherRecorder.resyncs == [.schemaChanged])
        #expect(setup.recorder.takeGroups().map { $0.objectChanges.map(\.type) } == [[.update]])
        #expect(otherRecorder.takeGroups().map { $0.objectChanges.map(\.type) } == [[.update]])
    }

    /// The app is closed when the migration runs: no live query is there to put the
    /// triggers back. The relaunched app's resume watches the entity first, which puts them
    /// back with a gap mark, and the resume resyncs at it.
    @Test func aResumeThatFirstWatchesARecreatedTableResyncs() throws {
        let setup = try Setup()
        let token = try setup.controller.resumeToken()
        let path = setup.store.path
        try setup.other.execute("""
            CREATE TABLE New(id TEXT NOT NULL PRIMARY KEY, title TEXT, day TEXT, rank INTEGER, score REAL, pinned INTEGER CHECK (pinned IN (0, 1))) STRICT;
            INSERT INTO New SELECT * FROM Post; DROP TABLE Post; ALTER TABLE New RENAME TO Post;
            UPDATE Post SET title = 'migrated' WHERE id = 'p2'
            """)
        let relaunched = try Store(path: path)
        let resumed = try ResultsController(store: relaunched, request: setup.controller.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        #expect(recorder.resyncs == [.schemaChanged])
        #expect(recorder.takeGroups().flatMap(\.objectChanges).contains { $0.item == "p2" && $0.type == .update })
        // Its later writes are row by row: it skips its own mark.
        try relaunched.write { try relaunched.update("Post", key: "p3", ["title": "later"]) }
        #expect(recorder.resyncs == [.schemaChanged])
        #expect(recorder.takeGroups().map { $0.objectChanges.map(\.type) } == [[.update]])
    }

    @Test func aPrunedLogIsAResyncAnnouncedBeforeItsGroup() throws {
        let setup = try Setup()
        // Another process pruned the log past this store's cursor, then changed p2.
        try setup.other.execute("UPDATE _roster_meta SET value = 1000000 WHERE name = 'pruned_through'; UPDATE Post SET rank = 7 WHERE id = 'p2'")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.logPruned])
        let groups = setup.recorder.takeGroups()
        #expect(groups.count == 1)
        // Which values changed is lost with the log: every object that stays is updated (p2 moved).
        #expect(Set(groups.first?.objectChanges.map(\.type) ?? []) == [.move, .update])
        #expect(try setup.isExact())
        // The mark lies beyond every entry (foreign data): one resync, then row by row again.
        try setup.other.execute("UPDATE Post SET title = 'x' WHERE id = 'p3'")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs == [.logPruned])
        #expect(setup.recorder.takeGroups().map { $0.objectChanges.map(\.type) } == [[.update]])
        #expect(setup.recorder.callbackOrderProblems.isEmpty)
    }

    /// Entries are numbered by row id: after one numbered `Int64.max` (only another program
    /// writes that), SQLite numbers the next ones at random, where a reader would miss
    /// them. Every delivery reports it until the entry is gone; the queries then catch up.
    @Test func aLogEntryNumberedAtTheLargestRowIDIsReportedNotReadPast() throws {
        let setup = try Setup()
        let before = setup.controller.snapshot
        try setup.other.execute("""
            INSERT INTO _roster_changes(seq, entity) VALUES (9223372036854775807, 'Elsewhere');
            UPDATE Post SET rank = 7 WHERE id = 'p1'
            """)
        _ = try? setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1)
        #expect("\(setup.recorder.errors.first.map { "\($0)" } ?? "")".contains("the largest number SQLite gives"))
        #expect(setup.controller.snapshot == before)
        try setup.other.execute("DELETE FROM _roster_changes WHERE seq = 9223372036854775807; UPDATE Post SET rank = 0 WHERE id = 'p3'")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1)
        #expect(try setup.isExact())
    }

    @Test func aResyncWhoseReadFailsIsReportedAndRetriedFromWhatTheDelegateSaw() throws {
        let setup = try Setup()
        let before = setup.controller.snapshot
        try setup.other.execute("""
            UPDATE _roster_meta SET value = 1000000 WHERE name = 'pruned_through';
            UPDATE Post SET rank = 7 WHERE id = 'p1';
            ALTER TABLE Post RENAME TO Hidden
            """)
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.errors.count == 1)
        #expect(setup.recorder.resyncs.isEmpty)
        #expect(setup.controller.snapshot == before)

        try setup.other.execute("ALTER TABLE Hidden RENAME TO Post")
        try setup.store.pollExternalChanges()
        #expect(setup.recorder.resyncs.count == 1)
        let groups = setup.recorder.takeGroups()
        #expect(groups.count == 1)
        #expect(try groups.first?.apply(to: before) == setup.controller.snapshot)
        #expect(try setup.isExact())
    }

    @Test func aRowThatCannotBeReadIsNeverServedWithNulls() throws {
        let store = try postStore()
        try store.write {
            for rank in 0..<5_000 { try store.insert("Post", ["id": .string("p\(rank)"), "rank": .integer(Int64(rank)), "title": "t"]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        // Rows are loaded on demand; another process takes the table away.
        try ExternalConnection(path: store.path).execute("ALTER TABLE Post RENAME TO Hidden")
        #expect(controller.object(at: IndexPath(item: 4_999, section: 0)) == nil)
        #expect(recorder.errors.count == 1, "the delegate hears why")
        #expect(throws: StoreError.self) { _ = try controller.fetchedObjects }
        try ExternalConnection(path: store.path).execute("ALTER TABLE Hidden RENAME TO Post")
        #expect(controller.object(at: IndexPath(item: 4_999, section: 0))?["title"] == "t", "served whole once it can be read")
        #expect(controller.object(at: IndexPath(item: 5_000, section: 0)) == nil, "a path outside the results is nil, not a trap")
        #expect(controller.object(at: IndexPath(item: 0, section: 1)) == nil)
    }

    @Test func liveResultsThrowTheFailureKeepTheirResultsAndCatchUp() async throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in try store.insert("Post", ["id": "p1", "rank": 1]) }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let other = try ExternalConnection(path: queue.path)
        let before = live.snapshot
        try other.execute("ALTER TABLE Post RENAME TO Hidden; INSERT INTO Hidden(id, rank) VALUES ('p0', 0)")
        try queue.pollExternalChanges()
        #expect(throws: StoreError.self) { _ = try live.takeChange() }
        #expect(live.snapshot == before)
        // Its re-fetch fails while the table is gone; nothing is dropped meanwhile.
        #expect(throws: StoreError.self) { _ = try live.takeChange() }
        #expect(live.hasPendingChanges)

        try other.execute("ALTER TABLE Hidden RENAME TO Post")
        try queue.pollExternalChanges()
        let change = try #require(try await live.nextChange())
        #expect(change.resync == .schemaChanged)
        // The commits that went by unread cannot say what changed: a row the results' cache
        // did not hold (p1, never read) is reported as updated, as a controller reports it.
        #expect(Set(change.group.objectChanges.map(\.item)) == ["p0", "p1"])
        #expect(change.group.objectChanges.first { $0.item == "p1" }?.type == .update)
        #expect(live.snapshot.sections.map(\.items) == [["p0", "p1"]])
    }

    @Test func aLiveResyncReportsEveryRowThatChangedUnseenAndNoRowItKnowsUnchanged() async throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in
            try store.insert("Post", ["id": "p1", "rank": 1, "title": "one"])
            try store.insert("Post", ["id": "p2", "rank": 2, "title": "two"])
        }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        // Both rows read: the results' cache holds them as the consumer saw them.
        #expect(live.fetchedObjects.map { $0["title"] } == ["one", "two"])
        let other = try ExternalConnection(path: queue.path)
        try other.execute("ALTER TABLE Post RENAME TO Hidden; UPDATE Hidden SET title = 'changed' WHERE id = 'p1'")
        try queue.pollExternalChanges()
        #expect(throws: StoreError.self) { _ = try live.takeChange() }
        try other.execute("ALTER TABLE Hidden RENAME TO Post")
        try queue.pollExternalChanges()
        let change = try #require(try await live.nextChange())
        #expect(change.resync != nil)
        #expect(change.group.objectChanges.map(\.item) == ["p1"], "p2 did not change; p1 did, unseen")
        #expect(change.group.objectChanges.first?.type == .update)
        #expect(change.objects["p1"]?["title"] == "changed")
    }

    @Test func theAsyncSequenceThrowsTheFailure() async throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Post"))
        let other = try ExternalConnection(path: queue.path)
        try other.execute("ALTER TABLE Post RENAME TO Hidden; INSERT INTO Hidden(id, rank) VALUES ('p0', 0)")
        try queue.pollExternalChanges()
        await #expect(throws: StoreError.self) {
            for try await _ in live.changes {}
        }
    }
}
