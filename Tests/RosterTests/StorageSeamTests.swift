import Foundation
@testable import Roster
import RosterTestSupport
import RosterUpdates
import Testing

/// A backend that is not SQLite's own: it forwards to one, counts what the layers above
/// asked of it, and fails a read of changes on demand. A store, its controllers and their
/// delegates run over it unchanged — the seam is all they use.
private final class ForwardingBackend: StorageBackend {
    let base: SQLiteStorage
    var calls: [String: Int] = [:]
    /// Every key `committedRows(of:keys:)` was asked for.
    var keysRead: [Value] = []
    /// The next `collectChanges` fails with this, once.
    var nextCollectFailure: StoreError?

    init(base: SQLiteStorage) { self.base = base }

    private func note(_ name: String = #function) { calls[String(name.prefix { $0 != "(" }), default: 0] += 1 }

    var path: String { base.path }
    var isReadOnly: Bool { base.isReadOnly }
    func setBusyTimeout(milliseconds: Int32) { base.setBusyTimeout(milliseconds: milliseconds) }
    func close() { base.close() }
    func loadEntities() throws(StoreError) -> [String: Entity] { note(); return try base.loadEntities() }
    func create(_ entities: [Entity]) throws(StoreError) { note(); try base.create(entities) }
    func migrate(from existing: Entity, to migrated: Entity) throws(StoreError) { note(); try base.migrate(from: existing, to: migrated) }
    var isInTransaction: Bool { base.isInTransaction }
    func perform(_ step: TransactionStep) throws(StoreError) { note(); try base.perform(step) }
    func insert(_ row: [Value], into entity: Entity) throws(StoreError) { note(); try base.insert(row, into: entity) }
    func update(_ entity: Entity, key: Value, setting assignments: [(index: Int, value: Value)]) throws(StoreError) -> Bool {
        note()
        return try base.update(entity, key: key, setting: assignments)
    }
    func delete(_ entity: Entity, key: Value) throws(StoreError) -> Bool { note(); return try base.delete(entity, key: key) }
    func execute(_ sql: String, arguments: [Value]) throws(StoreError) { note(); try base.execute(sql, arguments: arguments) }
    func row(of entity: Entity, key: Value) throws(StoreError) -> [Value]? { note(); return try base.row(of: entity, key: key) }
    func committedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] { note(); return try base.committedRows(query) }
    func committedRows(of entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]] {
        note()
        keysRead += keys
        return try base.committedRows(of: entity, keys: keys)
    }
    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan { note(); return try base.orderedScan(query) }
    func keys(of entity: Entity, whereAttribute index: Int, equals value: Value) throws(StoreError) -> [Value] {
        try base.keys(of: entity, whereAttribute: index, equals: value)
    }
    func committedRows(of entity: Entity, whereColumn column: String, in values: [Value]) throws(StoreError) -> [[Value]] {
        note()
        return try base.committedRows(of: entity, whereColumn: column, in: values)
    }
    func forEachCommittedRow(_ query: BoundQuery, reading attributes: Set<Int>, _ body: ([Value]) -> Void) throws(StoreError) {
        note()
        try base.forEachCommittedRow(query, reading: attributes, body)
    }
    var hasMoved: Bool { base.hasMoved }
    func hasChangedSinceLastCheck() throws(StoreError) -> Bool { try base.hasChangedSinceLastCheck() }
    func beginCommittedRead() throws(StoreError) { try base.beginCommittedRead() }
    func endCommittedRead(abandon: Bool) { base.endCommittedRead(abandon: abandon) }
    func isAtNewestChange() throws(StoreError) -> Bool { try base.isAtNewestChange() }
    func willDeliver(_ entityNames: [String]) {
        note()
        base.willDeliver(entityNames)
    }

    func collectChanges(of entities: [Entity]) throws(StoreError) -> CommittedChanges? {
        note()
        if let failure = nextCollectFailure {
            nextCollectFailure = nil
            throw failure
        }
        return try base.collectChanges(of: entities)
    }
    func changesAtCursor() -> CommittedChanges { base.changesAtCursor() }
    var changeLogPosition: Int64 { base.changeLogPosition }
    func committedNeighbours(of row: [Value], in query: BoundQuery, before: Int, after: Int) throws(StoreError) -> (above: [[Value]], below: [[Value]]) {
        try base.committedNeighbours(of: row, in: query, before: before, after: after)
    }
    var readsNeighboursByRange: Bool { base.readsNeighboursByRange }
    func hasIndex(serving query: BoundQuery) throws(StoreError) -> Bool { try base.hasIndex(serving: query) }
    func createIndex(serving query: BoundQuery) throws(StoreError) { try base.createIndex(serving: query) }
    func committedRows(_ query: BoundQuery, ranks: Range<Int>) throws(StoreError) -> [[Value]] { try base.committedRows(query, ranks: ranks) }
    var changeLogRetention: ChangeLogRetention {
        get { base.changeLogRetention }
        set { base.changeLogRetention = newValue }
    }
    func changes(of entity: Entity, since position: Int64, readingRows scope: RowReadScope?) throws(StoreError) -> CommittedChanges {
        try base.changes(of: entity, since: position, readingRows: scope)
    }
    func storeIdentifier() throws(StoreError) -> String { try base.storeIdentifier() }
    func changeLogEntryDigest(at position: Int64) throws(StoreError) -> String? { try base.changeLogEntryDigest(at: position) }
    func noteCommittedState() { base.noteCommittedState() }
    func pruneChanges(of entities: [Entity]) { base.pruneChanges(of: entities) }
    func isTracking(_ entityName: String) -> Bool { base.isTracking(entityName) }
    func findTracking(of entities: [Entity]) throws(StoreError) -> [Entity] { try base.findTracking(of: entities) }
    func startTracking(_ entities: [Entity]) throws(StoreError) { note(); try base.startTracking(entities) }
    func checkTable(of entity: Entity, always: Bool) throws(StoreError) { try base.checkTable(of: entity, always: always) }
    func checkSchema(of entities: [Entity], observed: Set<String>) throws(StoreError) -> SchemaCheck {
        try base.checkSchema(of: entities, observed: observed)
    }
}

