import Foundation
import Synchronization
import Testing
@testable import Roster
import RosterTestSupport

/// An entity's change log (its four triggers) is created when
/// a live query first watches it, not when it is defined — and live queries stay exact
/// across that moment, whoever writes.
@Suite("Change logs created on first observation")
struct LazyChangeLogTests {
    /// The rows the pruning tests keep: by count alone, so that they prune at once.
    static let retained = 10_000

    /// How many of the store's schema objects (its triggers) the entity has.
    func changeLogObjectCount(of entity: String, in store: Store) throws -> Int64 {
        let statement = try store.writer.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?")
        try statement.bind([.string(entity)])
        defer { statement.reset() }
        _ = try statement.step()
        guard case let .integer(count) = statement.column(0) else { return -1 }
        return count
    }

    /// A file-backed store path, removed with its WAL files afterwards by `cleanUp`.
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("roster-lazy-\(UUID().uuidString).sqlite").path
    }

    func cleanUp(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func aWatchedEntityGetsItsChangeLogOnFirstObservationAndAnUnwatchedOneNone() throws {
        let store = try postStore()
        try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer), Attribute("label", .string)]))
        #expect(try changeLogObjectCount(of: "Post", in: store) == 0)
        #expect(try changeLogObjectCount(of: "Tag", in: store) == 0)

        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        #expect(try changeLogObjectCount(of: "Post", in: store) == 0, "made when the query fetches, not before")
        try controller.performFetch()
        // Three triggers for a string key, four for a row-id key (``InsertTriggerTests``).
        #expect(try changeLogObjectCount(of: "Post", in: store) == 3)
        #expect(try changeLogObjectCount(of: "Tag", in: store) == 0)

        // Writes to the unwatched entity log nothing and deliver nothing.
        try store.insert("Tag", ["n": 1, "label": "a"])
        try store.update("Tag", key: 1, ["label": "b"])
        do {
            let entries = try store.writer.prepare("SELECT count(*) FROM _roster_changes WHERE entity = 'Tag'")
            defer { entries.reset() }
            _ = try entries.step()
            #expect(entries.column(0) == .integer(0))
        }

        // A second live query on it, and a re-fetch, find it and create nothing more.
        let again = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        try again.performFetch()
        try controller.performFetch()
        #expect(try changeLogObjectCount(of: "Post", in: store) == 3)

        // LiveResults watch through the same path.
        let queue = try StoreQueue(path: store.path)
        let tags = try LiveResults(queue: queue, request: FetchRequest(entity: "Tag", sortKeys: [SortKey("n")]))
        #expect(tags.snapshot.sections.map(\.items) == [[1]])
        #expect(try changeLogObjectCount(of: "Tag", in: store) == 4)
    }

    @Test func aWriteBeforeTheFirstObservationIsFetchedAndLaterWritesAreDeliveredExactly() throws {
        let store = try postStore()
        // Another connection writes before anything watches Post: nothing logs it.
        let other = try ExternalConnection(path: store.path)
        try other.execute("INSERT INTO Post(id, title, rank) VALUES ('p1', 't', 1), ('p2', 't', 2)")
        try other.execute("UPDATE Post SET title = 'u' WHERE id = 'p1'")
        #expect(try store.pollExternalChanges())

        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot == sections([(nil, ["p1", "p2"])]))
        #expect(controller.object(at: IndexPath(item: 0, section: 0))?["title"] == "u")

        // A value changed: one update.
        try other.execute("UPDATE Post SET title = 'v' WHERE id = 'p2'")
        #expect(try store.pollExternalChanges())
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        // No-op writes: the same values, and a value changed and changed back.
        try other.execute("UPDATE Post SET title = title")
        try other.execute("UPDATE Post SET rank = 9 WHERE id = 'p1'; UPDATE Post SET rank = 1 WHERE id = 'p1'")
        try other.execute("INSERT OR REPLACE INTO Post(id, title, rank) VALUES ('p1', 'u', 1)")
        _ = try store.pollExternalChanges()
        #expect(recorder.takeGroups().isEmpty)
        // A move, an insert and a delete, through the store and through the other connection.
        try store.update("Post", key: "p1", ["rank": 5])
        try other.execute("INSERT INTO Post(id, rank) VALUES ('p3', 3); DELETE FROM Post WHERE id = 'p2'")
        #expect(try store.pollExternalChanges())
        let groups = recorder.takeGroups()
        #expect(groups.count == 2)
        #expect(controller.snapshot == sections([(nil, ["p3", "p1"])]))
    }

    @Test func twoStoresStartingToWatchTheSameEntityAtOnceBothStayExact() throws {
        let path = temporaryPath()
        defer { cleanUp(path) }
        do {
            let store = try Store(path: path)
            try store.define(postEntity())
            for index in 0..<20 { try store.insert("Post", ["id": .string("p\(index)"), "rank": .integer(Int64(index))]) }
        }
        /// What the observing threads share with the test.
        final class Shared: Sendable {
            let writerDone = Atomic<Bool>(false)
            let problems = Mutex<[String]>([])
        }
        let shared = Shared()
        let group = DispatchGroup()
        /// One process stand-in: opens the store, starts watching while the writer writes,
        /// then polls until the writer is done and compares its results with a fresh fetch.
        func observe(_ name: String) {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let store = try Store(path: path)
                    let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
                    let controller = try ResultsController(store: store, request: request)
                    let recorder = GroupRecorder()
                    controller.delegate = recorder
                    try controller.performFetch()
                    var seen = controller.snapshot
                    func catchUp() throws {
                        _ = try store.pollExternalChanges()
                        for change in recorder.takeGroups() { seen = try change.apply(to: seen) }
                    }
                    while !shared.writerDone.load(ordering: .acquiring) { try catchUp() }
                    try catchUp()
                    let fresh = try ResultsController(store: store, request: request)
                    try fresh.performFetch()
                    if controller.snapshot != fresh.snapshot || seen != fresh.snapshot {
                        shared.problems.withLock { $0.append("\(name): results \(controller.snapshot.map(\.items)), groups applied \(seen.map(\.items)), table \(fresh.snapshot.map(\.items))") }
                    }
                } catch {
                    shared.problems.withLock { $0.append("\(name): \(error)") }
                }
            }.start()
        }
        observe("first")
        observe("second")
        let writer = try ExternalConnection(path: path)
        var generator = SystemRandomNumberGenerator()
        for step in 0..<300 {
            let key = "p\(Int.random(in: 0..<40, using: &generator))"
            switch step % 3 {
            case 0: try writer.execute("INSERT OR REPLACE INTO Post(id, rank) VALUES ('\(key)', \(Int.random(in: 0..<100, using: &generator)))")
            case 1: try writer.execute("UPDATE Post SET rank = \(Int.random(in: 0..<100, using: &generator)) WHERE id = '\(key)'")
            default: try writer.execute("DELETE FROM Post WHERE id = '\(key)'")
            }
        }
        shared.writerDone.store(true, ordering: .releasing)
        group.wait()
        #expect(shared.problems.withLock { $0 }.isEmpty, "\(shared.problems.withLock { $0 })")
    }

    @Test func aReadOnlyStoreCannotWatchAnEntityWithoutAChangeLogAndSaysWhy() throws {
        let path = temporaryPath()
        defer { cleanUp(path) }
        let writable = try Store(path: path)
        try writable.define(postEntity())
        try writable.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer)]))
        try ResultsController(store: writable, request: FetchRequest(entity: "Tag")).performFetch()

        let readOnly = try Store(path: path, readOnly: true)
        #expect {
            try ResultsController(store: readOnly, request: FetchRequest(entity: "Post")).performFetch()
        } throws: { error in
            "\(error)".contains("read-only") && "\(error)".contains("have a read-write process watch it first")
        }
        // An entity that a read-write store watched can be watched read-only.
        let tags = try ResultsController(store: readOnly, request: FetchRequest(entity: "Tag"))
        try tags.performFetch()
        try writable.insert("Tag", ["n": 1])
        #expect(try readOnly.pollExternalChanges())
        #expect(tags.snapshot == sections([(nil, [1])]))
    }

    @Test func aQueryStartedInsideATransactionCatchesUpAtCommit() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        try store.beginTransaction()
        try store.insert("Post", ["id": "p2", "rank": 2])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot == sections([(nil, ["p1"])]), "the committed state")
        try store.update("Post", key: "p1", ["rank": 3])
        try store.commit()
        let before = sections([(nil, ["p1"])])
        let groups = recorder.takeGroups()
        #expect(groups.count == 1)
        #expect(try groups.first?.apply(to: before) == sections([(nil, ["p2", "p1"])]))
        #expect(try changeLogObjectCount(of: "Post", in: store) == 3)
        // From now on, exact as usual.
        try store.update("Post", key: "p2", ["title": "x"])
        #expect(recorder.takeGroups().count == 1)
        try store.update("Post", key: "p2", ["title": "x"])
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test func aQueryStartedByADelegateDuringADeliveryCatchesUp() throws {
        let store = try postStore()
        try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer)]))
        let posts = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        final class Starter: ResultsControllerDelegate {
            let store: Store
            var tags: ResultsController?
            let recorder = GroupRecorder()
            init(store: Store) { self.store = store }
            func controllerDidChangeContent(_ controller: ResultsController) {
                guard tags == nil else { return }
                let tags = try! ResultsController(store: store, request: FetchRequest(entity: "Tag", sortKeys: [SortKey("n")]))
                tags.delegate = recorder
                try! tags.performFetch()
                self.tags = tags
            }
        }
        let starter = Starter(store: store)
        posts.delegate = starter
        try posts.performFetch()
        let other = try ExternalConnection(path: store.path)
        try other.execute("INSERT INTO Post(id) VALUES ('p1'); INSERT INTO Tag(n) VALUES (1)")
        #expect(try store.pollExternalChanges())
        let tags = try #require(starter.tags)
        #expect(tags.snapshot == sections([(nil, [1])]))
        try other.execute("INSERT INTO Tag(n) VALUES (2)")
        #expect(try store.pollExternalChanges())
        #expect(tags.snapshot == sections([(nil, [1, 2])]))
        #expect(try changeLogObjectCount(of: "Tag", in: store) == 4)
    }

    @Test func pruningSkipsEntitiesThatHaveNoChangeLog() throws {
        let store = try postStore()
        try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer)]))
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        try controller.performFetch()
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: Self.retained)
        let total = Self.retained * 2 + 2_000
        try store.write {
            for index in 0..<total { try store.insert("Post", ["id": .string("n\(index)"), "rank": .integer(Int64(index))]) }
        }
        try store.execute("UPDATE Post SET title = 'all'")
        let entries = try store.writer.prepare("SELECT count(*) FROM _roster_changes")
        defer { entries.reset() }
        _ = try entries.step()
        guard case let .integer(count) = entries.column(0) else { Issue.record("no count"); return }
        #expect(count <= Int64(Self.retained))
        try store.insert("Post", ["id": "last"])
        #expect(controller.numberOfObjects == total + 1)
    }
}
