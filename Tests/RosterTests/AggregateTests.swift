import Foundation
import RosterTestSupport
import Testing
@testable import Roster

/// Live aggregates (``FetchRequest/aggregates``) and ``LiveCount``: after every commit the
/// aggregates equal a fresh SQL `GROUP BY` of the committed rows, the changes reported
/// rebuild them exactly from the first values (none missed, none reported unchanged), and
/// a badge equals a fresh `COUNT(*)`.
@Suite("Live aggregates")
struct AggregateTests {
    /// Posts whose rank is not 2, sectioned by day; pinned ones counted, rank, score and
    /// pinned summed.
    static let request = FetchRequest(
        entity: "Post", predicate: try! QueryPredicate("rank != 2"), sortKeys: [SortKey("day"), SortKey("title")], sectionAttribute: "day",
        aggregates: [.count("pinned", where: try! QueryPredicate("pinned == YES")), .sum("ranks", of: "rank"),
                     .sum("scores", of: "score"), .sum("pins", of: "pinned")])

    /// The aggregates of one group, as the tests compare them: the count, then each value,
    /// scores as the exact decimal sum of the group's scores.
    struct Expected: Equatable {
        var count = 0
        var pinned: Int64 = 0
        var ranks: Int64 = 0
        var scores: Decimal = 0
        var pins: Int64 = 0
    }

    /// Every group of the committed results, read with SQL: the total under nil.
    static func expected(_ store: Store) throws -> (total: Expected, sections: [Value: Expected]) {
        let statement = try store.writer.prepare("SELECT day, pinned, rank, score FROM Post WHERE rank IS NOT 2")
        var total = Expected()
        var sections: [Value: Expected] = [:]
        while try statement.step() {
            let day = statement.column(0)
            for add in [true, false] {
                var group = add ? total : sections[day, default: Expected()]
                group.count += 1
                if case let .integer(pinned) = statement.column(1) {
                    group.pinned += pinned
                    group.pins += pinned
                }
                if case let .integer(rank) = statement.column(2) { group.ranks += rank }
                if case let .double(score) = statement.column(3) { group.scores += Decimal(score) }
                if add { total = group } else { sections[day] = group }
            }
        }
        return (total, sections)
    }

    static func check(_ values: AggregateValues?, against expected: Expected, _ what: String) {
        guard let values else {
            Issue.record("\(what): no aggregates")
            return
        }
        #expect(values.names == ["pinned", "ranks", "scores", "pins"], "\(what)")
        #expect(values.numberOfObjects == expected.count, "\(what)")
        #expect(values["pinned"] == .integer(expected.pinned), "\(what)")
        #expect(values["ranks"] == .integer(expected.ranks), "\(what)")
        #expect(values["pins"] == .integer(expected.pins), "\(what)")
        guard case let .double(score)? = values["scores"] else {
            Issue.record("\(what): scores is \(String(describing: values["scores"])), not a double")
            return
        }
        let exact = NSDecimalNumber(decimal: expected.scores).doubleValue
        #expect(abs(score - exact) <= 1e-9 * max(1, abs(exact)), "\(what): scores \(score), exact \(exact)")
    }

    /// What the delegate was told, applied to what it had: the aggregates it believes.
    struct Heard {
        var total: AggregateValues?
        var sections: [Value: AggregateValues] = [:]

        mutating func take(_ change: AggregateChange) {
            #expect(change.total != total || !change.sections.isEmpty, "a change that changes nothing")
            total = change.total
            for section in change.sections {
                #expect(sections[section.name] ?? Self.empty(section.values) != section.values, "section \(section.name) reported unchanged")
                sections[section.name] = section.values.numberOfObjects == 0 ? nil : section.values
            }
        }

        static func empty(_ like: AggregateValues) -> AggregateValues {
            AggregateValues(numberOfObjects: 0, names: like.names, values: [.integer(0), .integer(0), .double(0), .integer(0)])
        }
    }

