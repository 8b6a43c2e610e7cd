import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The Post entity most tests use.
func postEntity() throws -> Entity {
    try Entity("Post", key: "id", attributes: [
        Attribute("id", .string), Attribute("title", .string), Attribute("day", .string),
        Attribute("rank", .integer), Attribute("score", .double), Attribute("pinned", .bool),
    ])
}

/// A temporary store with the Post entity defined.
func postStore() throws -> Store {
    let store = try Store.temporary()
    try store.define(postEntity())
    return store
}

/// A store file in the temporary folder with Post defined and its change log made, as
/// every Roster before the lazy change log left it; removed when `body` returns.
func withPostStoreFile(_ body: (String) throws -> Void) throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-format-\(UUID().uuidString).sqlite").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    do {
        let store = try Store(path: path)
        try store.define(postEntity())
        try store.ensureTracking(of: store.entity(named: "Post"))
    }
    try body(path)
}

/// Sections of keys, written compactly for expectations: `[("a", ["p1"]), …]`.
func sections(_ pairs: [(Value, [Value])]) -> [ListSection<Value, Value>] {
    pairs.map { ListSection(id: $0.0, items: $0.1) }
}
typealias SortKey = Roster.SortKey

/// A store with posts p1, p2, p3 (ranks 1 to 3, title "t") and a live query over them by
/// rank whose callbacks a ``GroupRecorder`` keeps: the fixture of the change-log, fault
/// and error-channel tests.
final class WatchedPosts {
    let store: Store
    let controller: ResultsController
    let recorder = GroupRecorder()

    init(store: Store? = nil) throws {
        let store = try store ?? postStore()
        self.store = store
        if store.entities["Post"] == nil { try store.define(postEntity()) }
        try store.write {
            for (key, rank) in [("p1", 1), ("p2", 2), ("p3", 3)] {
                try store.insert("Post", ["id": .string(key), "rank": .integer(Int64(rank)), "title": "t"])
            }
        }
        controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        controller.delegate = recorder
        try controller.performFetch()
    }

    /// What the live query hears once `other` ran `sql` and the store looked.
    func heard(after sql: String, on other: Connection) throws -> [ChangeGroup<Value, Value>] {
        try other.execute(sql)
        _ = try store.pollExternalChanges()
        return recorder.takeGroups()
    }

    /// Whether the live query holds what a fresh fetch reads now.
    func isExact() throws -> Bool {
        let fresh = try ResultsController(store: store, request: controller.request)
        try fresh.performFetch()
        return fresh.snapshot == controller.snapshot
    }
}

/// The entries of the newest batch the store's own writes logged for `entity`.
func newestBatch(in store: Store, entity name: String) throws -> [ChangeBatch.Entry] {
    let statement = try store.writer.prepare("SELECT batch FROM _roster_changes WHERE batch IS NOT NULL AND entity = ? ORDER BY seq DESC LIMIT 1")
    try statement.bind([.string(name)])
    guard try statement.step() else { return [] }
    var entries: [ChangeBatch.Entry] = []
    let entity = try store.entity(named: name)
    try statement.withBytes(ofColumn: 0) { (bytes) throws(DatabaseError) in
        try ChangeBatch.forEachEntry(in: bytes, attributes: entity.attributes, keyIndex: entity.keyIndex) { entries.append($0) }
    }
    return entries
}

/// What the last entry for `key` in the newest batch of `entity` holds of its row before,
/// as attribute name → value: the whole row for a delete, the values it changed for an
/// update; nil when the batch has no such entry.
func rowBefore(_ key: Value, inNewestBatchOf name: String, in store: Store) throws -> [String: Value]? {
    let entity = try store.entity(named: name)
    for entry in try newestBatch(in: store, entity: name).reversed() {
        switch entry {
        case let .before(entryKey, row) where entryKey == key:
            return Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), row))
        case let .changed(entryKey, values) where entryKey == key:
            return Dictionary(uniqueKeysWithValues: values.map { (entity.attributes[$0.index].name, $0.value) })
        default:
            continue
        }
    }
    return nil
}
