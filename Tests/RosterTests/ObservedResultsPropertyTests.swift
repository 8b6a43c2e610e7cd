import Foundation
import Observation
import Testing
@testable import Roster
import RosterTestSupport

/// ``ObservedResults`` — over live results (every row, or a window) and over a window
/// opened cold — under random steps that mix writes (alone, three in a transaction, rolled
/// back), renamed related objects (key paths), raw SQL, another connection's writes,
/// attributes added, windows moved and requests replaced (predicates and sorts on key paths,
/// sections, `displays`, aggregates), and live results resumed from a resume token saved
/// steps before (``ObservedResults/init(queue:request:resumingFrom:policy:)``). After each
/// step and ``ObservedResults/refresh()`` it — and a resumed one, from what the token saw —
/// must:
///
/// - show what a fresh query with its request and window shows: the rows, their values,
///   the counts (nil for a cold window) and the aggregates; and have no error;
/// - when ``ObservedResults/lastChange`` notified, have a change from the rows it showed
///   before (`previousSnapshot`) whose group, applied to them, gives the rows it shows;
/// - report as updates only objects whose displayed values changed, and tell of every
///   change of a displayed value of a row it still shows.
///
/// `ROSTER_OBSERVED_SEEDS=2000 swift test --filter ObservedResultsPropertyTests` for a long
/// run (100 seeds by default); `ROSTER_OBSERVED_SEEDS=40-45` replays those seeds alone.
// Serialized: the cases share the main actor anyway, and a case waiting for a request
// would let the others pile up, each with its store's files open.
@MainActor
@Suite("Observed results stay exact when features mix", .serialized)
struct ObservedResultsPropertyTests {
    /// `ROSTER_OBSERVED_SEEDS`: a count (from seed 0), or `first-last` to replay a few.
    nonisolated static let seeds: ClosedRange<Int> = {
        let setting = ProcessInfo.processInfo.environment["ROSTER_OBSERVED_SEEDS"] ?? "100"
        let bounds = setting.split(separator: "-").compactMap { Int($0) }
        if bounds.count == 2, bounds[0] <= bounds[1] { return bounds[0]...bounds[1] }
        return 0...max(0, (bounds.first ?? 100) - 1)
    }()

    @Test("Every step leaves an observed query exact, live or cold", arguments: ObservedResultsPropertyTests.seeds)
    func observedResultsStayExact(seed: Int) async throws {
        try await ObservedWorld(seed: seed).run()
    }
}

/// The entities of ``MixedWorld`` (`F(id, name)`, `T(id, n, s, f → F, x…)`) on a store
/// queue, one ``ObservedResults`` over `T`, and what its view was shown.
@MainActor
final class ObservedWorld {
    let queue: StoreQueue
    /// Another connection to the file (another process, in effect).
    var other: Store
    let seed: Int
    var random: SplitMix64
    var added = 0
    var step = 0
    /// Whether the results show a window opened cold (else live results).
    let isCold: Bool
    var results: ObservedResults
    /// The rows the view was shown at the last check, and the stored values then.
    var shown: [ListSection<Value, Value>]
    var values: [Value: [String: Value]]
    /// What happened so far, for a failure's message.
    var log: [String] = []
    /// A resume token the live results saved at a check, with what the view was shown then.
    var saved: (step: Int, token: ResumeToken, request: FetchRequest, sections: [ListSection<Value, Value>], values: [Value: [String: Value]])?

    init(seed: Int) throws {
        self.seed = seed
        var generator = SplitMix64(seed: UInt64(seed) &* 104_729 &+ 3)
        queue = try StoreQueue.temporary()
        try queue.read { store in
            try store.define(Entity("F", key: "id", attributes: [Attribute("id", .string), Attribute("name", .string)]))
            try store.define(MixedWorld.tEntity(added: 0))
        }
        isCold = Int.random(in: 0..<2, using: &generator) == 0
        let rows = (0..<14).map { Self.row(key: "t\($0)", added: 0, using: &generator) }
        try queue.write { store in
            for index in 0..<4 { try store.insert("F", ["id": .string("f\(index)"), "name": .string(["a", "b", "c", "d"][index])]) }
            for row in rows { try store.insert("T", row) }
        }
        other = try Store(path: queue.path)
        let request = try Self.randomRequest(added: 0, using: &generator)
        let window = Self.randomWindow(shown: [], cold: isCold, using: &generator)
        random = generator
        if isCold, let window {
            results = try ObservedResults(queue: queue, request: request, coldWindow: window)
        } else {
            results = try ObservedResults(queue: queue, request: request, window: window)
        }
        log.append("\(isCold ? "cold" : "live") results of \(MixedWorld.describe(request)), window \(String(describing: window))")
        shown = results.sections.map { ListSection(id: $0.name, items: Array($0.keys)) }
        values = [:]
        values = try storedValues()
    }

