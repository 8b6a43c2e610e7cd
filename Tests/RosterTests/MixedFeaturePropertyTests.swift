import Foundation
import Testing
@testable import Roster
import RosterTestSupport
import RosterUpdates

/// Random runs that mix every feature a live query has — attributes added mid-run, key
/// paths in predicates, sorts and sections, `filter` and `sort` changes, windows (offset
/// and anchored, moved, resized, anchors deleted), resume tokens, aggregates, transactions
/// that commit or roll back, queries registered inside transactions, a live count, another
/// connection's writes and raw SQL — on SQLite and on PostgreSQL. After every step each live query must:
///
/// - have told its delegate only index paths the delegate had seen: its groups, replayed
///   on what it showed before, apply (``ChangeGroup/apply(to:)`` refuses any other);
/// - show what that replay gives (its snapshot);
/// - equal a fresh query with the same request and window: the rows shown, their values
///   on the attributes both see, the counts and the aggregates;
/// - have heard no error (nothing here fails for a fresh query);
/// - have reported each update as a change of values, of a displayed one when the request
///   names what it displays, naming what changed (in the object's order) when it asks for
///   that, and every change of a displayed value of an object it still shows.
///
/// `ROSTER_MIXED_SEEDS=5000 swift test --filter MixedFeaturePropertyTests` for a long run
/// (the default, 200 seeds a backend, is what CI runs); `ROSTER_MIXED_SEEDS=4970-4980`
/// replays those seeds alone.
@Suite("Live queries stay exact when features mix")
struct MixedFeaturePropertyTests {
    /// `ROSTER_MIXED_SEEDS`: a count (from seed 0), or `first-last` to replay a few.
    static let seeds: ClosedRange<Int> = {
        let setting = ProcessInfo.processInfo.environment["ROSTER_MIXED_SEEDS"] ?? "200"
        let bounds = setting.split(separator: "-").compactMap { Int($0) }
        if bounds.count == 2, bounds[0] <= bounds[1] { return bounds[0]...bounds[1] }
        return 0...max(0, (bounds.first ?? 200) - 1)
    }()

    @Test("SQLite: every step leaves every live query exact", arguments: MixedFeaturePropertyTests.seeds)
    func sqlite(seed: Int) throws {
        let store = try Store.temporary()
        let raw = try Connection(path: store.path)
        defer { raw.close() }
        try MixedWorld(store: store, other: { try Store(path: store.path) }, raw: raw, seed: seed).run()
    }

    @Test("PostgreSQL: every step leaves every live query exact", .needsPostgreSQL, arguments: MixedFeaturePropertyTests.seeds)
    func postgres(seed: Int) throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        try MixedWorld(store: try Store(postgresURL: schema.url), other: { try Store(postgresURL: schema.url) }, seed: seed).run()
    }
}

/// Entities `F(id, name)` and `T(id, n, s, f → F)`, to which steps add attributes
/// `x0`, `x1`, …; a few live queries on `T`, each with the shown sections its delegate
/// was told about.
final class MixedWorld {
    let store: Store
    /// Another connection (another process, in effect); opened again after a migration,
    /// as another process must.
    var other: Store
    let openOther: () throws -> Store
    /// A connection that is not a store (SQLite: its writes go through the triggers); nil
    /// on PostgreSQL, where raw SQL goes through `other`.
    let raw: Connection?
    let seed: Int
    var random: SplitMix64
    var added = 0
    var step = 0
    /// Whether the step committed more than once: an object's change that a query left
    /// unreported (no displayed attribute changed) is then not in the values its later
    /// updates are compared with, and they may name fewer attributes than changed since the check.
    var committedSeveralTimes = false
    /// The queries whose request the step replaced.
    var requestChanged: Set<Int> = []
    var queries: [(controller: ResultsController, recorder: GroupRecorder, shown: [ListSection<Value, Value>], values: [Value: [String: Value]])] = []
    /// A live count (`count` in a script) of a predicate, checked against a fresh one.
    var liveCount: LiveCount?
    /// What happened so far, for a failure's message.
    var log: [String] = []

