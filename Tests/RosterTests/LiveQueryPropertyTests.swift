import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Random stores, random live queries, random transactions: every change group must be
/// exactly right. For each group: the new snapshot equals a fresh fetch and the result
/// computed in Swift; the callbacks applied to the old snapshot give the new one; the batch
/// passes UIKit's rules and applying it gives the new one; updates are sent exactly for
/// the objects that stay, do not move, and whose stored values changed. A `LiveResults` on
/// another connection to the file, polled after a random half of the steps, must report
/// the same group when it polled after one step, and one exact change covering all of them
/// when it polled after several.
@Suite("Live query properties")
struct LiveQueryPropertyTests {
    /// 24 seeds by default; `ROSTER_PROPERTY_SEEDS=500 swift test --filter LiveQueryProperty`
    /// for a longer soak.
    static let seeds = 0..<(ProcessInfo.processInfo.environment["ROSTER_PROPERTY_SEEDS"].flatMap(Int.init) ?? 24)

    @Test("random mutations keep every live query exact", arguments: LiveQueryPropertyTests.seeds)
    func randomMutations(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7_919 &+ 17)
        let world = try RandomWorld(random: &random)
        for step in 0..<70 {
            try world.step(&random, step: step)
        }
    }
}

/// One random entity in a store, some live queries on it, and the checks.
final class RandomWorld {
    let store: Store
    let entity: Entity
    let external: ExternalConnection
    /// Another store on the file, behind a queue, for the watchers' `LiveResults`.
    let queue: StoreQueue
    var watchers: [Watcher] = []
    /// All stored rows by key, as read from the file after the last step.
    var table: [Value: [Value]] = [:]
    /// The table when the queue last polled: where the `LiveResults` changes start.
    var liveTable: [Value: [Value]] = [:]
    /// Whether the queue polled after the previous step.
    var polledLastStep = true

    final class Watcher {
        let controller: ResultsController
        let recorder = GroupRecorder()
        /// The same query on the simple engine (re-fetch and diff): a cross-check.
        let twin: ResultsController
        let twinRecorder = GroupRecorder()
        /// The same query as `LiveResults` on the queue's store: it hears this store's
        /// commits as another connection's, when the queue polls.
        let live: LiveResults
        var snapshot: [ListSection<Value, Value>] = []
        /// The results the `LiveResults` consumer last saw.
        var liveSnapshot: [ListSection<Value, Value>] = []
        init(controller: ResultsController, twin: ResultsController, live: LiveResults) {
            self.controller = controller
            self.twin = twin
            self.live = live
        }
    }

