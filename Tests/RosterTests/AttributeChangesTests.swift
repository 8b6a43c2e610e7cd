import Foundation
import RosterTestSupport
import RosterUpdates
import Testing
@testable import Roster

/// ``FetchRequest/displayedAttributes`` and ``FetchRequest/reportsChangedAttributes``: a
/// write to an attribute the list does not display reports nothing, every update and
/// every move that changed values names exactly the attributes that changed, and the
/// results stay exactly those of a live query without the options.
@Suite("Displayed and changed attributes")
struct AttributeChangesTests {
    /// Post: `title` is displayed; `day` (section), `rank` (sort and predicate) place the
    /// object; `score` and `pinned` are neither.
    static func request(options: Bool) -> FetchRequest {
        FetchRequest(entity: "Post", predicate: QueryPredicate.all, sortKeys: [SortKey("day", ascending: false), SortKey("rank")],
                     sectionAttribute: "day", displayedAttributes: options ? ["title"] : nil, reportsChangedAttributes: options)
    }

    static let names = ["id", "title", "day", "rank", "score", "pinned"]

    static func rows(_ store: Store, keys: Range<Int>) throws -> [Value: [Value]] {
        var rows: [Value: [Value]] = [:]
        for index in keys {
            let key = Value.string("p\(index)")
            if let object = try store.fetch("Post", key: key) { rows[key] = object.values }
        }
        return rows
    }

