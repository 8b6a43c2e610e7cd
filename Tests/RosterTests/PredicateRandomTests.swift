import RosterTestSupport
import Testing
@testable import Roster

/// The key property: for random predicates over random rows, SQLite's `WHERE` and
/// ``BoundPredicate/evaluate(_:)`` select exactly the same keys.
@Suite("Random predicates agree between SQLite and Swift")
struct PredicateRandomTests {
    static let entity = try! Entity("T", key: "k", attributes: [
        Attribute("k", .integer), Attribute("s", .string), Attribute("t", .string),
        Attribute("i", .integer), Attribute("d", .double), Attribute("b", .bool),
    ])

    static let stringPieces = ["a", "A", "b", "B", "z", "*", "?", "[", "]", "^", "-", "é", "É", "e\u{301}", "ß", "_", "'", "\\", " ", "日"]
    static let integers: [Int64] = [-3, -2, -1, 0, 1, 2, 3, 9_007_199_254_740_992, 9_007_199_254_740_993, Int64.max, Int64.min]
    static let doubles: [Double] = [-2.5, -1, -0.5, -0.0, 0, 0.5, 1, 1.5, 2, 2.5, 9_007_199_254_740_992, 9_007_199_254_740_994,
                                    9_223_372_036_854_775_808, -9_223_372_036_854_775_808, .infinity, -.infinity, 1e-300]

    @Test("SQLite's WHERE and evaluate(row) select the same keys", arguments: [101, 202, 303] as [UInt64])
    func sqliteAndSwiftAgree(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        try database.createTable(for: Self.entity)
        try database.insert((0..<250).map { Self.randomRow(key: $0, &random) }, into: Self.entity)
        let types = Self.entity.attributes.map(\.type)
        let rows = try database.rows("SELECT * FROM T", types: types)
        let stored = rows.flatMap { [$0[1], $0[2]] }.compactMap { value -> String? in
            if case let .string(text) = value { text } else { nil }
        }
        var nonTrivial = 0
        for _ in 0..<400 {
            var arguments: [Value] = []
            let depth = Int.random(in: 0...3, using: &random)
            let format = Self.randomPredicate(depth: depth, stored: stored, arguments: &arguments, &random)
            let predicate = try QueryPredicate(format: format, arguments: arguments)
            #expect(try QueryPredicate(predicate.description) == predicate, "round trip of \(format)")
            let bound = try BoundPredicate(predicate, entity: Self.entity)
            let sqlite = try database.expectSameKeys(bound, rows: rows)
            if !sqlite.isEmpty && sqlite.count < rows.count { nonTrivial += 1 }
        }
        #expect(nonTrivial > 150, "most predicates should select some rows but not all")
    }

    static func randomRow(key: Int, _ random: inout SplitMix64) -> [Value] {
        func maybe(_ value: Value) -> Value { random.chance(0.2) ? .null : value }
        return [
            .integer(Int64(key)),
            maybe(.string(random.string(from: stringPieces, maxLength: 4))),
            maybe(.string(random.string(from: stringPieces, maxLength: 2))),
            maybe(.integer(random.pick(integers))),
            maybe(.double(random.pick(doubles))),
            maybe(.bool(random.chance(0.5))),
        ]
    }

    /// A predicate's text; values are inline literals or `%@` placeholders with `arguments`.
    static func randomPredicate(depth: Int, stored: [String], arguments: inout [Value],
                                _ random: inout SplitMix64) -> String {
        let choice = depth == 0 ? 0 : Int.random(in: 0..<9, using: &random)
        switch choice {
        case 5, 6:
            let terms = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                randomPredicate(depth: depth - 1, stored: stored, arguments: &arguments, &random)
            }
            let word = choice == 5 ? random.pick([" AND ", " and ", " && "]) : random.pick([" OR ", " or ", " || "])
            return "(" + terms.joined(separator: word) + ")"
        case 7:
            return random.pick(["NOT ", "not ", "!"]) + "(" + randomPredicate(depth: depth - 1, stored: stored, arguments: &arguments, &random) + ")"
        case 8 where random.chance(0.2):
            return random.pick(["TRUEPREDICATE", "FALSEPREDICATE"])
        default:
            return randomComparison(stored: stored, arguments: &arguments, &random)
        }
    }

    static func randomComparison(stored: [String], arguments: inout [Value], _ random: inout SplitMix64) -> String {
        let attribute = random.pick(entity.attributes)
        var operators = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "IN", "IN", "BETWEEN"]
        if attribute.type == .string { operators += ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "LIKE", "CONTAINS"] }
        let op = random.pick(operators)
        let modifier = random.chance(attribute.type == .string ? 0.5 : 0.05) ? random.pick(["[c]", "[d]", "[cd]"]) : ""
        func value() -> String {
            let stringOperator = op.allSatisfy(\.isLetter) && op != "IN" && op != "BETWEEN"
            let literal = randomValue(for: attribute.type, stringOperator: stringOperator, stored: stored, &random)
            if random.chance(0.5) {
                arguments.append(literal)
                return "%@"
            }
            return PredicatePrinter.literal(literal)
        }
        let operand: String = switch op {
        case "IN": "{" + (0..<Int.random(in: 0...4, using: &random)).map { _ in value() }.joined(separator: ", ") + "}"
        case "BETWEEN": "{\(value()), \(value())}"
        default: value()
        }
        return "\(attribute.name) \(op)\(modifier) \(operand)"
    }

    /// A string close to a stored one, so that tests hit: a piece of it, with the case of
    /// some ASCII letters flipped.
    static func nearMiss(of text: String, _ random: inout SplitMix64) -> String {
        let scalars = Array(text.unicodeScalars)
        let whole = random.chance(0.5)
        let start = whole || random.chance(0.5) ? 0 : Int.random(in: 0...scalars.count, using: &random)
        let end = whole || random.chance(0.5) ? scalars.count : Int.random(in: start...scalars.count, using: &random)
        var result = String.UnicodeScalarView()
        for scalar in scalars[start..<end] {
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            if isLetter && random.chance(0.5), let other = Unicode.Scalar(scalar.value ^ 0x20) {
                result.append(other)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    static func randomValue(for type: AttributeType, stringOperator: Bool, stored: [String],
                            _ random: inout SplitMix64) -> Value {
        if random.chance(0.08) { return .null }
        switch type {
        case .string:
            guard random.chance(0.5), !stored.isEmpty else {
                return .string(random.string(from: stringPieces, maxLength: stringOperator ? 2 : 3))
            }
            return .string(nearMiss(of: random.pick(stored), &random))
        case .integer, .double:
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1: return .integer(random.pick(integers))
            case 2, 3: return .double(random.pick(doubles))
            default: return .bool(random.chance(0.5))
            }
        case .bool:
            return random.pick([.bool(true), .bool(false), .integer(0), .integer(1), .integer(2), .double(0.5), .integer(-1)])
        }
    }
}