    init(random: inout SplitMix64) throws {
        store = try Store.temporary()
        let keyType: AttributeType = Bool.random(using: &random) ? .string : .integer
        var attributes = [Attribute("k", keyType)]
        let types: [AttributeType] = [.string, .integer, .double, .bool]
        for index in 0..<Int.random(in: 2...4, using: &random) {
            attributes.append(Attribute("a\(index)", types.randomElement(using: &random)!))
        }
        entity = try Entity("T", key: "k", attributes: attributes)
        try store.define(entity)
        external = try ExternalConnection(path: store.path)
        queue = try StoreQueue(path: store.path)
        for _ in 0..<40 { try? store.insert("T", randomValues(&random, key: randomKey(&random))) }
        table = try readTable()
        liveTable = table
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let request = try randomRequest(&random)
            let controller = try ResultsController(store: store, request: request)
            let twin = try ResultsController(store: store, request: request, engine: .refetchAndDiff)
            // Some controllers take one path for every commit: re-fetch, or re-sort.
            controller.forcedCommitPath = [nil, nil, CommitPath.refetch, .resort].randomElement(using: &random)!
            let watcher = Watcher(controller: controller, twin: twin, live: try LiveResults(queue: queue, request: request))
            controller.delegate = watcher.recorder
            twin.delegate = watcher.twinRecorder
            try controller.performFetch()
            try twin.performFetch()
            watcher.snapshot = controller.snapshot
            watcher.liveSnapshot = controller.snapshot
            try checkFresh(watcher, context: "initial fetch")
            watchers.append(watcher)
        }
    }

    // MARK: Random data

    func randomKey(_ random: inout SplitMix64) -> Value {
        let number = Int.random(in: 0..<60, using: &random)
        guard entity.key.type == .string else { return .integer(Int64(number)) }
        switch number {
        // Keys that are not valid UTF-8 ("k", a lone lead byte, a digit), and one that is
        // U+FFFD itself, which repairing them would give.
        case 55..<59: return .invalidUTF8([0x6B, 0xC3, 0x30 + UInt8(number - 55)])
        case 59: return .string("k\u{FFFD}")
        default: return .string("k\(number)")
        }
    }

    /// Strings, with text that is not valid UTF-8 among them: bytes that SQLite orders
    /// around "é" (C3 A9) and U+FFFD (EF BF BD), which they would be repaired into.
    static let strings: [Value] = ["", "a", "b", "B", "ab", "ba", "é", "e\u{301}", "a*", "x?", "[z", "\u{FFFD}",
                                   .invalidUTF8([0xC3]), .invalidUTF8([0xC5]), .invalidUTF8([0xC2]), .invalidUTF8([0x61, 0xC3]),
                                   .invalidUTF8([0xC3, 0xA9, 0xA9]), .invalidUTF8([0xFF])]

    func randomValue(_ type: AttributeType, _ random: inout SplitMix64) -> Value {
        if Int.random(in: 0..<6, using: &random) == 0 { return .null }
        switch type {
        case .string: return Self.strings.randomElement(using: &random)!
        case .integer: return .integer(Int64.random(in: -3...3, using: &random))
        case .double: return .double([-1.5, 0, 0.5, 1, 2.25, 3].randomElement(using: &random)!)
        case .bool: return .bool(Bool.random(using: &random))
        }
    }

    func randomValues(_ random: inout SplitMix64, key: Value) -> [String: Value] {
        var values: [String: Value] = ["k": key]
        for attribute in entity.attributes.dropFirst() {
            values[attribute.name] = randomValue(attribute.type, &random)
        }
        return values
    }

    /// A value in a predicate's text. Text that is not valid UTF-8 has no literal: U+FFFD,
    /// which it would be repaired into, stands for it (and must not match it).
    func literal(_ value: Value) -> String {
        switch value {
        case .null: "nil"
        case let .string(text): "'\(text)'"
        case let .bool(flag): flag ? "YES" : "NO"
        case let .integer(number): String(number)
        case let .double(number): String(number)
        case .invalidUTF8: "'\u{FFFD}'"
        }
    }

    /// A value in SQL's text: text that is not valid UTF-8 as `CAST(X'…' AS TEXT)`.
    func sqlLiteral(_ value: Value) -> String {
        switch value {
        case .null: "NULL"
        case let .string(text): "'\(text.replacingOccurrences(of: "'", with: "''"))'"
        case let .bool(flag): flag ? "1" : "0"
        case let .integer(number): String(number)
        case let .double(number): String(number)
        case let .invalidUTF8(bytes): "CAST(X'\(bytes.map { String(format: "%02X", $0) }.joined())' AS TEXT)"
        }
    }

    func randomPredicate(_ random: inout SplitMix64, depth: Int = 0) -> String {
        let choice = Int.random(in: 0..<(depth > 2 ? 6 : 9), using: &random)
        let attribute = entity.attributes.randomElement(using: &random)!
        let name = attribute.name
        switch choice {
        case 0, 1:
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            return "\(name) \(op) \(literal(randomValue(attribute.type, &random)))"
        case 2 where attribute.type == .string:
            let op = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "BEGINSWITH[c]", "CONTAINS[c]", "LIKE[c]", "ENDSWITH[d]", "CONTAINS[cd]"].randomElement(using: &random)!
            let pattern = ["", "a", "B", "*a", "?", "é", "e*", "\u{FFFD}", "a\u{FFFD}", "\u{80}"].randomElement(using: &random)!
            return "\(name) \(op) '\(pattern)'"
        case 3:
            let members = (0..<Int.random(in: 0...3, using: &random)).map { _ in literal(randomValue(attribute.type, &random)) }
            return "\(name) IN {\(members.joined(separator: ", "))}"
        case 4:
            return "\(name) BETWEEN {\(literal(randomValue(attribute.type, &random))), \(literal(randomValue(attribute.type, &random)))}"
        case 5:
            return ["TRUEPREDICATE", "\(name) == nil", "\(name) != nil"].randomElement(using: &random)!
        case 6:
            return "(\(randomPredicate(&random, depth: depth + 1))) AND (\(randomPredicate(&random, depth: depth + 1)))"
        case 7:
            return "\(randomPredicate(&random, depth: depth + 1)) OR \(randomPredicate(&random, depth: depth + 1))"
        default:
            return "NOT (\(randomPredicate(&random, depth: depth + 1)))"
        }
    }

    func randomSort(_ random: inout SplitMix64, section: String?) -> [SortKey] {
        var descriptors: [SortKey] = []
        if let section { descriptors.append(SortKey(section, ascending: Bool.random(using: &random))) }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            descriptors.append(SortKey(entity.attributes.randomElement(using: &random)!.name, ascending: Bool.random(using: &random)))
        }
        return descriptors
    }

    func randomRequest(_ random: inout SplitMix64) throws -> FetchRequest {
        let section = Bool.random(using: &random) ? entity.attributes.dropFirst().randomElement(using: &random)!.name : nil
        return FetchRequest(entity: "T", predicate: try QueryPredicate(format: randomPredicate(&random), arguments: []),
                            sortKeys: randomSort(&random, section: section), sectionAttribute: section)
    }

    // MARK: Steps

    func randomWrite(_ random: inout SplitMix64) {
        let key = randomKey(&random)
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1: try? store.insert("T", randomValues(&random, key: key))
        case 2: try? store.delete("T", key: key)
        case 3:
            // A write that changes nothing: the stored values again.
            if let row = table[key] {
                try? store.update("T", key: key, Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), row)))
            }
        case 4:
            let attribute = entity.attributes.dropFirst().randomElement(using: &random)!
            try? store.execute("UPDATE T SET \(attribute.name) = ? WHERE k = ?", arguments: [randomValue(attribute.type, &random), key])
        case 5:
            let attribute = entity.attributes.dropFirst().randomElement(using: &random)!
            let sql = attribute.type == .string ? "UPDATE T SET \(attribute.name) = NULL WHERE \(attribute.name) = 'a'"
                : attribute.type == .bool ? "UPDATE T SET \(attribute.name) = 1 - \(attribute.name)"
                : "UPDATE T SET \(attribute.name) = \(attribute.name) + 1 WHERE \(attribute.name) < 0"
            try? store.execute(sql)
        case 6:
            // Raw SQL that changes a key: a delete of the old key and an insert of the new one.
            try? store.execute("UPDATE T SET k = ? WHERE k = ?", arguments: [randomKey(&random), key])
        default:
            var values = randomValues(&random, key: key)
            values["k"] = nil
            for name in values.keys where Bool.random(using: &random) { values[name] = nil }
            try? store.update("T", key: key, values)
        }
    }

    func step(_ random: inout SplitMix64, step: Int) throws {
        let context = "step \(step)"
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1, 2, 3:
            randomWrite(&random)
        case 4:
            try store.beginTransaction()
            for _ in 0..<Int.random(in: 1...8, using: &random) { randomWrite(&random) }
            try store.commit()
        case 5:
            try store.beginTransaction()
            for _ in 0..<Int.random(in: 1...5, using: &random) { randomWrite(&random) }
            try store.rollback()
        case 6:
            // Changed and changed back, deleted and inserted again.
            let key = randomKey(&random)
            if let row = table[key] {
                let values = Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), row))
                try store.write {
                    try store.update("T", key: key, randomValues(&random, key: key))
                    try store.delete("T", key: key)
                    try store.insert("T", Bool.random(using: &random) ? values : randomValues(&random, key: key))
                    if Bool.random(using: &random) { try store.update("T", key: key, values) }
                }
            }
        case 7:
            let key = randomKey(&random)
            let attribute = entity.attributes.dropFirst().randomElement(using: &random)!
            let value = randomValue(attribute.type, &random)
            var sql = "UPDATE T SET \(attribute.name) = \(sqlLiteral(value)) WHERE k = \(sqlLiteral(key)); DELETE FROM T WHERE k = \(sqlLiteral(randomKey(&random)))"
            // Another process storing text that is not valid UTF-8, as SQLite lets it.
            if let text = entity.attributes.dropFirst().filter({ $0.type == .string }).randomElement(using: &random), Bool.random(using: &random) {
                // Lone bytes, and U+FFFD itself (EF BF BD), which is valid.
                let hex = ["C3", "C5", "C2", "EFBFBD", "61FF", "80"].randomElement(using: &random)!
                sql += "; UPDATE T SET \(text.name) = CAST(X'\(hex)' AS TEXT) WHERE k = \(sqlLiteral(randomKey(&random)))"
            }
            try? external.execute(sql)
            try store.pollExternalChanges()
        case 8:
            let watcher = watchers.randomElement(using: &random)!
            let section = watcher.controller.request.sectionAttribute
            let sort = randomSort(&random, section: section)
            try watcher.controller.setSortKeys(sort)
            try watcher.twin.setSortKeys(sort)
            try watcher.live.setRequest(watcher.controller.request)
        case 9:
            let watcher = watchers.randomElement(using: &random)!
            let predicate = try QueryPredicate(format: randomPredicate(&random), arguments: [])
            try watcher.controller.setPredicate(predicate)
            try watcher.twin.setPredicate(predicate)
            try watcher.live.setRequest(watcher.controller.request)
        default:
            // A bulk change in one statement.
            try? store.execute("UPDATE T SET \(entity.attributes[1].name) = NULL WHERE k IN (SELECT k FROM T ORDER BY random() LIMIT 5)")
        }
        let newTable = try readTable()
        let polls = Bool.random(using: &random)
        if polls { try queue.pollExternalChanges() }
        for watcher in watchers {
            let groups = try check(watcher, oldTable: table, newTable: newTable, context: context)
            if polls { try checkLive(watcher, controllerGroups: groups, newTable: newTable, context: context) }
        }
        table = newTable
        if polls { liveTable = newTable }
        polledLastStep = polls
    }

    // MARK: Checks

    func readTable() throws -> [Value: [Value]] {
        let connection = try Connection(path: store.path)
        let statement = try connection.prepare("SELECT \(entity.attributes.map(\.name).joined(separator: ", ")) FROM T")
        var rows: [Value: [Value]] = [:]
        while try statement.step() {
            let row = entity.attributes.indices.map { statement.column($0, as: entity.attributes[$0].type) }
            rows[row[entity.keyIndex]] = row
        }
        return rows
    }

    /// The results computed in Swift from the table: filter, sort, sections.
    func expectedSnapshot(_ controller: ResultsController, table: [Value: [Value]]) -> [ListSection<Value, Value>] {
        let query = controller.query
        let rows = table.values.filter { query.predicate.evaluate($0) }.sorted { query.sort.compare($0, $1) < 0 }
        var result: [ListSection<Value, Value>] = []
        for row in rows {
            let name = query.sectionName(of: row)
            if result.last?.id != name { result.append(ListSection(id: name, items: [])) }
            result[result.count - 1].items.append(query.key(of: row))
        }
        return result
    }

    func checkFresh(_ watcher: Watcher, context: String) throws {
        let fresh = try ResultsController(store: store, request: watcher.controller.request)
        try fresh.performFetch()
        #expect(watcher.controller.snapshot == fresh.snapshot, "\(context): live snapshot differs from a fresh fetch for \(watcher.controller.request.predicate)")
        #expect(watcher.controller.snapshot == expectedSnapshot(watcher.controller, table: try readTable()), "\(context): SQL and Swift disagree for \(watcher.controller.request.predicate)")
    }

    /// Checks the controller's change for one step; returns its groups.
    @discardableResult
    func check(_ watcher: Watcher, oldTable: [Value: [Value]], newTable: [Value: [Value]], context: String) throws -> [ChangeGroup<Value, Value>] {
        let old = watcher.snapshot
        let new = watcher.controller.snapshot
        let groups = watcher.recorder.takeGroups()
        let twinGroups = watcher.twinRecorder.takeGroups()
        #expect(groups == twinGroups, "\(context): the incremental engine and re-fetch-and-diff disagree for \(watcher.controller.request.predicate)")
        #expect(watcher.controller.snapshot == watcher.twin.snapshot, "\(context): the engines hold different results")
        #expect(watcher.recorder.callbackOrderProblems.isEmpty, "\(context): \(watcher.recorder.callbackOrderProblems)")
        #expect(groups.count <= 1, "\(context): one step gave \(groups.count) groups")
        try checkFresh(watcher, context: context)
        if let group = groups.first {
            #expect(!group.isEmpty, "\(context): an empty group was reported")
            do {
                #expect(try group.apply(to: old) == new, "\(context): callbacks applied to the old snapshot do not give the new one")
            } catch {
                Issue.record("\(context): the callbacks \(group) cannot be applied to \(old) (new \(new)): \(error)")
            }
            for keepsMoves in [false, true] {
                let batch = BatchAdapter(keepsMoves: keepsMoves).batch(for: group)
                do {
                    try batch.validate(old: old, new: new)
                } catch {
                    Issue.record("\(context): batch \(batch) is invalid: \(error)")
                }
            }
            let fewest = fewestMoves(from: old, to: new)
            #expect(fewest == nil || moveCount(group) == fewest?.moves, "\(context): \(moveCount(group)) moves, but \(fewest?.moves ?? 0) suffice")
            // Updates exactly for objects that stay, do not move, and whose values changed.
            let moved = Set(group.objectChanges.filter { $0.type == .move }.map(\.item))
            let updated = Set(group.objectChanges.filter { $0.type == .update }.map(\.item))
            let oldKeys = Set(old.flatMap(\.items))
            let newKeys = Set(new.flatMap(\.items))
            let expectedUpdates = oldKeys.intersection(newKeys).subtracting(moved).filter { oldTable[$0] != newTable[$0] }
            #expect(updated == expectedUpdates, "\(context): updates \(updated) but changed values \(expectedUpdates)")
        } else {
            #expect(old == new, "\(context): results changed but nothing was reported")
            let staying = Set(old.flatMap(\.items))
            let changed = staying.filter { oldTable[$0] != newTable[$0] }
            #expect(changed.isEmpty, "\(context): values of \(changed) changed but nothing was reported")
        }
        watcher.snapshot = new
        return groups
    }

    /// Checks the `LiveResults` change that the steps since the last poll make: the
    /// controller's own group when that was one step, and an exact change in any case.
    func checkLive(_ watcher: Watcher, controllerGroups: [ChangeGroup<Value, Value>], newTable: [Value: [Value]], context: String) throws {
        let old = watcher.liveSnapshot
        let new = watcher.controller.snapshot
        let change = try watcher.live.takeChange()
        if polledLastStep {
            #expect(change?.group == controllerGroups.first, "\(context): LiveResults reported \(String(describing: change?.group)), the controller \(String(describing: controllerGroups.first))")
        }
        #expect(watcher.live.snapshot.sections == new, "\(context): LiveResults holds other results")
        if let change {
            #expect(change.previousSnapshot.sections == old && change.snapshot.sections == new, "\(context): LiveResults' snapshots are not the results before and after")
            do {
                #expect(try change.group.apply(to: old) == new, "\(context): LiveResults' callbacks applied to its old snapshot do not give the new one")
            } catch {
                Issue.record("\(context): LiveResults' callbacks \(change.group) cannot be applied to \(old) (new \(new)): \(error)")
            }
            do {
                try change.batch.validate(old: old, new: new)
            } catch {
                Issue.record("\(context): LiveResults' batch \(change.batch) is invalid: \(error); group \(change.group), from \(old) to \(new)")
            }
            let fewest = fewestMoves(from: old, to: new)
            #expect(fewest == nil || moveCount(change.group) == fewest?.moves, "\(context): LiveResults reports \(moveCount(change.group)) moves, but \(fewest?.moves ?? 0) suffice")
            for object in change.group.objectChanges where object.type != .delete {
                #expect(change.objects[object.item]?.values == newTable[object.item], "\(context): LiveResults' object \(object.item) is not the stored one")
            }
            for object in change.group.objectChanges where object.type == .delete {
                #expect(change.deletedObjects[object.item]?.values == liveTable[object.item], "\(context): LiveResults' deleted object \(object.item) is not the one that was stored")
            }
            let moved = Set(change.group.objectChanges.filter { $0.type == .move }.map(\.item))
            let updated = Set(change.group.objectChanges.filter { $0.type == .update }.map(\.item))
            let staying = Set(old.flatMap(\.items)).intersection(new.flatMap(\.items))
            let expected = staying.subtracting(moved).filter { liveTable[$0] != newTable[$0] }
            #expect(updated == expected, "\(context): LiveResults updates \(updated) but changed values \(expected)")
        } else {
            #expect(old == new, "\(context): the results changed but LiveResults reported nothing")
            let changed = Set(old.flatMap(\.items)).filter { liveTable[$0] != newTable[$0] }
            #expect(changed.isEmpty, "\(context): values of \(changed) changed but LiveResults reported nothing")
        }
        watcher.liveSnapshot = new
    }
}