    @Test("random writes: silent columns report nothing, changed attributes are exact, results match a query without options",
          arguments: [(1, .incremental), (2, .incremental), (3, .incremental), (4, .refetchAndDiff), (5, .refetchAndDiff)] as [(UInt64, ResultsEngineKind)])
    func randomWrites(seed: UInt64, engine: ResultsEngineKind) throws {
        var random = SplitMix64(seed: seed)
        let store = try postStore()
        let keys = 0..<24
        func randomValues() -> [String: Value] {
            if random.chance(0.25) { return ["title": .string("t\(Int.random(in: 0..<4, using: &random))")] }
            if random.chance(0.2) { return ["score": .double(Double(Int.random(in: 0..<4, using: &random))), "pinned": .bool(random.chance(0.5))] }
            var values: [String: Value] = [:]
            for name in Self.names.dropFirst() where random.chance(0.35) {
                values[name] = switch name {
                case "title": .string("t\(Int.random(in: 0..<4, using: &random))")
                case "day": .string("d\(Int.random(in: 0..<3, using: &random))")
                case "rank": .integer(Int64.random(in: 0..<6, using: &random))
                case "score": .double(Double(Int.random(in: 0..<4, using: &random)) / 2)
                default: .bool(random.chance(0.5))
                }
            }
            return values
        }
        try store.write {
            for index in keys where random.chance(0.7) {
                try store.insert("Post", ["id": .string("p\(index)"), "title": "t0", "day": "d0", "rank": .integer(Int64(index % 5))])
            }
        }
        let described = try ResultsController(store: store, request: Self.request(options: true), engine: engine)
        let plain = try ResultsController(store: store, request: Self.request(options: false))
        let recorder = GroupRecorder()
        described.delegate = recorder
        try described.performFetch()
        try plain.performFetch()
        var heardSilentOnly = 0, heardNamed = 0
        for _ in 0..<60 {
            let before = try Self.rows(store, keys: keys)
            let shownBefore = described.snapshot
            try store.write {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let key = Value.string("p\(Int.random(in: keys, using: &random))")
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: try? store.insert("Post", ["id": key, "title": "t1", "day": "d1", "rank": 1])
                    case 1: try? store.delete("Post", key: key)
                    default: try? store.update("Post", key: key, randomValues())
                    }
                }
            }
            let after = try Self.rows(store, keys: keys)
            let heard = recorder.takeGroups()
            #expect(described.snapshot == plain.snapshot)
            // Every value is current, silent columns included.
            for key in described.snapshot.flatMap(\.items) {
                #expect(described.indexPath(for: key).flatMap { described.object(at: $0)?.values } == after[key])
            }
            func changed(_ key: Value) -> [String] {
                guard let old = before[key], let new = after[key] else { return [] }
                return Self.names.indices.filter { old[$0] != new[$0] }.map { Self.names[$0] }
            }
            let group = heard.isEmpty ? ChangeGroup<Value, Value>() : try #require(described.lastChange)
            #expect(heard.count <= 1)
            #expect(try group.apply(to: shownBefore) == described.snapshot)
            for object in group.objectChanges {
                switch object.type {
                case .update:
                    #expect(changed(object.item).contains("title"), "update of \(object.item) without a displayed change")
                    #expect(object.changedAttributes == changed(object.item))
                    heardNamed += 1
                case .move:
                    let names = changed(object.item)
                    #expect(object.changedAttributes == (names.isEmpty ? nil : names))
                    if !names.isEmpty { heardNamed += 1 }
                default:
                    #expect(object.changedAttributes == nil)
                }
            }
            // Every object that stayed with a new title is heard; one that changed only
            // silent columns is not.
            let staying = Set(shownBefore.flatMap(\.items)).intersection(described.snapshot.flatMap(\.items))
            for key in staying {
                let names = changed(key)
                let events = group.objectChanges.filter { $0.item == key }
                if names.contains("title") { #expect(!events.isEmpty, "\(key) changed its title unheard") }
                if !names.isEmpty && names.allSatisfy({ $0 == "score" || $0 == "pinned" }) {
                    #expect(events.isEmpty, "\(key) changed only \(names) and was heard")
                    heardSilentOnly += 1
                }
            }
        }
        #expect(recorder.callbackOrderProblems.isEmpty)
        #expect(heardSilentOnly > 5 && heardNamed > 15, "the writes should exercise both rules: \(heardSilentOnly) silent, \(heardNamed) updates")
    }

    @Test("a user-driven reorder: the renumbered rows, which display no changed attribute, report nothing")
    func userDrivenChange() throws {
        let store = try postStore()
        try store.write {
            for index in 1...4 { try store.insert("Post", ["id": .string("p\(index)"), "title": "t", "day": "d", "rank": .integer(Int64(index))]) }
        }
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")], displayedAttributes: ["title"], reportsChangedAttributes: true)
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        // The user drags p1 below p3; the write renumbers p1, p2, p3 and retitles p2.
        try controller.performUserDrivenChange([.move(key: "p1", to: IndexPath(item: 2, section: 0))]) {
            try store.write {
                try store.update("Post", key: "p2", ["rank": 1, "title": "T2"])
                try store.update("Post", key: "p3", ["rank": 2])
                try store.update("Post", key: "p1", ["rank": 3])
            }
        }
        let change = try #require(controller.lastChange)
        #expect(recorder.takeGroups().count == 1)
        #expect(change.objectChanges.map(\.item) == ["p2"], "only p2's displayed title changed")
        #expect(change.objectChanges.first?.changedAttributes == ["title", "rank"])
    }

    @Test("windows: both live queries hear displayed changes in the window, named, and nothing of silent ones")
    func windows() async throws {
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")], displayedAttributes: ["title"], reportsChangedAttributes: true)
        @Sendable func fill(_ store: Store) throws {
            for index in 0..<10 { try store.insert("Post", ["id": .string("p\(index)"), "title": "t", "day": "d", "rank": .integer(Int64(index))]) }
        }
        let store = try postStore()
        try store.write { try fill(store) }
        let controller = try ResultsController(store: store, request: request)
        try controller.setWindow(.offset(2, length: 4))
        try controller.performFetch()
        try store.update("Post", key: "p3", ["score": 1.5])
        #expect(controller.lastChange == nil, "a silent write reports nothing")
        try store.update("Post", key: "p3", ["title": "T3", "pinned": true])
        #expect(controller.lastChange?.objectChanges == [ObjectChange<Value>(
            type: .update, item: "p3", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0), changedAttributes: ["title", "pinned"])])
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["score"] == .double(1.5))

        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in try fill(store) }
        let live = try LiveResults(queue: queue, request: request)
        try live.setWindow(.offset(2, length: 4))
        _ = try #require(await live.nextChange())
        try queue.write { store in try store.update("Post", key: "p3", ["score": 1.5]) }
        try queue.write { store in try store.update("Post", key: "p4", ["title": "T4"]) }
        let change = try #require(await live.nextChange())
        #expect(change.group.objectChanges.map(\.item) == ["p4"])
        #expect(change.group.objectChanges.first?.changedAttributes == ["title"])
        #expect(live.object(at: IndexPath(item: 1, section: 0))?["score"] == .double(1.5))
    }

    @Test("without the options, an update names nothing and a write to any column is an update")
    func offByDefault() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "a", "day": "d", "rank": 1])
        let controller = try ResultsController(store: store, request: Self.request(options: false))
        try controller.performFetch()
        try store.update("Post", key: "p1", ["score": 2.5])
        let change = try #require(controller.lastChange)
        #expect(change.objectChanges == [ObjectChange(type: .update, item: "p1", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))])
        #expect(change.objectChanges[0].changedAttributes == nil)
    }

    @Test("an unknown displayed attribute is a clear error when the request is bound")
    func unknownDisplayedAttribute() throws {
        let store = try postStore()
        var request = Self.request(options: true)
        request.displayedAttributes = ["title", "subtitle"]
        #expect {
            _ = try ResultsController(store: store, request: request)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unknownAttribute && error.entity == "Post" && error.attribute == "subtitle"
        }
    }

    @Test("LiveResults: a silent write is not delivered, and the next change names what changed")
    func liveResults() async throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in
            try store.insert("Post", ["id": "p1", "title": "a", "day": "d", "rank": 1])
            try store.insert("Post", ["id": "p2", "title": "b", "day": "d", "rank": 2])
        }
        let posts = try LiveResults(queue: queue, request: Self.request(options: true), adapter: BatchAdapter(reloadingAttributes: []))
        try queue.write { store in try store.update("Post", key: "p1", ["score": 9.5, "pinned": true]) }
        try queue.write { store in try store.update("Post", key: "p2", ["title": "B", "score": 1.0]) }
        let change = try #require(await posts.nextChange())
        #expect(change.group.objectChanges.map(\.item) == ["p2"])
        #expect(change.group.objectChanges.first?.changedAttributes == ["title", "score"])
        #expect(posts.object(at: IndexPath(item: 0, section: 0))?["score"] == .double(9.5))
        // The batch and the snapshot reconfigure p2 rather than reload it.
        #expect(change.batch.reconfigureItems == [IndexPath(item: 1, section: 0)] && change.batch.reloadItems.isEmpty)
        #expect(change.snapshot.reconfiguredItemIdentifiers == ["p2"] && change.snapshot.reloadedItemIdentifiers.isEmpty)
    }
}