@Suite("The storage seam")
struct StorageSeamTests {

    private static func stores() throws -> (plain: Store, seamed: Store, backend: ForwardingBackend, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-seam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plain = try Store(path: folder.appendingPathComponent("plain.sqlite").path)
        let backend = ForwardingBackend(base: try SQLiteStorage(path: folder.appendingPathComponent("seamed.sqlite").path, readOnly: false))
        let seamed = try Store(storage: backend, temporaryDirectory: folder)
        let post = try Entity("Post", key: "id", attributes: [
            Attribute("id", .string), Attribute("rank", .integer), Attribute("topic", .string),
        ])
        for store in [plain, seamed] { try store.define(post) }
        return (plain, seamed, backend, folder)
    }

    /// The same writes, over SQLite's backend and over another one: the delegate hears
    /// the same groups, and the other backend was asked for the rows, the scans and the
    /// changes — nothing reached SQLite around it.
    @Test func controllersOverAnotherBackendHearTheSameGroups() throws {
        let (plain, seamed, backend, _) = try Self.stores()
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("topic"), SortKey("rank")], sectionAttribute: "topic")
        var recorders: [GroupRecorder] = []
        var controllers: [ResultsController] = []
        for store in [plain, seamed] {
            let recorder = GroupRecorder()
            let controller = try ResultsController(store: store, request: request)
            controller.delegate = recorder
            try controller.performFetch()
            recorders.append(recorder)
            controllers.append(controller)
        }
        for store in [plain, seamed] {
            try store.write {
                for index in 0..<20 { try store.insert("Post", ["id": .string("p\(index)"), "rank": .integer(Int64(index % 7)), "topic": .string(index % 3 == 0 ? "a" : "b")]) }
            }
            try store.update("Post", key: "p3", ["topic": "c", "rank": 0])
            try store.update("Post", key: "p4", ["rank": 4])   // written back: no change
            try store.write {
                try store.delete("Post", key: "p0")
                try store.update("Post", key: "p1", ["rank": 99])
            }
            try store.execute("UPDATE Post SET topic = 'a' WHERE rank > 5")
        }
        let plainGroups = recorders[0].takeGroups()
        #expect(plainGroups.count == 4)
        #expect(recorders[1].takeGroups() == plainGroups)
        #expect(try controllers[1].fetchedObjects.map(\.key) == controllers[0].fetchedObjects.map(\.key))
        #expect(recorders[1].errors.isEmpty && recorders[1].callbackOrderProblems.isEmpty)
        #expect(backend.calls["orderedScan", default: 0] >= 1)   // the fetch, and the re-fetch of a bulk commit
        #expect(backend.calls["startTracking", default: 0] == 1)
        #expect(backend.calls["collectChanges", default: 0] >= 4)
        #expect(backend.calls["insert", default: 0] == 20)
        #expect(backend.calls["execute", default: 0] == 1)
    }

    /// A window opened cold saves its rows in its token, and a resume from it reads by key
    /// none of the rows it showed that no commit since touched: they are as the token holds
    /// them (issue 37: a resume costs what changed). The same token without its rows reads
    /// them, and both resumes give the same window and group.
    @Test func aResumeFromATokenWithRowsReadsNoShownRowTheLogDoesNotName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-seam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
        let token: ResumeToken
        let saved: [ListSection<Value, Value>]
        do {
            let store = try Store(path: path)
            try store.define(Entity("Post", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer), Attribute("topic", .string)]))
            try store.write {
                for index in 0..<40 { try store.insert("Post", ["id": .string("p\(index + 10)"), "rank": .integer(Int64(index)), "topic": "t"]) }
            }
            let controller = try ResultsController(store: store, request: request)
            try controller.setWindow(.offset(10, length: 5))
            try controller.performFetch()
            (saved, token) = (controller.snapshot, try controller.resumeToken())
        }
        #expect(saved.flatMap(\.items) == ["p20", "p21", "p22", "p23", "p24"])
        let other = try ExternalConnection(path: path)
        try other.execute("UPDATE Post SET topic = 'below' WHERE rank >= 30; UPDATE Post SET topic = 'shown' WHERE id = 'p22'")

        var results: [(snapshot: [ListSection<Value, Value>], groups: [ChangeGroup<Value, Value>], topics: [Value?])] = []
        for resumeFrom in [try ResumeToken(token.encoded), ResumeToken(store: token.store, request: token.request, position: token.position,
                                                                        window: token.window, firstRank: token.firstRank, sections: token.sections)] {
            let backend = ForwardingBackend(base: try SQLiteStorage(path: path, readOnly: false))
            // (A store given a temporary directory removes it when it goes.)
            let scratch = folder.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let store = try Store(storage: backend, temporaryDirectory: scratch)
            let resumed = try ResultsController(store: store, request: request)
            let recorder = GroupRecorder()
            resumed.delegate = recorder
            try resumed.performFetch(resumingFrom: resumeFrom)
            let read = Set(backend.keysRead)
            if resumeFrom.shownRows == nil {
                #expect(read == ["p20", "p21", "p23", "p24"])
            } else {
                #expect(read.isDisjoint(with: saved.flatMap(\.items)), "\(read)")
            }
            results.append((resumed.snapshot, recorder.takeGroups(), try resumed.fetchedObjects.map { $0["topic"] }))
        }
        #expect(results[0].snapshot == saved && results[1].snapshot == saved)
        #expect(results[0].groups == results[1].groups)
        #expect(results[0].groups.first?.objectChanges.map(\.item) == ["p22"])
        #expect(results[0].topics == ["t", "t", "shown", "t", "t"] && results[1].topics == results[0].topics)
    }

    /// A backend whose read of changes fails: the delegate hears the error, and the next
    /// delivery brings the results back with one resync group — whichever backend failed.
    @Test func aFailureOfTheBackendReachesTheErrorChannelAndResyncs() throws {
        let (_, store, backend, _) = try Self.stores()
        let recorder = GroupRecorder()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        controller.delegate = recorder
        try controller.performFetch()
        try store.insert("Post", ["id": "p1", "rank": 1, "topic": "a"])
        backend.nextCollectFailure = .database(DatabaseError(code: .error, message: "the disk went away"))
        try store.insert("Post", ["id": "p2", "rank": 2, "topic": "a"])
        #expect(recorder.errors.map(\.code) == [.database])
        #expect(try controller.fetchedObjects.map(\.key) == ["p1"])
        try store.insert("Post", ["id": "p0", "rank": 0, "topic": "a"])
        #expect(try controller.fetchedObjects.map(\.key) == ["p0", "p1", "p2"])
        let groups = recorder.takeGroups()
        #expect(groups.count == 2)
        #expect(Set(groups.last?.objectChanges.filter { $0.type == .insert }.map(\.item) ?? []) == ["p0", "p2"])
        #expect(recorder.callbackOrderProblems.isEmpty)
    }
}
