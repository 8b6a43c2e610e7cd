import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Random writes and random live queries, run side by side on SQLite and on PostgreSQL:
/// after every commit, each query's change group must be the same on both backends, and
/// each query's results must equal a fresh fetch on its own. Writes come through the store
/// (one at a time, and in transactions that may roll back) and through a second store on
/// the same database (another client), which the first hears when it polls. No raw SQL:
/// the two dialects differ there (Docs/ScriptFormat.md, "On PostgreSQL").
@Suite("PostgreSQL and SQLite agree", .needsPostgreSQL)
struct PostgresPropertyTests {
    /// `ROSTER_PROPERTY_SEEDS=100 swift test --filter PostgresPropertyTests` for a longer soak.
    static let seeds = 0..<(ProcessInfo.processInfo.environment["ROSTER_PROPERTY_SEEDS"].flatMap(Int.init) ?? 6)

    @Test("random writes give the same changes on both backends", arguments: PostgresPropertyTests.seeds)
    func randomWrites(seed: Int) throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        var random = SplitMix64(seed: UInt64(seed) &* 104_729 &+ 3)
        let world = try TwinWorld(schema: schema, random: &random)
        for step in 0..<40 { try world.step(&random, step: step) }
    }
}

/// One random entity on both backends, with the same live queries on each.
final class TwinWorld {
    /// SQLite's stores, then PostgreSQL's: the main one, and another client.
    let stores: [(main: Store, other: Store)]
    let entity: Entity
    /// For each query: its controller on each backend and their recorders.
    var queries: [(request: FetchRequest, controllers: [ResultsController], recorders: [GroupRecorder])] = []

    static let strings: [Value] = ["", "a", "b", "B", "ab", "ba", "é", "e\u{301}", "É", "a*", "x?", "[z", "ß", "SS", "\u{FFFD}"]

    init(schema: PostgresTestSchema, random: inout SplitMix64) throws {
        let sqlite = try Store.temporary()
        let server = try Store(postgresURL: schema.url)
        let keyType: AttributeType = Bool.random(using: &random) ? .string : .integer
        var attributes = [Attribute("k", keyType)]
        let types: [AttributeType] = [.string, .integer, .double, .bool]
        for index in 0..<Int.random(in: 2...3, using: &random) {
            attributes.append(Attribute("a\(index)", types.randomElement(using: &random)!))
        }
        entity = try Entity("T", key: "k", attributes: attributes)
        try sqlite.define(entity)
        try server.define(entity)
        stores = [(sqlite, try Store(path: sqlite.path)), (server, try Store(postgresURL: schema.url))]
        var seedRows: [[String: Value]] = []
        for _ in 0..<25 { seedRows.append(randomValues(&random, key: randomKey(&random))) }
        for (main, _) in stores {
            try main.write { for row in seedRows { try? main.insert("T", row) } }
        }
        for _ in 0..<3 {
            let request = try randomRequest(&random)
            var controllers: [ResultsController] = []
            var recorders: [GroupRecorder] = []
            for (main, _) in stores {
                let controller = try ResultsController(store: main, request: request)
                let recorder = GroupRecorder()
                controller.delegate = recorder
                try controller.performFetch()
                controllers.append(controller)
                recorders.append(recorder)
            }
            #expect(controllers[0].snapshot == controllers[1].snapshot, "first fetch of \(request.predicate.format)")
            queries.append((request, controllers, recorders))
        }
    }

    func randomKey(_ random: inout SplitMix64) -> Value {
        let number = Int.random(in: 0..<40, using: &random)
        return entity.key.type == .string ? .string("k\(number)") : .integer(Int64(number))
    }

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
        for attribute in entity.attributes.dropFirst() { values[attribute.name] = randomValue(attribute.type, &random) }
        return values
    }

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

    func randomPredicate(_ random: inout SplitMix64, depth: Int = 0) -> String {
        let attribute = entity.attributes.randomElement(using: &random)!
        let name = attribute.name
        switch Int.random(in: 0..<(depth > 1 ? 6 : 9), using: &random) {
        case 0, 1:
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            return "\(name) \(op) \(literal(randomValue(attribute.type, &random)))"
        case 2 where attribute.type == .string:
            let op = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "BEGINSWITH[c]", "CONTAINS[c]", "LIKE[cd]", "ENDSWITH[d]", "==[c]"].randomElement(using: &random)!
            let pattern = ["", "a", "B", "*a", "?", "é", "e*", "ss", "\u{FFFD}"].randomElement(using: &random)!
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

    func randomRequest(_ random: inout SplitMix64) throws -> FetchRequest {
        let section = Bool.random(using: &random) ? entity.attributes.dropFirst().randomElement(using: &random)!.name : nil
        var sortKeys: [SortKey] = []
        if let section { sortKeys.append(SortKey(section, ascending: Bool.random(using: &random))) }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            sortKeys.append(SortKey(entity.attributes.randomElement(using: &random)!.name, ascending: Bool.random(using: &random)))
        }
        return FetchRequest(entity: "T", predicate: try QueryPredicate(format: randomPredicate(&random), arguments: []),
                            sortKeys: sortKeys, sectionAttribute: section)
    }

    /// One random write, the same on both backends: the same values, the same outcome.
    enum Write {
        case insert([String: Value])
        case update(Value, [String: Value])
        case delete(Value)

        func apply(to store: Store) -> Bool {
            do {
                switch self {
                case let .insert(values): try store.insert("T", values)
                case let .update(key, values): try store.update("T", key: key, values)
                case let .delete(key): try store.delete("T", key: key)
                }
                return true
            } catch {
                return false
            }
        }
    }

    func randomWrite(_ random: inout SplitMix64) -> Write {
        let key = randomKey(&random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: return .insert(randomValues(&random, key: key))
        case 2: return .delete(key)
        default:
            var values = randomValues(&random, key: key)
            values["k"] = nil
            for name in values.keys where Bool.random(using: &random) { values[name] = nil }
            return .update(key, values)
        }
    }

    func step(_ random: inout SplitMix64, step: Int) throws {
        let writes = (0..<Int.random(in: 1...4, using: &random)).map { _ in randomWrite(&random) }
        let mode = Int.random(in: 0..<4, using: &random)
        var outcomes: [[Bool]] = []
        for (main, other) in stores {
            switch mode {
            case 0:  // one commit per write
                outcomes.append(writes.map { $0.apply(to: main) })
            case 1:  // one transaction
                try main.beginTransaction()
                outcomes.append(writes.map { $0.apply(to: main) })
                try main.commit()
            case 2:  // a transaction rolled back
                try main.beginTransaction()
                outcomes.append(writes.map { $0.apply(to: main) })
                try main.rollback()
            default:  // another client, heard when the store polls
                outcomes.append(writes.map { $0.apply(to: other) })
                try main.pollExternalChanges()
            }
        }
        #expect(outcomes[0] == outcomes[1], "step \(step): the writes succeeded differently on the two backends")
        for (request, controllers, recorders) in queries {
            let groups = recorders.map { $0.takeGroups() }
            #expect(groups[0] == groups[1], "step \(step), query \(request.predicate.format) sorted \(request.sortKeys.map(\.attribute)): SQLite and PostgreSQL heard different changes")
            #expect(recorders.allSatisfy { $0.errors.isEmpty }, "step \(step): \(recorders.flatMap(\.errors))")
            for (controller, (main, _)) in zip(controllers, stores) {
                let fresh = try ResultsController(store: main, request: request)
                try fresh.performFetch()
                #expect(controller.snapshot == fresh.snapshot, "step \(step): results differ from a fresh fetch (\(main.path))")
            }
        }
    }
}