    func run() async throws {
        for index in 0..<25 {
            step = index
            let changed = Flag()
            withObservationTracking { _ = results.lastChange } onChange: { changed.set() }
            let replacedRequest = try await randomStep()
            if ProcessInfo.processInfo.environment["ROSTER_OBSERVED_TRACE"] != nil { print(log.last ?? "") }
            results.refresh()
            try check(lastChangeNotified: changed.isSet, continuityKnown: !replacedRequest)
            if let live = results.liveResults, chance(4) {
                saved = (step, try live.resumeToken(), results.request, shown, values)
                log.append("    token saved")
            }
        }
    }

    /// Set once by an observation's `onChange`, which may run on any thread.
    final class Flag: Sendable {
        private let state = Locked(false)
        func set() { state.withLock { $0 = true } }
        var isSet: Bool { state.withLock { $0 } }
    }

    // MARK: Values

    func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }
    func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

    static func row(key: String, added: Int, using random: inout SplitMix64) -> [String: Value] {
        func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }
        var row: [String: Value] = ["id": .string(key), "n": chance(6) ? .null : .integer(Int64.random(in: 0..<8, using: &random)),
                                    "s": chance(6) ? .null : .string(["a", "b", "c"][Int.random(in: 0..<3, using: &random)]),
                                    "f": chance(5) ? .null : .string("f\(Int.random(in: 0..<5, using: &random))")]
        for index in 0..<added where chance(2) {
            row["x\(index)"] = index % 2 == 0 ? .string(chance(2) ? "p" : "q") : .integer(Int64.random(in: 0..<3, using: &random))
        }
        return row
    }

    static func randomRequest(added: Int, using random: inout SplitMix64) throws -> FetchRequest {
        func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }
        let names = ["n", "s", "f.name"] + (0..<added).map { "x\($0)" }
        func name() -> String { names[Int.random(in: 0..<names.count, using: &random)] }
        let predicates = ["n >= 3", "s != 'b'", "f.name < 'c'", "n < 5 OR f.name == 'a'", "s == nil OR s == 'a'"]
        let predicate = chance(3) ? QueryPredicate.all : try QueryPredicate(predicates[Int.random(in: 0..<predicates.count, using: &random)])
        var sort = [SortKey(name(), ascending: chance(2))]
        if chance(2) { sort.append(SortKey(name(), ascending: chance(2))) }
        let section: String? = chance(2) ? nil : (chance(2) ? "s" : "f.name")
        let displayed: [String]? = chance(2) ? nil : names.filter { _ in chance(2) } + ["id"]
        let aggregates: [Aggregate] = chance(2) ? [] : [.count("big", where: try QueryPredicate("n >= 4")), .sum("total", of: "n")]
        return FetchRequest(entity: "T", predicate: predicate, sortKeys: sort, sectionAttribute: section, displayedAttributes: displayed,
                            reportsChangedAttributes: chance(2), aggregates: aggregates)
    }

    /// A window over `shown`'s rows; a cold window always has one.
    static func randomWindow(shown: [ListSection<Value, Value>], cold: Bool, using random: inout SplitMix64) -> ResultsWindow? {
        let keys = shown.flatMap(\.items)
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where !cold: return nil
        case 0, 1, 2: return .offset(Int.random(in: 0..<6, using: &random), length: Int.random(in: 1..<6, using: &random))
        default:
            guard !keys.isEmpty else { return .offset(0, length: 3) }
            return .anchored(key: keys[Int.random(in: 0..<keys.count, using: &random)], before: Int.random(in: 0..<3, using: &random),
                             after: Int.random(in: 0..<3, using: &random))
        }
    }

    // MARK: Steps

    /// Runs one step; returns whether it replaced the request (whose change arrives while
    /// the main actor waits, perhaps with the commits' changes before it).
    func randomStep() async throws -> Bool {
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1, 2:
            let write = randomWrite()
            log.append("\(step): \(write.description)")
            try queue.write { store in try write.run(store) }
        case 3:
            let writes = (0..<3).map { _ in randomWrite() }
            log.append("\(step): transaction: " + writes.map(\.description).joined(separator: "; "))
            try queue.write { store in for write in writes { try write.run(store) } }
        case 4:
            let writes = (0..<2).map { _ in randomWrite() }
            log.append("\(step): transaction rolled back: " + writes.map(\.description).joined(separator: "; "))
            struct Rollback: Error {}
            _ = try? queue.write { store in
                for write in writes { try write.run(store) }
                throw Rollback()
            }
        case 5:
            let (key, name) = ("f\(Int.random(in: 0..<4, using: &random))", pick(["a", "b", "c", "d", "e"]))
            log.append("\(step): rename \(key) to \(name)")
            try queue.write { store in try store.update("F", key: .string(key), ["name": .string(name)]) }
        case 6:
            log.append("\(step): raw SQL")
            try queue.write { store in try store.execute(#"UPDATE "T" SET n = n + 1 WHERE n % 3 = 0"#) }
        case 7:
            let write = randomWrite()
            log.append("\(step): another connection: \(write.description)")
            try other.write { try write.run(other) }
            try queue.pollExternalChanges()
        case 8 where added < 2:
            added += 1
            log.append("\(step): add attribute x\(added - 1)")
            let entity = try MixedWorld.tEntity(added: added)
            try queue.read { store in try store.define(entity) }
            other = try Store(path: queue.path)
        case 9:
            let window = Self.randomWindow(shown: shown, cold: isCold, using: &random)
            log.append("\(step): window \(String(describing: window))")
            results.window = window
            log.append("    window now \(String(describing: results.window)), shows \(results.sections.map { Array($0.keys) }), error \(String(describing: results.error))")
        case 11 where saved != nil:
            try resume()
        case 10:
            var generator = random
            let request = try Self.randomRequest(added: added, using: &generator)
            random = generator
            log.append("\(step): request \(MixedWorld.describe(request))")
            results.request = request
            let deadline = ContinuousClock.now + .seconds(600)
            while results.isApplyingRequest {
                try #require(ContinuousClock.now < deadline, "the request was never applied")
                try await Task.sleep(for: .milliseconds(1))
            }
            return true
        default:
            let write = randomWrite()
            log.append("\(step): \(write.description)")
            try queue.write { store in try write.run(store) }
        }
        return false
    }

    /// An insert, update or delete of a random `T` key, decided when it runs.
    struct Write: Sendable {
        let key: String
        let row: [String: Value]
        let deletes: Bool
        let updatesOne: String?

        var description: String { "write \(key)\(deletes ? " (delete if there)" : "") \(row.sorted { $0.key < $1.key })" }

        func run(_ store: Store) throws {
            guard try store.fetch("T", key: .string(key)) != nil else { return try store.insert("T", row) }
            if deletes { return try store.delete("T", key: .string(key)) }
            var values = row
            values.removeValue(forKey: "id")
            if let updatesOne, let value = values[updatesOne] { values = [updatesOne: value] }
            try store.update("T", key: .string(key), values)
        }
    }

    func randomWrite() -> Write {
        let key = "t\(Int.random(in: 0..<17, using: &random))"
        return Write(key: key, row: Self.row(key: key, added: added, using: &random), deletes: chance(4),
                     updatesOne: chance(2) ? pick(["n", "s", "f"]) : nil)
    }

    // MARK: Checks

    /// Every row of `T` by key, with the key path `f.name`.
    func storedValues() throws -> [Value: [String: Value]] {
        try queue.read { store in try MixedWorld.storedValues(in: store, keys: 17) }
    }

    /// What a fresh query with the results' request and window shows; nil when its anchored
    /// window's anchor is not in the results (it then shows no row).
    func fresh(_ results: ObservedResults) throws -> (sections: [ListSection<Value, Value>], objects: [[String: Value]], counts: ResultsCounts?, aggregates: AggregateValues?)? {
        let (request, window) = (results.request, results.window)
        return try queue.read { store in
            if case let .anchored(anchor, _, _)? = window {
                let whole = try ResultsController(store: store, request: request)
                try whole.performFetch()
                guard whole.indexPath(for: anchor) != nil else { return nil }
            }
            let fresh = try ResultsController(store: store, request: request)
            try fresh.setWindow(window)
            try fresh.performFetch()
            // A window opens cold: its whole results' counts once loaded.
            if window != nil { try fresh.loadResults() }
            return (fresh.snapshot, try fresh.fetchedObjects.map(\.dictionary), fresh.counts, fresh.aggregates)
        }
    }

    func check(lastChangeNotified: Bool, continuityKnown: Bool) throws {
        let now = results.sections.map { ListSection(id: $0.name, items: Array($0.keys)) }
        let valuesNow = try storedValues()
        defer { (shown, values) = (now, valuesNow) }
        try verify(results, change: lastChangeNotified ? results.lastChange : nil, shown: shown, values: values, valuesNow: valuesNow,
                   continuityKnown: continuityKnown, isCold: isCold)
    }

    /// Resumes live results from the saved token, in the request it was saved with: the
    /// first change must lead from what the view was shown then to what it shows now.
    func resume() throws {
        guard let saved else { return }
        log.append("\(step): resume from the token saved at step \(saved.step)")
        let resumed = try ObservedResults(queue: queue, request: saved.request, resumingFrom: saved.token)
        defer { resumed.liveResults?.close() }
        resumed.refresh()
        try verify(resumed, change: resumed.lastChange, shown: saved.sections, values: saved.values, valuesNow: try storedValues(),
                   continuityKnown: true, isCold: false)
    }

    /// Checks `results` against a fresh query, and `change` (nil: no change was told) as
    /// leading from `shown`, whose stored values were `values`, to what it shows now.
    func verify(_ results: ObservedResults, change: ResultsChange?, shown: [ListSection<Value, Value>], values: [Value: [String: Value]],
                valuesNow: [Value: [String: Value]], continuityKnown: Bool, isCold: Bool) throws {
        let context = "seed \(seed), after step \(step):\n" + log.suffix(30).joined(separator: "\n")
        let now = results.sections.map { ListSection(id: $0.name, items: Array($0.keys)) }
        #expect(results.error == nil, "error \(String(describing: results.error))\n\(context)")
        if let change {
            #expect(change.snapshot.sections == now, "the last change's snapshot is not what the view shows\n\(context)")
            do {
                let applied = try change.group.apply(to: change.previousSnapshot.sections)
                #expect(applied == change.snapshot.sections, "the change's group does not give its snapshot\n\(change.group)\n\(context)")
            } catch {
                Issue.record("the change's group does not apply to its previous snapshot (\(error))\n\(change.group)\n\(context)")
            }
            if continuityKnown {
                #expect(change.previousSnapshot.sections == shown,
                        "the change starts from \(change.previousSnapshot.sections), the view was shown \(shown)\n\(context)")
            }
        } else if continuityKnown {
            #expect(now == shown, "the rows shown changed with no change: \(shown) → \(now)\n\(context)")
        }
        if let expected = try fresh(results) {
            #expect(now == expected.sections, "shows \(now), a fresh query with its window (\(String(describing: results.window))) \(expected.sections)\n\(context)")
            let objects = results.sections.flatMap { Array($0.objects) }
            if objects.count == expected.objects.count {
                // On the attributes both have: a live query bound before an attribute was added
                // reads its objects without it, as its request was bound.
                for (object, stored) in zip(objects, expected.objects) where object.dictionary.contains(where: { stored[$0.key] != $0.value }) {
                    Issue.record("\(object.key) reads \(object.dictionary), stored \(stored)\n\(context)")
                }
            }
            #expect(results.counts == (isCold ? nil : expected.counts), "counts \(String(describing: results.counts))\n\(context)")
            #expect(results.aggregates == expected.aggregates, "aggregates \(String(describing: results.aggregates)), a fresh query's \(String(describing: expected.aggregates))\n\(context)")
        } else {
            #expect(now.allSatisfy { $0.items.isEmpty }, "its anchor is gone, yet it shows \(now)\n\(context)")
        }
        // Updates are changes of displayed values; every such change of a row still shown is told.
        guard continuityKnown, change?.resync == nil else { return }
        let displayed = results.request.displayedAttributes
        var told: Set<Value> = []
        for object in change?.group.objectChanges ?? [] {
            told.insert(object.item)
            guard object.type == .update, let previous = values[object.item], let stored = valuesNow[object.item] else { continue }
            let names = displayed ?? Array(stored.keys)
            if !names.contains(where: { name in previous[name].map { $0 != stored[name] } ?? false }) {
                Issue.record("\(object.item) updated, but nothing it displays changed: \(previous) → \(stored)\n\(context)")
            }
        }
        let stayed = Set(shown.flatMap(\.items)).intersection(now.flatMap(\.items))
        for key in stayed where !told.contains(key) {
            guard let previous = values[key], let stored = valuesNow[key],
                  let object = results.sections.lazy.flatMap({ Array($0.objects) }).first(where: { $0.key == key }) else { continue }
            let names = displayed ?? object.entity.attributes.map(\.name)
            let differing = names.filter { name in previous[name].map { $0 != stored[name] } ?? false }
            if !differing.isEmpty {
                Issue.record("\(key) still shown, its \(differing) changed, and no change told the view\n\(context)")
            }
        }
    }
}