    /// - Parameters:
    ///   - other: opens another connection to the same database, once the entities are
    ///     defined there.
    ///   - raw: on SQLite, a connection that is not a store, for raw SQL.
    init(store: Store, other: @escaping () throws -> Store, raw: Connection? = nil, seed: Int) throws {
        try store.define(Entity("F", key: "id", attributes: [Attribute("id", .string), Attribute("name", .string)]))
        try store.define(Self.tEntity(added: 0))
        self.store = store
        self.other = try other()
        openOther = other
        self.raw = raw
        self.seed = seed
        random = SplitMix64(seed: UInt64(seed) &* 7_919 &+ 17)
        try store.write {
            for index in 0..<4 { try store.insert("F", ["id": .string("f\(index)"), "name": .string(["a", "b", "c", "d"][index])]) }
            for index in 0..<12 { try store.insert("T", randomRow(key: "t\(index)")) }
        }
    }

    /// `T` with `added` attributes added since the start.
    static func tEntity(added: Int) throws -> Entity {
        var attributes = [Attribute("id", .string), Attribute("n", .integer), Attribute("s", .string), .relationship("f", to: "F", type: .string)]
        for index in 0..<added { attributes.append(Attribute("x\(index)", index % 2 == 0 ? .string : .integer)) }
        return try Entity("T", key: "id", attributes: attributes)
    }

    func tEntity() throws -> Entity { try Self.tEntity(added: added) }

    func run() throws {
        // The first query, one time in two, registers inside a transaction: T's (and F's)
        // tracking then starts at its commit.
        let firstInTransaction = chance(2)
        for index in 0..<2 { try addQuery(insideTransaction: index == 0 && firstInTransaction) }
        let counted = try LiveCount(store: store, entity: "T", predicate: QueryPredicate("n >= 3 OR f.name == 'a'"))
        try counted.performFetch()
        liveCount = counted
        for index in 0..<30 {
            step = index
            // The registering transaction committed before the first step.
            committedSeveralTimes = index == 0 && firstInTransaction
            requestChanged = []
            try randomStep()
            try check()
        }
    }

    // MARK: Values

    func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
    func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

    func randomKey() -> String { "t\(Int.random(in: 0..<16, using: &random))" }

    func randomRow(key: String) -> [String: Value] {
        var row: [String: Value] = ["id": .string(key), "n": chance(6) ? .null : .integer(Int64.random(in: 0..<8, using: &random)),
                                    "s": chance(6) ? .null : .string(pick(["a", "b", "c"])),
                                    "f": chance(5) ? .null : .string("f\(Int.random(in: 0..<5, using: &random))")]
        for index in 0..<added where chance(2) { row["x\(index)"] = index % 2 == 0 ? .string(pick(["p", "q"])) : .integer(Int64.random(in: 0..<3, using: &random)) }
        return row
    }

    /// Attributes a new request may name: the stored ones and a key path.
    func attributeNames() -> [String] { ["n", "s", "f.name"] + (0..<added).map { "x\($0)" } }

    func randomPredicate() throws -> QueryPredicate {
        let name = pick(attributeNames())
        let format: String
        switch name {
        case "n": format = "n \(pick(["<", ">=", "!=", "=="])) \(Int.random(in: 0..<8, using: &random))"
        case "s", "f.name": format = "\(name) \(pick(["==", "!=", "<", ">"])) '\(pick(["a", "b", "c"]))'"
        default: format = name.hasPrefix("x") && Int(name.dropFirst())! % 2 == 1 ? "\(name) != 1" : "\(name) == nil OR \(name) == 'p'"
        }
        return chance(4) ? .all : try QueryPredicate(format)
    }

    func randomRequest() throws -> FetchRequest {
        var sort = [SortKey(pick(attributeNames()), ascending: chance(2))]
        if chance(2) { sort.append(SortKey(pick(attributeNames()), ascending: chance(2))) }
        let section: String? = chance(2) ? nil : pick(["s", "f.name"])
        let aggregates: [Aggregate] = chance(2) ? [] : [.count("big", where: try QueryPredicate("n >= 4")), .sum("total", of: "n")]
        // Some requests display a few attributes only: a change to the others is no update.
        let displayed: [String]? = chance(3) ? nil : attributeNames().filter { _ in chance(2) } + (chance(4) ? ["id"] : [])
        return FetchRequest(entity: "T", predicate: try randomPredicate(), sortKeys: sort, sectionAttribute: section,
                            displayedAttributes: displayed.map { $0.isEmpty ? ["s"] : $0 }, reportsChangedAttributes: chance(3), aggregates: aggregates)
    }

