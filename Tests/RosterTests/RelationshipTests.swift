import Foundation
import RosterTestSupport
import RosterUpdates
import Testing
@testable import Roster

/// To-one relationships and key paths: live queries that filter, sort and section by
/// related objects' values follow every write to those objects — through the store, raw
/// SQL or another connection, dangling references included — exactly as a fresh SQL join
/// says, with callbacks that replay, valid batches and the fewest moves; delete rules;
/// definitions kept and migrated; bad paths and definitions refused.
@Suite("Relationships and key paths")
struct RelationshipTests {
    static func entities() throws -> [Entity] {
        [
            try Entity("Group", key: "id", attributes: [Attribute("id", .string), Attribute("name", .string)]),
            try Entity("Feed", key: "id", attributes: [
                Attribute("id", .string), Attribute("title", .string), Attribute("muted", .bool),
                .relationship("group", to: "Group", type: .string, deleteRule: .cascade),
            ]),
            try Entity("Entry", key: "id", attributes: [
                Attribute("id", .string), Attribute("title", .string), Attribute("read", .bool), Attribute("rank", .integer),
                .relationship("feed", to: "Feed", type: .string),
            ]),
        ]
    }

    static func store() throws -> Store {
        let store = try Store.temporary()
        for entity in try entities() { try store.define(entity) }
        return store
    }

    /// A store with feed f1 ("A") and its unread entry e1.
    static func storeWithOneEntry() throws -> Store {
        let store = try store()
        try store.write {
            try store.insert("Feed", ["id": "f1", "title": "A", "muted": false])
            try store.insert("Entry", ["id": "e1", "title": "x", "read": false, "rank": 1, "feed": "f1"])
        }
        return store
    }

    /// Entries of feeds that are not muted, sectioned by the feed's title, with the unread
    /// count and the ranks' sum per feed.
    static let byFeed = FetchRequest(
        entity: "Entry", predicate: try! QueryPredicate("feed.muted == NO"), sortKeys: [SortKey("feed.title"), SortKey("rank")],
        sectionAttribute: "feed.title", aggregates: [.count("unread", where: try! QueryPredicate("read == NO")), .sum("ranks", of: "rank")])
    /// Entries whose feed's group's name begins with g, by that name (descending), then title.
    static let byGroup = FetchRequest(
        entity: "Entry", predicate: try! QueryPredicate("feed.group.name BEGINSWITH 'g'"),
        sortKeys: [SortKey("feed.group.name", ascending: false), SortKey("title")])

    /// What a fresh SQL join says for each request: the sections of keys, each key's row of
    /// the values the request reads (its key-path columns too: `feed.group`, the key that
    /// `feed.group.name` follows, is one), and the unread count per section (byFeed).
    static func expected(_ store: Store, _ request: FetchRequest) throws -> (sections: [ListSection<Value, Value>], rows: [Value: [Value]], unread: [Value: Int64]) {
        let sql = request == byFeed
            ? """
              SELECT e.id, f.title, e.title, e.read, e.rank, e.feed, f.muted, NULL FROM Entry e LEFT JOIN Feed f ON f.id = e.feed
              WHERE f.muted IS 0 ORDER BY f.title, e.rank, e.id
              """
            : """
              SELECT e.id, NULL, e.title, e.read, e.rank, e.feed, g.name, f."group" FROM Entry e LEFT JOIN Feed f ON f.id = e.feed
              LEFT JOIN "Group" g ON g.id = f."group" WHERE g.name GLOB 'g*' ORDER BY g.name DESC, e.title, e.id
              """
        let statement = try store.writer.prepare(sql)
        var sections: [ListSection<Value, Value>] = []
        var rows: [Value: [Value]] = [:]
        var unread: [Value: Int64] = [:]
        while try statement.step() {
            let key = statement.column(0), section = statement.column(1)
            if sections.last?.id != section || sections.isEmpty { sections.append(ListSection(id: section, items: [])) }
            sections[sections.count - 1].items.append(key)
            rows[key] = (1...7).map { statement.column($0) }
            if statement.column(3) == .integer(0) { unread[section, default: 0] += 1 } else { unread[section, default: 0] += 0 }
        }
        return (sections, rows, unread)
    }