    /// One random write: inserts, deletes, updates of every attribute (a score sometimes
    /// huge, so that compensation matters when it leaves), through the store, its raw SQL,
    /// or another connection; sometimes a log pruned by another process (a resync).
    static func randomWrite(_ store: Store, other: ExternalConnection, random: inout SplitMix64) throws {
        func key() -> Value { .string("p\(Int.random(in: 0..<30, using: &random))") }
        func score() -> Value {
            if random.chance(0.1) { return .null }
            let small = Double(Int.random(in: -8000...8000, using: &random)) / 8
            return .double(random.chance(0.1) ? 1e15 + small : small)
        }
        func values() -> [String: Value] {
            var values: [String: Value] = [:]
            if random.chance(0.4) { values["day"] = random.chance(0.1) ? .null : .string("d\(Int.random(in: 0..<4, using: &random))") }
            if random.chance(0.4) { values["rank"] = random.chance(0.1) ? .null : .integer(Int64.random(in: -3...5, using: &random)) }
            if random.chance(0.4) { values["score"] = score() }
            if random.chance(0.4) { values["pinned"] = .bool(random.chance(0.5)) }
            if random.chance(0.2) { values["title"] = .string("t\(Int.random(in: 0..<5, using: &random))") }
            return values
        }
        switch Int.random(in: 0..<20, using: &random) {
        case 0:
            try other.execute("UPDATE Post SET rank = coalesce(rank, 0) + 1 WHERE day = 'd1'")
            try store.pollExternalChanges()
        case 1:
            try other.execute("UPDATE _roster_meta SET value = 1000000000 WHERE name = 'pruned_through'; UPDATE Post SET pinned = 1 - pinned WHERE day = 'd2'")
            try store.pollExternalChanges()
        case 2:
            try store.execute("UPDATE Post SET score = score * 2 WHERE rank = 1")
        default:
            try store.write {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let key = key()
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0:
                        var row = values()
                        row["id"] = key
                        try? store.insert("Post", row)
                    case 1: try? store.delete("Post", key: key)
                    default: try? store.update("Post", key: key, values())
                    }
                }
            }
        }
    }

    @Test("random commits: the aggregates equal a fresh GROUP BY, and the changes heard rebuild them",
          arguments: [(1, .incremental, false), (2, .incremental, true), (3, .refetchAndDiff, false), (4, .incremental, false), (8, .refetchAndDiff, true)]
            as [(UInt64, ResultsEngineKind, Bool)])
    func randomCommits(seed: UInt64, engine: ResultsEngineKind, windowed: Bool) throws {
        var random = SplitMix64(seed: seed)
        let store = try postStore()
        let other = try ExternalConnection(path: store.path)
        for _ in 0..<8 { try Self.randomWrite(store, other: other, random: &random) }
        let controller = try ResultsController(store: store, request: Self.request, engine: engine)
        if windowed { try controller.setWindow(.offset(3, length: 4)) }
        let recorder = GroupRecorder()
        controller.delegate = recorder
        let badge = try LiveCount(store: store, entity: "Post", predicate: QueryPredicate("pinned == YES"))
        try badge.performFetch()
        try controller.performFetch()
        if windowed { try controller.loadResults() }
        var heard = Heard(total: controller.aggregates)
        for section in controller.counts?.sections ?? [] { heard.sections[section.name] = controller.aggregates(forSectionName: section.name) }
        var reports = 0
        for step in 0..<120 {
            try Self.randomWrite(store, other: other, random: &random)
            let expected = try Self.expected(store)
            Self.check(controller.aggregates, against: expected.total, "step \(step), total")
            for (name, group) in expected.sections {
                Self.check(controller.aggregates(forSectionName: name), against: group, "step \(step), section \(name)")
            }
            #expect(controller.counts?.sections.map(\.name).sorted { Value.compare($0, $1) < 0 } == expected.sections.keys.sorted { Value.compare($0, $1) < 0 })
            for change in recorder.takeAggregateChanges() {
                heard.take(change)
                reports += 1
            }
            #expect(heard.total == controller.aggregates, "step \(step): the total heard")
            #expect(heard.sections.count == expected.sections.count, "step \(step): the sections heard")
            for (name, values) in heard.sections {
                #expect(values == controller.aggregates(forSectionName: name), "step \(step): section \(name) as heard")
            }
            let pinned = try store.writer.prepare("SELECT count(*) FROM Post WHERE pinned = 1")
            _ = try pinned.step()
            #expect(pinned.column(0) == .integer(Int64(badge.count)), "step \(step): the badge")
        }
        #expect(reports > 40)
        #expect(recorder.callbackOrderProblems.isEmpty)
        #expect(recorder.errors.isEmpty)
        #expect(recorder.resyncs.contains(.logPruned))
    }

    @Test("LiveResults: coalesced commits carry the aggregates they changed, equal to a fresh GROUP BY")
    func liveResults() async throws {
        var random = SplitMix64(seed: 9)
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        let live = try LiveResults(queue: queue, request: Self.request)
        var heard = Heard(total: live.aggregates)
        for step in 0..<60 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let seed = random.next()
                try queue.read { store in
                    var generator = SplitMix64(seed: seed)
                    try Self.randomWrite(store, other: ExternalConnection(path: store.path), random: &generator)
                }
            }
            while let change = try live.takeChange() {
                if let aggregates = change.aggregates { heard.take(aggregates) }
            }
            let expected = try queue.read { store in try Self.expected(store) }
            Self.check(live.aggregates, against: expected.total, "step \(step), total")
            #expect(heard.total == live.aggregates)
            #expect(heard.sections.count == expected.sections.count, "step \(step): the sections heard")
            for (name, group) in expected.sections {
                Self.check(live.aggregates(forSectionName: name), against: group, "step \(step), section \(name)")
                Self.check(heard.sections[name], against: group, "step \(step), section \(name) as heard")
            }
        }
    }

    @Test("a write to an attribute the list does not display changes the aggregates alone, after no group")
    func undisplayedWrite() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "a", "day": "d1", "rank": 1, "pinned": false])
        var request = Self.request
        request.displayedAttributes = ["title"]
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.update("Post", key: "p1", ["pinned": true])
        #expect(recorder.takeGroups().isEmpty)
        let change = try #require(recorder.takeAggregateChanges().first)
        #expect(change.total["pinned"] == .integer(1))
        #expect(change.sections.map(\.name) == ["d1"])
        // A write to nothing an aggregate reads reports nothing at all.
        try store.update("Post", key: "p1", ["title": "b"])
        #expect(recorder.takeAggregateChanges().isEmpty)
        #expect(recorder.takeGroups().count == 1)
    }

    /// Found by ``MixedFeaturePropertyTests`` (seed 4976): loading a cold window's results
    /// bound the query again to `T` as it is now, its key-path values laid out after the new
    /// attribute, while the aggregates kept the old layout and read `x` as `f.name`.
    @Test("a window opened cold, loaded after a migration, keeps key-path aggregates exact")
    func coldWindowAfterMigration() throws {
        let store = try Store.temporary()
        let feed = try Entity("F", key: "id", attributes: [Attribute("id", .string), Attribute("name", .string)])
        func entry(_ more: [Attribute]) throws -> Entity {
            try Entity("T", key: "id", attributes: [Attribute("id", .string), Attribute("n", .integer), .relationship("f", to: "F", type: .string)] + more)
        }
        try store.define(feed)
        try store.define(entry([]))
        try store.write {
            try store.insert("F", ["id": "f0", "name": "a"])
            for (key, n) in [("t1", 1), ("t2", 2)] { try store.insert("T", ["id": .string(key), "n": .integer(Int64(n)), "f": "f0"]) }
        }
        let request = FetchRequest(entity: "T", predicate: try QueryPredicate("f.name < 'b'"), sortKeys: [SortKey("n")],
                                   aggregates: [.sum("total", of: "n")])
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.setWindow(.offset(0, length: 1))
        try controller.performFetch()
        try store.define(entry([Attribute("x", .string)]))
        try controller.setWindow(.offset(0, length: 3))
        try store.insert("T", ["id": "t3", "n": 4, "f": "f0", "x": "q"])
        #expect(controller.aggregates?.numberOfObjects == 3)
        #expect(controller.aggregates?["total"] == .integer(7))
        #expect(recorder.takeAggregateChanges().last?.total["total"] == .integer(7))
        #expect(controller.snapshot.flatMap(\.items) == ["t1", "t2", "t3"])
    }

    @Test("a new predicate reports the aggregates it changed, sections gone with zero objects")
    func newRequest() throws {
        let store = try postStore()
        try store.write {
            try store.insert("Post", ["id": "p1", "title": "a", "day": "d1", "rank": 1, "score": 1.5])
            try store.insert("Post", ["id": "p2", "title": "b", "day": "d2", "rank": 3, "score": 2.0])
        }
        let controller = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try controller.setPredicate(QueryPredicate("rank > 2"))
        let change = try #require(recorder.takeAggregateChanges().first)
        #expect(change.total.numberOfObjects == 1)
        #expect(change.total["scores"] == .double(2.0))
        #expect(change.sections.map(\.name) == ["d1"])
        #expect(change.sections.first?.values.numberOfObjects == 0)
        #expect(change.sections.first?.values["ranks"] == .integer(0))
        #expect(controller.aggregates(forSectionName: "d1") == nil)
        #expect(controller.aggregates(inSection: 0)?["ranks"] == .integer(3))
    }

    @Test("an integer sum out of Int64's range reads null, is reported once, and is exact again when back")
    func integerOverflow() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "a", "day": "d1", "rank": .integer(Int64.max)])
        let controller = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.aggregates?["ranks"] == .integer(Int64.max))
        try store.insert("Post", ["id": "p2", "title": "b", "day": "d1", "rank": 5])
        #expect(controller.aggregates?["ranks"] == .null)
        #expect(controller.aggregates(forSectionName: "d1")?["ranks"] == .null)
        // Once for the total, once for the section.
        #expect(recorder.errors.map(\.code) == [.aggregateOverflow, .aggregateOverflow])
        #expect(recorder.errors.first?.description.contains("'ranks'") == true)
        try store.insert("Post", ["id": "p3", "title": "c", "day": "d1", "rank": 7])
        #expect(recorder.errors.count == 2)
        try store.update("Post", key: "p1", ["rank": .integer(Int64.min)])
        #expect(controller.aggregates?["ranks"] == .integer(Int64.min + 12))
        // A fetch that starts out of range says so at once.
        try store.insert("Post", ["id": "p4", "title": "d", "day": "d2", "rank": .integer(Int64.min)])
        let late = try ResultsController(store: store, request: Self.request)
        let lateRecorder = GroupRecorder()
        late.delegate = lateRecorder
        try late.performFetch()
        #expect(late.aggregates?["ranks"] == .null)
        #expect(lateRecorder.errors.map(\.code) == [.aggregateOverflow])
    }

    @Test("double sums: exact after any adds and removals, past the double range and back",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func doubleSumsStayExact(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var sum = AggregateSum()
        var held: [Double] = []
        func draw() -> Double {
            let magnitude: Double
            switch random.next() % 6 {
            case 0: magnitude = Double(random.next() % 1000) / 10
            case 1: magnitude = Double(sign: .plus, exponent: Int(random.next() % 60) - 30, significand: 1 + Double(random.next() % 1_000_000) / 1e6)
            case 2: magnitude = Double(sign: .plus, exponent: 1000 + Int(random.next() % 23), significand: 1 + Double(random.next() % 1_000_000) / 1e6)
            case 3: magnitude = Double(bitPattern: random.next() % (1 << 52))  // subnormal
            case 4: magnitude = 1e308
            default: magnitude = Double(random.next() % (1 << 53))
            }
            return random.next() % 2 == 0 ? magnitude : -magnitude
        }
        for step in 0..<400 {
            if held.isEmpty || random.next() % 3 != 0 {
                let value = draw()
                held.append(value)
                sum.add(.double(value), sign: 1)
            } else {
                let value = held.remove(at: Int(random.next() % UInt64(held.count)))
                sum.add(.double(value), sign: -1)
            }
            guard case let .double(value)? = sum.value(isReal: true) else { Issue.record("not a double"); return }
            let (reference, magnitudes, overflows) = Self.exactSum(of: held)
            if overflows {
                #expect(value.isInfinite && (value > 0) == (reference > 0), "seed \(seed) step \(step): \(value), exact sum beyond the range")
            } else {
                #expect(abs(value - reference) <= 1e-9 * magnitudes, "seed \(seed) step \(step): \(value) against \(reference)")
            }
        }
        // Every value taken away: exactly zero, whatever came and went.
        for value in held { sum.add(.double(value), sign: -1) }
        #expect(sum.value(isReal: true) == .double(0))
    }

    /// The sum of `values` from scratch, by Shewchuk's exact partials (as Python's
    /// `math.fsum`), scaled down by 2⁶⁴ when a value is near the top of the double range so
    /// that no partial overflows; the sum of magnitudes at the same scale, unscaled; and
    /// whether the sum is beyond the double range.
    static func exactSum(of values: [Double]) -> (sum: Double, magnitudes: Double, overflows: Bool) {
        let scale = values.contains { abs($0) > 0x1p1000 } ? 0x1p-64 : 1.0
        var partials: [Double] = []
        var magnitudes = 0.0
        for value in values {
            var x = value * scale
            magnitudes += abs(x)
            var kept: [Double] = []
            for var y in partials {
                if abs(x) < abs(y) { swap(&x, &y) }
                let high = x + y
                let low = y - (high - x)
                if low != 0 { kept.append(low) }
                x = high
            }
            kept.append(x)
            partials = kept
        }
        let scaled = partials.reduce(0, +)
        let sum = scaled / scale
        return (sum, magnitudes / scale, sum.isInfinite)
    }

    @Test("double sums: exact when a huge value leaves, and infinities come and go")
    func doubleSums() throws {
        var sum = AggregateSum()
        let small = [0.1, 0.2, 0.3, 1e-3, -7.25]
        for value in small { sum.add(.double(value), sign: 1) }
        for _ in 0..<50 {
            sum.add(.double(1e17), sign: 1)
            sum.add(.double(1e17), sign: -1)
            sum.add(.double(-3e16), sign: 1)
            sum.add(.double(-3e16), sign: -1)
        }
        let exact = NSDecimalNumber(decimal: small.reduce(Decimal(0)) { $0 + Decimal($1) }).doubleValue
        guard case let .double(value)? = sum.value(isReal: true) else { Issue.record("not a double"); return }
        #expect(abs(value - exact) <= 1e-12 * abs(exact))
        sum.add(.double(.infinity), sign: 1)
        #expect(sum.value(isReal: true) == .double(.infinity))
        sum.add(.double(-.infinity), sign: 1)
        #expect(sum.value(isReal: true) == .null)
        sum.add(.double(.infinity), sign: -1)
        sum.add(.double(-.infinity), sign: -1)
        #expect(sum.value(isReal: true).map { if case .double = $0 { true } else { false } } == true)
        var empty = AggregateSum()
        #expect(empty.value(isReal: true) == .double(0))
        #expect(empty.value(isReal: false) == .integer(0))
        empty.add(.bool(true), sign: 1)
        empty.add(.null, sign: 1)
        #expect(empty.value(isReal: false) == .integer(1))
    }

    @Test("bad aggregates are clear errors when the request is bound",
          arguments: [
            ([Aggregate.sum("t", of: "title")], "string attribute"),
            ([.sum("t", of: "subtitle")], "no attribute 'subtitle'"),
            ([.sum("", of: "rank")], "needs a name"),
            ([.sum("a", of: "rank"), .count("a", where: .all)], "share a name"),
          ] as [([Aggregate], String)])
    func badAggregates(aggregates: [Aggregate], message: String) throws {
        let store = try postStore()
        #expect {
            _ = try ResultsController(store: store, request: FetchRequest(entity: "Post", aggregates: aggregates))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .invalidAggregate && error.entity == "Post" && error.description.contains(message)
        }
        #expect {
            _ = try ResultsController(store: store, request: FetchRequest(entity: "Post", aggregates: [.count("c", where: try QueryPredicate("size > 2"))]))
        } throws: { error in
            (error as? StoreError)?.code == .predicate
        }
    }

    @Test("a live count follows commits from every writer, and recounts after a pruned log")
    func liveCount() throws {
        let store = try postStore()
        let other = try ExternalConnection(path: store.path)
        let badge = try LiveCount(store: store, entity: "Post", predicate: QueryPredicate("rank > 2"))
        final class Heard: LiveCountDelegate {
            var counts: [Int] = []
            func liveCount(_ liveCount: LiveCount, didChangeTo count: Int) { counts.append(count) }
        }
        let heard = Heard()
        badge.delegate = heard
        try store.insert("Post", ["id": "p0", "title": "a", "day": "d", "rank": 9])
        try badge.performFetch()
        #expect(badge.count == 1)
        try store.write {
            try store.insert("Post", ["id": "p1", "title": "a", "day": "d", "rank": 3])
            try store.insert("Post", ["id": "p2", "title": "a", "day": "d", "rank": 1])
        }
        try store.update("Post", key: "p2", ["title": "b"])
        try other.execute("UPDATE Post SET rank = 5 WHERE id = 'p2'")
        try store.pollExternalChanges()
        try other.execute("UPDATE _roster_meta SET value = 1000000000 WHERE name = 'pruned_through'; DELETE FROM Post WHERE id = 'p0'")
        try store.pollExternalChanges()
        #expect(heard.counts == [2, 3, 2])
        #expect(badge.count == 2)
    }
}