    func randomWindow(in controller: ResultsController?) -> ResultsWindow? {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return nil
        case 1, 2: return .offset(Int.random(in: 0..<6, using: &random), length: Int.random(in: 0..<6, using: &random))
        default:
            let keys = controller?.snapshot.flatMap(\.items) ?? []
            guard !keys.isEmpty else { return .offset(0, length: 3) }
            let key = pick(keys)
            return .anchored(key: key, before: Int.random(in: 0..<3, using: &random), after: Int.random(in: 0..<3, using: &random))
        }
    }

    // MARK: Steps

    func randomStep() throws {
        switch Int.random(in: 0..<17, using: &random) {
        case 0, 1, 2: try write(through: store, what: "store")
        case 3: try write(through: other, what: "other connection"); _ = try store.pollExternalChanges()
        case 4:
            log.append("\(step): transaction, rolled back")
            struct Rollback: Error {}
            _ = try? store.write { try writeOnce(store); try writeOnce(store); throw Rollback() }
        case 5:
            log.append("\(step): raw SQL")
            try store.execute(#"UPDATE "T" SET n = n + 1 WHERE n % 3 = 0"#)
        case 6:
            let key = "f\(Int.random(in: 0..<4, using: &random))"
            log.append("\(step): rename \(key)")
            try store.update("F", key: .string(key), ["name": .string(pick(["a", "b", "c", "d", "e"]))])
        case 7 where added < 3:
            log.append("\(step): add attribute x\(added)")
            try migrate()
        case 8, 9:
            guard let index = queries.indices.randomElement(using: &random) else { return }
            let request = try randomRequest()
            log.append("\(step): query \(index) setRequest \(Self.describe(request))")
            try queries[index].controller.setRequest(request)
            requestChanged.insert(index)
        case 10, 11:
            guard let index = queries.indices.randomElement(using: &random) else { return }
            let window = randomWindow(in: queries[index].controller)
            log.append("\(step): query \(index) window \(String(describing: window))")
            try queries[index].controller.setWindow(window)
        case 12:
            try resume()
        case 13 where queries.count < 5:
            try addQuery(insideTransaction: chance(2))
        case 14:
            guard let key = queries.randomElement(using: &random)?.controller.window.flatMap({ window -> Value? in
                if case let .anchored(key, _, _) = window { return key } else { return nil }
            }) else { return try write(through: store, what: "store") }
            log.append("\(step): delete the anchor \(key)")
            if try store.fetch("T", key: key) != nil { try store.delete("T", key: key) }
        case 15:
            try rebuildTable()
        case 16:
            try insertInRawSQL()
        default:
            log.append("\(step): transaction of three writes")
            try store.write { for _ in 0..<3 { try writeOnce(store) } }
        }
    }

    /// A migration tool rebuilds `T` through another connection (SQLite: on PostgreSQL, a
    /// write instead): a copy under another name, with some values changed on the way that
    /// no trigger logs, the old table dropped with its triggers, the copy renamed. The
    /// store puts the triggers back with a gap mark; later resumes of older tokens meet it.
    func rebuildTable() throws {
        guard let raw else { return try write(through: store, what: "store") }
        let definition = try raw.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'T'")
        guard try definition.step(), case let .string(sql) = definition.column(0), sql.hasPrefix(#"CREATE TABLE "T""#) else {
            Issue.record("step \(step): T's definition is not where a rebuild expects it")
            return
        }
        // A statement still reading would lock the table against the drop.
        definition.reset()
        let changed = Int.random(in: 0..<4, using: &random)
        log.append("\(step): T rebuilt by another connection, n + 1 on the way where n % 4 = \(changed)")
        try raw.execute("""
            \(sql.replacingOccurrences(of: #"CREATE TABLE "T""#, with: #"CREATE TABLE "T_rebuilt""#));
            INSERT INTO "T_rebuilt" SELECT * FROM "T";
            UPDATE "T_rebuilt" SET n = n + 1 WHERE n % 4 = \(changed);
            DROP TABLE "T"; ALTER TABLE "T_rebuilt" RENAME TO "T"
            """)
        _ = try store.pollExternalChanges()
    }

    /// An insert in raw SQL through another connection: a new key or one that exists,
    /// added, replaced, upserted or ignored, or a statement that fails, whole or (`OR FAIL`)
    /// after its first row. `OR` clauses are SQLite's alone.
    func insertInRawSQL() throws {
        let (first, second) = (randomKey(), randomKey())
        let (n1, n2) = (Int.random(in: 0..<8, using: &random), Int.random(in: 0..<8, using: &random))
        let s = pick(["'a'", "'b'", "NULL"])
        var statements = [
            #"INSERT INTO "T"(id, n, s) VALUES ('\#(first)', \#(n1), \#(s))"#,
            #"INSERT INTO "T"(id, n) VALUES ('\#(first)', \#(n1)) ON CONFLICT(id) DO NOTHING"#,
            #"INSERT INTO "T"(id, n, s) VALUES ('\#(first)', \#(n1), \#(s)) ON CONFLICT(id) DO UPDATE SET n = excluded.n"#,
        ]
        if raw != nil {
            statements += [
                #"INSERT OR REPLACE INTO "T"(id, n, s) VALUES ('\#(first)', \#(n1), \#(s)), ('\#(second)', \#(n2), NULL)"#,
                #"INSERT OR IGNORE INTO "T"(id, n) VALUES ('\#(first)', \#(n1)), ('\#(second)', \#(n2))"#,
                #"INSERT OR FAIL INTO "T"(id, n) VALUES ('\#(first)', \#(n1)), ('\#(second)', \#(n2))"#,
            ]
        }
        let sql = pick(statements)
        log.append("\(step): raw SQL through another connection: \(sql)")
        do {
            if let raw { try raw.execute(sql) } else { try other.execute(sql) }
        } catch {
            log.append("    failed: \(error)")
        }
        _ = try store.pollExternalChanges()
    }

    /// Adds an attribute to `T`; the other connection opens again to see it.
    func migrate() throws {
        added += 1
        try store.define(tEntity())
        other = try openOther()
    }

    func write(through writer: Store, what: String) throws {
        log.append("\(step): write through the \(what)")
        try writeOnce(writer)
    }

    func writeOnce(_ writer: Store) throws {
        let key = randomKey()
        let exists = try writer.fetch("T", key: .string(key)) != nil
        if exists && chance(3) {
            log.append("    delete \(key)")
            try writer.delete("T", key: .string(key))
        } else if exists {
            var values = randomRow(key: key)
            values.removeValue(forKey: "id")
            if chance(2), let name = values.keys.sorted().randomElement(using: &random) { values = [name: values[name]!] }
            log.append("    update \(key) \(values.sorted { $0.key < $1.key })")
            try writer.update("T", key: .string(key), values)
        } else {
            let row = randomRow(key: key)
            log.append("    insert \(row.sorted { $0.key < $1.key })")
            try writer.insert("T", row)
        }
    }

    static func describe(_ request: FetchRequest) -> String {
        "\(request.predicate.format) by \(request.sortKeys.map { "\($0.attribute) \($0.ascending ? "asc" : "desc")" })"
            + (request.sectionAttribute.map { ", sections by \($0)" } ?? "") + (request.aggregates.isEmpty ? "" : ", aggregates")
            + (request.displayedAttributes.map { ", displays \($0)" } ?? "") + (request.reportsChangedAttributes ? ", names changes" : "")
    }

    func addQuery(insideTransaction: Bool) throws {
        let request = try randomRequest()
        let controller = try ResultsController(store: store, request: request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        if chance(3) { try controller.setWindow(randomWindow(in: nil).map { window in
            if case .anchored = window { return .offset(1, length: 4) } else { return window }
        }) }
        log.append("\(step): new query \(queries.count) \(Self.describe(request))\(insideTransaction ? " inside a transaction" : "")"
                   + (controller.window.map { ", window \($0)" } ?? ""))
        // What the delegate sees once the fetch is done; the registering transaction's
        // writes reach it at commit, as groups.
        var registered: [ListSection<Value, Value>] = []
        // The committed values, which the fetch shows (inside the transaction too).
        let values = try storedValues()
        if insideTransaction {
            try store.write {
                try writeOnce(store)
                try controller.performFetch()
                // A window's whole results loaded inside the transaction, as an app asking
                // for counts does.
                if controller.window != nil, chance(2) {
                    log.append("    its whole results loaded")
                    try controller.loadResults()
                }
                registered = controller.snapshot
                try writeOnce(store)
            }
        } else {
            try controller.performFetch()
            registered = controller.snapshot
        }
        queries.append((controller, recorder, registered, values))
    }

    func resume() throws {
        guard var source = queries.randomElement(using: &random)?.controller else { return }
        if chance(2) {
            // A window opened cold, as a relaunched app shows one: its token keeps its rows.
            let cold = try ResultsController(store: store, request: try randomRequest())
            let window = ResultsWindow.offset(Int.random(in: 0..<4, using: &random), length: Int.random(in: 1..<6, using: &random))
            try cold.setWindow(window)
            try cold.performFetch()
            log.append("\(step): a window opened cold to save a token: \(Self.describe(cold.request)), window \(window)")
            source = cold
        }
        let token = try source.resumeToken()
        let saved = source.snapshot
        // The values the token's rows had: the source query showed the committed state.
        let values = try storedValues()
        let writes = Int.random(in: 0...2, using: &random)
        committedSeveralTimes = writes > 1
        for _ in 0..<writes { try writeOnce(chance(2) ? store : other) }
        _ = try store.pollExternalChanges()
        // The token from before a rebuild: what the rebuild changed went unlogged.
        if raw != nil, chance(4) { try rebuildTable() }
        if chance(3), added < 3 {
            log.append("\(step): add attribute x\(added) before resuming")
            try migrate()
        }
        let controller = try ResultsController(store: store, request: source.request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        // Half the time through its text, as an app relaunched reads it back.
        let throughText = chance(2)
        log.append("\(step): resume query from a token\(throughText ? " read from its text" : "")\(token.shownRows == nil ? "" : " with its rows")")
        try controller.performFetch(resumingFrom: throughText ? ResumeToken(token.encoded) : token)
        queries.append((controller, recorder, saved, values))
        if queries.count > 5 { queries.removeFirst() }
    }

    // MARK: Checks

    func isInResults(_ key: Value, _ request: FetchRequest) throws -> Bool {
        let whole = try ResultsController(store: store, request: request)
        try whole.performFetch()
        return whole.indexPath(for: key) != nil
    }

    /// Every row of T as the store's connection reads it, with the key path `f.name`, by
    /// key — not through a live query, whose object reads would fill its row cache.
    func storedValues() throws -> [Value: [String: Value]] {
        try Self.storedValues(in: store, keys: 16)
    }

    /// The rows of T with keys `t0` … in `store`, each with the key path `f.name`, by key.
    static func storedValues(in store: Store, keys: Int) throws -> [Value: [String: Value]] {
        var values: [Value: [String: Value]] = [:]
        for index in 0..<keys {
            guard let row = try store.fetch("T", key: .string("t\(index)")) else { continue }
            var named = row.dictionary
            named["f.name"] = try row["f"].flatMap { try store.fetch("F", key: $0) }?["name"] ?? .null
            values[row.key] = named
        }
        return values
    }

    func check() throws {
        let context = "seed \(seed), after step \(step):\n" + log.suffix(40).joined(separator: "\n")
        if let liveCount {
            let fresh = try LiveCount(store: store, entity: "T", predicate: liveCount.request.predicate)
            try fresh.performFetch()
            #expect(liveCount.count == fresh.count, "live count \(liveCount.count), a fresh one \(fresh.count)\n\(context)")
        }
        // Read once for every query: what each query's next updates are compared with.
        let valuesNow = try storedValues()
        for index in queries.indices {
            let (controller, recorder, before, values) = queries[index]
            // An update is a change of values: each one differs from the values the object had
            // last (at the last check, or at its last event since), unless a resync or a
            // failure made every object that stays an update.
            var last = values
            let resynced = !recorder.resyncs.isEmpty || !recorder.errors.isEmpty
            let heardObjects = recorder.takeObjects()
            let heard = Set(heardObjects.map(\.object.key))
            for (type, object, changed, request) in heardObjects {
                let context = context + "\n    query \(index) heard: " + heardObjects.map { "\($0.type) \($0.object) \($0.changed ?? [])" }.joined(separator: "; ")
                let now = object.dictionary
                defer { last[object.key] = type == .delete ? nil : (last[object.key] ?? [:]).merging(now) { $1 } }
                guard !resynced, let previous = last[object.key], type == .update || type == .move else { continue }
                // What changed since the values it had last, in the object's order.
                let differing = object.entity.attributes.map(\.name).filter { name in previous[name].map { $0 != now[name] } ?? false }
                if type == .update, differing.isEmpty {
                    Issue.record("query \(index): \(object.key) updated with the values it had, \(now)\n\(context)")
                }
                if type == .update, let displayed = request.displayedAttributes, !differing.contains(where: displayed.contains) {
                    Issue.record("query \(index): \(object.key) updated, but of what it displays (\(displayed)) nothing changed: \(differing)\n\(context)")
                }
                guard request.reportsChangedAttributes else { continue }
                // An update names what changed (null only in a resync); a move names it when anything did.
                if type == .update, changed == nil {
                    Issue.record("query \(index): \(object.key) updated without naming what changed (\(differing))\n\(context)")
                } else if request.displayedAttributes != nil && committedSeveralTimes {
                    // A change left unreported since the check is not in `previous`.
                    continue
                } else if (changed ?? []) != differing {
                    Issue.record("query \(index): \(object.key) \(type) names \(String(describing: changed)) as changed; since its last values \(differing) did\n\(context)")
                }
            }
            recorder.forgetResyncs()
            var shown = before
            for group in recorder.takeGroups() {
                do {
                    shown = try group.apply(to: shown)
                } catch {
                    Issue.record("query \(index): a group its delegate cannot apply (\(error)) to \(shown)\n\(group)\n\(context)")
                    return
                }
            }
            // Every object the delegate still sees whose displayed values changed was told so
            // (an update, a move, or a delete and an insert), unless a resync reported them all.
            // Under the request of the last check: one set since displays other attributes.
            if !resynced, !requestChanged.contains(index) {
                let request = controller.request
                let stayed = Set(before.flatMap(\.items)).intersection(shown.flatMap(\.items))
                for key in stayed where !heard.contains(key) {
                    guard let previous = values[key], let stored = valuesNow[key], let path = controller.indexPath(for: key),
                          let object = controller.object(at: path) else { continue }
                    let names = request.displayedAttributes ?? object.entity.attributes.map(\.name)
                    let differing = names.filter { name in previous[name].map { $0 != stored[name] } ?? false }
                    if !differing.isEmpty {
                        Issue.record("query \(index): \(key) shown before and now, its \(differing) changed, and its delegate heard nothing of it\n\(context)")
                    }
                }
            }
            queries[index].shown = shown
            queries[index].values = valuesNow
            #expect(recorder.errors.isEmpty, "query \(index) heard \(recorder.errors)\n\(context)")
            #expect(recorder.callbackOrderProblems.isEmpty, "query \(index): \(recorder.callbackOrderProblems)\n\(context)")
            #expect(shown == controller.snapshot, "query \(index): what its delegate was told is not what it shows\n\(context)")
            if controller.window != nil, let counts = controller.counts {
                let whole = try ResultsController(store: store, request: controller.request)
                try whole.performFetch()
                #expect(counts.total == whole.snapshot.reduce(0) { $0 + $1.items.count }
                        && counts.sections.map(\.name) == whole.snapshot.map(\.id)
                        && counts.sections.map(\.numberOfObjects) == whole.snapshot.map(\.items.count),
                        "query \(index): counts \(counts), the whole results \(whole.snapshot)\n\(context)")
            }
            if case let .anchored(anchor, _, _)? = controller.window, try store.fetch("T", key: anchor) == nil
                || !(try isInResults(anchor, controller.request)) {
                // No row to anchor on (the results emptied under the window): it shows none.
                #expect(controller.snapshot.isEmpty,
                        "query \(index): its anchor \(anchor) is gone, yet it shows \(controller.snapshot)\n\(context)")
                continue
            }
            let fresh = try ResultsController(store: store, request: controller.request)
            do {
                try fresh.setWindow(controller.window)
                try fresh.performFetch()
            } catch {
                Issue.record("query \(index) (window \(String(describing: controller.window)), showing \(controller.snapshot)): a fresh query with its request and window fails: \(error)\n\(context)")
                return
            }
            guard fresh.snapshot == controller.snapshot else {
                Issue.record("query \(index) shows \(controller.snapshot), a fresh query \(fresh.snapshot)\n\(context)")
                return
            }
            for (sectionIndex, section) in controller.snapshot.enumerated() {
                for item in section.items.indices {
                    let path = IndexPath(item: item, section: sectionIndex)
                    guard let live = controller.object(at: path), let now = fresh.object(at: path) else {
                        Issue.record("query \(index): no object at \(path)\n\(context)")
                        return
                    }
                    for attribute in live.entity.attributes.map(\.name) where now.entity.index(of: attribute) != nil {
                        #expect(live[attribute] == now[attribute], "query \(index): \(live.key).\(attribute) is \(String(describing: live[attribute])), stored \(String(describing: now[attribute]))\n\(context)")
                    }
                }
            }
            #expect(controller.aggregates == fresh.aggregates, "query \(index): aggregates\n\(context)")
        }
    }
}