    /// One random write: entries, feeds and groups inserted, changed and deleted through
    /// the store (delete rules applied), or feeds renamed, muted, deleted and entries moved
    /// by another connection (which can leave references dangling).
    static func randomWrite(_ store: Store, other: ExternalConnection, random: inout SplitMix64) throws {
        func pick(_ prefix: String, _ count: Int) -> Value { .string("\(prefix)\(Int.random(in: 0..<count, using: &random))") }
        switch Int.random(in: 0..<24, using: &random) {
        case 0:
            try other.execute("UPDATE Feed SET title = 't\(Int.random(in: 0..<5, using: &random))' WHERE id = 'f\(Int.random(in: 0..<6, using: &random))'")
            try store.pollExternalChanges()
        case 1:
            try other.execute("DELETE FROM Feed WHERE id = 'f\(Int.random(in: 0..<6, using: &random))'")
            try store.pollExternalChanges()
        case 2:
            try other.execute("UPDATE Entry SET feed = 'f\(Int.random(in: 0..<7, using: &random))' WHERE rank = \(Int.random(in: 0..<4, using: &random))")
            try store.pollExternalChanges()
        case 3:
            try store.execute("UPDATE Feed SET muted = 1 - muted WHERE title = 't\(Int.random(in: 0..<5, using: &random))'")
        case 4, 5:
            let key = pick("g", 3)
            if random.chance(0.3) {
                try? store.delete("Group", key: key)
            } else {
                let name: Value = random.chance(0.1) ? .null : .string((random.chance(0.5) ? "g" : "h") + "\(Int.random(in: 0..<3, using: &random))")
                if (try store.fetch("Group", key: key)) == nil { try store.insert("Group", ["id": key, "name": name]) } else { try store.update("Group", key: key, ["name": name]) }
            }
        case 6...10:
            let key = pick("f", 6)
            if random.chance(0.15) {
                try? store.delete("Feed", key: key)
                return
            }
            var values: [String: Value] = [:]
            if random.chance(0.5) { values["title"] = random.chance(0.1) ? .null : .string("t\(Int.random(in: 0..<5, using: &random))") }
            if random.chance(0.4) { values["muted"] = .bool(random.chance(0.3)) }
            if random.chance(0.3) { values["group"] = pick("g", 3) }
            if (try store.fetch("Feed", key: key)) == nil {
                values["id"] = key
                if values["muted"] == nil { values["muted"] = false }
                try store.insert("Feed", values)
            } else if !values.isEmpty {
                try store.update("Feed", key: key, values)
            }
        default:
            try store.write {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let key = pick("e", 16)
                    var values: [String: Value] = [:]
                    if random.chance(0.4) { values["feed"] = random.chance(0.1) ? .null : pick("f", 7) }
                    if random.chance(0.4) { values["read"] = .bool(random.chance(0.5)) }
                    if random.chance(0.3) { values["rank"] = .integer(Int64.random(in: 0..<4, using: &random)) }
                    if random.chance(0.3) { values["title"] = .string("e\(Int.random(in: 0..<4, using: &random))") }
                    if random.chance(0.1) {
                        try? store.delete("Entry", key: key)
                    } else if (try store.fetch("Entry", key: key)) == nil {
                        values["id"] = key
                        try store.insert("Entry", values)
                    } else if !values.isEmpty {
                        try store.update("Entry", key: key, values)
                    }
                }
            }
        }
    }

    final class Watcher {
        let request: FetchRequest
        let controller: ResultsController
        let twin: ResultsController
        let recorder = GroupRecorder()
        let twinRecorder = GroupRecorder()
        var snapshot: [ListSection<Value, Value>]
        var rows: [Value: [Value]]

        init(_ request: FetchRequest, store: Store) throws {
            self.request = request
            controller = try ResultsController(store: store, request: request)
            twin = try ResultsController(store: store, request: request, engine: .refetchAndDiff)
            controller.delegate = recorder
            twin.delegate = twinRecorder
            try controller.performFetch()
            try twin.performFetch()
            (snapshot, rows, _) = try RelationshipTests.expected(store, request)
        }
    }

    @Test("random writes to entries, feeds and groups: every live query equals a fresh join after every commit",
          arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomWrites(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = try Self.store()
        let other = try ExternalConnection(path: store.path)
        for _ in 0..<30 { try Self.randomWrite(store, other: other, random: &random) }
        let watchers = [try Watcher(Self.byFeed, store: store), try Watcher(Self.byGroup, store: store)]
        var changes = 0
        for step in 0..<150 {
            try Self.randomWrite(store, other: other, random: &random)
            for watcher in watchers {
                let context = "seed \(seed) step \(step) \(watcher.request == Self.byFeed ? "byFeed" : "byGroup")"
                let (expected, rows, unread) = try Self.expected(store, watcher.request)
                let old = watcher.snapshot
                #expect(watcher.controller.snapshot == expected, "\(context): results are not the join's")
                #expect(watcher.twin.snapshot == expected, "\(context): the re-fetching engine's results are not the join's")
                let groups = watcher.recorder.takeGroups()
                #expect(groups == watcher.twinRecorder.takeGroups(), "\(context): the engines report different changes")
                #expect(groups.count <= 1, "\(context): \(groups.count) groups")
                if let group = groups.first {
                    changes += 1
                    #expect(try group.apply(to: old) == expected, "\(context): the callbacks do not replay")
                    try BatchAdapter().batch(for: group).validate(old: old, new: expected)
                    let fewest = fewestMoves(from: old, to: expected)
                    #expect(fewest == nil || moveCount(group) == fewest?.moves, "\(context): \(moveCount(group)) moves, \(fewest?.moves ?? 0) suffice")
                    let moved = Set(group.objectChanges.filter { $0.type == .move }.map(\.item))
                    let updated = Set(group.objectChanges.filter { $0.type == .update }.map(\.item))
                    let staying = Set(old.flatMap(\.items)).intersection(expected.flatMap(\.items)).subtracting(moved)
                    #expect(updated == staying.filter { watcher.rows[$0] != rows[$0] }, "\(context): updates \(updated)")
                } else {
                    #expect(old == expected, "\(context): the results changed and nothing was reported")
                    let changed = Set(old.flatMap(\.items)).filter { watcher.rows[$0] != rows[$0] }
                    #expect(changed.isEmpty, "\(context): \(changed) changed and nothing was reported")
                }
                if watcher.request == Self.byFeed {
                    for section in expected {
                        #expect(watcher.controller.aggregates(forSectionName: section.id)?["unread"] == .integer(unread[section.id] ?? 0), "\(context): unread of \(section.id)")
                    }
                    #expect(watcher.controller.aggregates?.numberOfObjects == expected.reduce(0) { $0 + $1.items.count })
                }
                #expect(watcher.recorder.callbackOrderProblems.isEmpty && watcher.recorder.errors.isEmpty, "\(context): \(watcher.recorder.errors)")
                watcher.snapshot = expected
                watcher.rows = rows
            }
        }
        #expect(changes > 60)
    }

    @Test("LiveResults through key paths: coalesced commits give the join's results")
    func liveResults() async throws {
        var random = SplitMix64(seed: 11)
        let queue = try StoreQueue.temporary()
        try queue.read { store in for entity in try Self.entities() { try store.define(entity) } }
        let live = try LiveResults(queue: queue, request: Self.byFeed)
        var shown = try queue.read { store in try Self.expected(store, Self.byFeed).sections }
        for step in 0..<80 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let seed = random.next()
                try queue.read { store in
                    var generator = SplitMix64(seed: seed)
                    try Self.randomWrite(store, other: ExternalConnection(path: store.path), random: &generator)
                }
            }
            let expected = try queue.read { store in try Self.expected(store, Self.byFeed).sections }
            while let change = try live.takeChange() {
                #expect(try change.group.apply(to: shown) == change.snapshot.sections, "step \(step): the callbacks do not replay")
                shown = change.snapshot.sections
            }
            #expect(live.snapshot.sections == expected, "step \(step)")
            #expect(shown == expected, "step \(step)")
        }
    }

    @Test("renaming a feed re-sections its entries in one group, and the unread counts follow")
    func renameFeed() throws {
        let store = try Self.store()
        try store.write {
            try store.insert("Feed", ["id": "f1", "title": "Alpha", "muted": false])
            try store.insert("Feed", ["id": "f2", "title": "Beta", "muted": false])
            for index in 0..<3 { try store.insert("Entry", ["id": .string("a\(index)"), "title": "x", "read": false, "rank": .integer(Int64(index)), "feed": "f1"]) }
            try store.insert("Entry", ["id": "b0", "title": "y", "read": true, "rank": 0, "feed": "f2"])
        }
        let controller = try ResultsController(store: store, request: Self.byFeed)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.update("Feed", key: "f1", ["title": "Gamma"])
        let group = try #require(recorder.takeGroups().first)
        #expect(group.sectionChanges == [SectionChange(type: .delete, index: 0, section: "Alpha"), SectionChange(type: .insert, index: 1, section: "Gamma")])
        #expect(group.objectChanges.map(\.type) == [.move, .move, .move])
        #expect(controller.snapshot.map(\.id) == ["Beta", "Gamma"])
        let change = try #require(recorder.takeAggregateChanges().first)
        #expect(change.sections.map(\.name) == ["Alpha", "Gamma"])
        #expect(change.sections.last?.values["unread"] == .integer(3))
        #expect(controller.object(at: IndexPath(item: 0, section: 1))?["feed.title"] == "Gamma")
        // A change to an attribute of the feed no path reads reports nothing.
        try store.update("Feed", key: "f1", ["group": nil])
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test("moving a feed to another group moves its entries' counts, through two steps")
    func feedMovedToAnotherGroup() throws {
        // Neither group is written: the entries' `feed.group.name` before the commit comes
        // from the feed's old group as it is, through the feed's row before.
        let store = try Self.store()
        try store.write {
            try store.insert("Group", ["id": "g1", "name": "g-one"])
            try store.insert("Group", ["id": "g2", "name": "g-two"])
            try store.insert("Feed", ["id": "f1", "title": "Alpha", "muted": false, "group": "g1"])
            try store.insert("Feed", ["id": "f2", "title": "Beta", "muted": false, "group": "g2"])
            for index in 0..<3 { try store.insert("Entry", ["id": .string("a\(index)"), "title": .string("x\(index)"), "read": false, "rank": .integer(Int64(index)), "feed": "f1"]) }
            try store.insert("Entry", ["id": "b0", "title": "y", "read": false, "rank": 0, "feed": "f2"])
        }
        let request = FetchRequest(entity: "Entry", sortKeys: [SortKey("feed.group.name"), SortKey("title")], sectionAttribute: "feed.group.name",
                                   aggregates: [.count("unread", where: try QueryPredicate("read == NO"))])
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.update("Feed", key: "f1", ["group": "g2"])
        let group = try #require(recorder.takeGroups().first)
        #expect(group.sectionChanges == [SectionChange(type: .delete, index: 0, section: "g-one")])
        #expect(group.objectChanges.map(\.type) == [.move, .move, .move])
        let change = try #require(recorder.takeAggregateChanges().first)
        #expect(change.sections.map(\.name) == ["g-one", "g-two"])
        #expect(change.sections.map { $0.values["unread"] } == [.integer(0), .integer(4)])
        #expect(controller.aggregates(forSectionName: "g-two")?["unread"] == .integer(4))
    }

    @Test("delete rules: nullify, cascade through two levels, deny; all or nothing")
    func deleteRules() throws {
        let store = try Store.temporary()
        try store.define(Entity("Owner", key: "id", attributes: [Attribute("id", .integer)]))
        try store.define(Entity("Board", key: "id", attributes: [
            Attribute("id", .integer), .relationship("owner", to: "Owner", type: .integer, deleteRule: .cascade),
        ]))
        try store.define(Entity("Card", key: "id", attributes: [
            Attribute("id", .integer), .relationship("board", to: "Board", type: .integer, deleteRule: .cascade),
            .relationship("parent", to: "Card", type: .integer),
        ]))
        try store.define(Entity("Pin", key: "id", attributes: [
            Attribute("id", .integer), .relationship("card", to: "Card", type: .integer, deleteRule: .deny),
        ]))
        try store.write {
            try store.insert("Owner", ["id": 1])
            try store.insert("Board", ["id": 10, "owner": 1])
            try store.insert("Card", ["id": 100, "board": 10])
            try store.insert("Card", ["id": 101, "board": 10, "parent": 100])
            try store.insert("Board", ["id": 11])
            try store.insert("Card", ["id": 110, "board": 11, "parent": 100])
            try store.insert("Pin", ["id": 1000, "card": 101])
        }
        // Deleting the owner would cascade to card 101, which a pin denies: nothing changes.
        #expect {
            try store.delete("Owner", key: 1)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .deleteDenied else { return false }
            return error.description.contains("Pin 1000") && error.description.contains("'card'")
        }
        #expect(try store.fetch("Owner", key: 1) != nil && store.fetch("Card", key: 100) != nil)
        try store.delete("Pin", key: 1000)
        try store.delete("Owner", key: 1)
        #expect(try store.fetch("Board", key: 10) == nil)
        #expect(try store.fetch("Card", key: 100) == nil && store.fetch("Card", key: 101) == nil)
        // Card 110 pointed at card 100 as its parent: nullified.
        #expect(try store.fetch("Card", key: 110)?["parent"] == .null)
        #expect(try store.fetch("Card", key: 110)?["board"] == 11)
    }

    @Test("delete rules do not depend on the order entities are named in", arguments: ["Bookmark", "Zbookmark"])
    func deleteRulesWhateverTheNames(bookmark: String) throws {
        let store = try Store.temporary()
        try store.define(Entity("Feed", key: "id", attributes: [Attribute("id", .string)]))
        try store.define(Entity("Entry", key: "id", attributes: [Attribute("id", .string), .relationship("feed", to: "Feed", type: .string, deleteRule: .cascade)]))
        try store.define(Entity(bookmark, key: "id", attributes: [
            Attribute("id", .string), .relationship("entry", to: "Entry", type: .string, deleteRule: .cascade),
            .relationship("feed", to: "Feed", type: .string, deleteRule: .deny),
        ]))
        try store.write {
            try store.insert("Feed", ["id": "f1"])
            try store.insert("Feed", ["id": "f2"])
            try store.insert("Entry", ["id": "e1", "feed": "f1"])
            try store.insert(bookmark, ["id": "b1", "entry": "e1", "feed": "f1"])
            try store.insert(bookmark, ["id": "b2", "entry": nil, "feed": "f2"])
        }
        // b1 goes with e1, so its deny does not hold f1 back.
        try store.delete("Feed", key: "f1")
        #expect(try store.fetch(bookmark, key: "b1") == nil && store.fetch("Entry", key: "e1") == nil)
        // b2 stays, so it holds f2.
        #expect(throws: StoreError.self) { try store.delete("Feed", key: "f2") }
        #expect(try store.fetch("Feed", key: "f2") != nil)
    }

    @Test("a request that starts observing a related entity has its rows noted from the next transaction")
    func newlyObservedEntityRowsAreNotReadBack() throws {
        let store = try Self.storeWithOneEntry()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Entry", sortKeys: [SortKey("rank")]))
        try controller.performFetch()
        try controller.setRequest(Self.byFeed)
        let images = try #require(store.sqlite.capture?.images)
        let taken = images.rowsTaken
        // The feed's rename is delivered from the rows its transaction left, not read back.
        try store.update("Feed", key: "f1", ["title": "B"])
        #expect(images.rowsTaken == taken + 1)
        #expect(try controller.sections.map(\.name) == ["B"])
    }

    @Test("a delegate that fetches again from a callback keeps its aggregates exact")
    func refetchFromACallback() throws {
        let store = try Self.storeWithOneEntry()
        final class Refetching: ResultsControllerDelegate {
            func controllerDidChangeContent(_ controller: ResultsController) { try? controller.performFetch() }
        }
        let delegate = Refetching()
        let controller = try ResultsController(store: store, request: Self.byFeed)
        controller.delegate = delegate
        try controller.performFetch()
        try store.insert("Entry", ["id": "e2", "title": "y", "read": false, "rank": 2, "feed": "f1"])
        #expect(controller.aggregates?["unread"] == .integer(2))
        #expect(controller.aggregates(forSectionName: "A")?.numberOfObjects == 2)
    }

    @Test("LiveResults: a new, wider request and a commit taken together keep the aggregates exact")
    func widerRequestCoalesced() throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in for entity in try Self.entities() { try store.define(entity) } }
        try queue.write { store in
            try store.insert("Feed", ["id": "f1", "title": "A", "muted": false])
            try store.insert("Entry", ["id": "e1", "title": "x", "read": false, "rank": 1, "feed": "f1"])
        }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Entry", aggregates: [.count("n", where: .all)]))
        try live.setRequest(Self.byFeed)
        try queue.write { store in try store.insert("Entry", ["id": "e2", "title": "y", "read": false, "rank": 2, "feed": "f1"]) }
        while try live.takeChange() != nil {}
        #expect(live.aggregates?["unread"] == .integer(2))
        #expect(live.aggregates(forSectionName: "A")?.numberOfObjects == 2)
    }

    @Test("a relationship is kept in the file, added by a migration, and indexed")
    func definitionsAndMigration() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-relationships-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try Store(path: path)
            try store.define(Entity("Feed", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)]))
            try store.define(Entity("Entry", key: "id", attributes: [Attribute("id", .string), Attribute("feedID", .string)]))
            try store.insert("Feed", ["id": "f1", "title": "Alpha"])
            try store.insert("Entry", ["id": "e1", "feedID": "f1"])
            // An existing attribute becomes a relationship, and a new one is added.
            try store.define(Entity("Entry", key: "id", attributes: [
                Attribute("id", .string), .relationship("feedID", to: "Feed", type: .string, deleteRule: .cascade),
                .relationship("also", to: "Feed", type: .string),
            ]))
        }
        let store = try Store(path: path)
        let entry = try #require(store.entities["Entry"])
        #expect(entry.attribute(named: "feedID")?.relationship == Relationship(destination: "Feed", deleteRule: .cascade))
        #expect(entry.attribute(named: "also")?.relationship == Relationship(destination: "Feed"))
        let indexes = try store.writer.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Entry' AND name LIKE '_roster%' ORDER BY name")
        var names: [Value] = []
        while try indexes.step() { names.append(indexes.column(0)) }
        #expect(names == ["_roster_ref_Entry.also", "_roster_ref_Entry.feedID"])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Entry", sectionAttribute: "feedID.title"))
        try controller.performFetch()
        #expect(controller.snapshot == [ListSection(id: "Alpha", items: ["e1"])])
        // A relationship keeps its destination.
        #expect(throws: StoreError.self) {
            try store.define(Entity("Entry", key: "id", attributes: [Attribute("id", .string), Attribute("feedID", .string), Attribute("also", .string)]))
        }
    }

    @Test("bad relationships and key paths are clear errors, and change nothing",
          arguments: [
            ("title.x == 'a'", "'title' of 'Entry' is not a relationship"),
            ("feed.nope == 1", "entity 'Feed' has no attribute 'nope'"),
            ("feed.group.name.x.y == 'a'", "at most 4"),
          ] as [(String, String)])
    func badKeyPaths(predicate: String, message: String) throws {
        let store = try Self.store()
        #expect {
            _ = try ResultsController(store: store, request: FetchRequest(entity: "Entry", predicate: QueryPredicate(predicate)))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .invalidKeyPath && error.description.contains(message)
        }
    }

    @Test("a relationship to an unknown entity, of the wrong type, or on the key is refused")
    func badDefinitions() throws {
        let store = try Self.store()
        for (attributes, message) in [
            ([Attribute("id", .string), .relationship("x", to: "Nope", type: .string)], "does not define"),
            ([Attribute("id", .string), .relationship("x", to: "Feed", type: .integer)], "has a string key"),
            ([.relationship("id", to: "Feed", type: .string)], "cannot be a relationship"),
        ] as [([Attribute], String)] {
            #expect {
                try store.define(Entity("Thing", key: "id", attributes: attributes))
            } throws: { error in
                (error as? StoreError)?.description.contains(message) == true
            }
            #expect(store.entities["Thing"] == nil)
        }
    }
}

/// Records with relationships, and typed key paths through them.
@Suite("Typed key paths")
struct TypedKeyPathTests {
    struct Channel: Record, Equatable {
        var id: String
        var title: String
        var muted: Bool
    }

    struct Episode: Record, Equatable {
        var id: String
        var title: String
        var channel: String?
        static let relationships = ["channel": Relationship(destination: "Channel", deleteRule: .cascade)]
    }

    @Test("a record's relationship, and a typed predicate, sort and section through it")
    func typedRelationships() throws {
        let store = try Store.temporary()
        try store.define(Channel.self)
        try store.define(Episode.self)
        #expect(store.entities["Episode"]?.attribute(named: "channel")?.relationship == Relationship(destination: "Channel", deleteRule: .cascade))
        try store.write {
            try store.save(Channel(id: "c1", title: "Beta", muted: false))
            try store.save(Channel(id: "c2", title: "Alpha", muted: false))
            try store.save(Channel(id: "c3", title: "Gamma", muted: true))
            try store.save(Episode(id: "e1", title: "one", channel: "c1"))
            try store.save(Episode(id: "e2", title: "two", channel: "c2"))
            try store.save(Episode(id: "e3", title: "three", channel: "c3"))
        }
        let request = try FetchRequest(Episode.self, where: .related(\Episode.channel, \Channel.muted == false),
                                       sortedBy: [.ascending(.related(\Episode.channel, \Channel.title)), .ascending(\.title)],
                                       sectionedBy: .related(\Episode.channel, \Channel.title))
        #expect(request.predicate.description == "channel.muted == NO")
        #expect(request.sectionAttribute == "channel.title")
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot == [ListSection(id: "Alpha", items: ["e2"]), ListSection(id: "Beta", items: ["e1"])])
        try store.save(Channel(id: "c3", title: "Gamma", muted: false))
        #expect(controller.snapshot.map(\.id) == ["Alpha", "Beta", "Gamma"])
        #expect(try controller.records(as: Episode.self).map(\.id) == ["e2", "e1", "e3"])
        // Deleting a channel cascades to its episodes.
        try store.delete(Channel.self, key: "c1")
        #expect(controller.snapshot.map(\.id) == ["Alpha", "Gamma"])
        #expect(try store.fetch(Episode.self, key: "e1") == nil)
    }

    struct Broken: Record {
        var id: String
        static let relationships = ["nope": Relationship(destination: "Channel")]
    }

    @Test("a relationship named for no property is an error")
    func unknownRelationshipProperty() throws {
        let store = try Store.temporary()
        #expect {
            try store.define(Broken.self)
        } throws: { error in
            (error as? StoreError)?.description.contains("'nope'") == true
        }
    }
}
