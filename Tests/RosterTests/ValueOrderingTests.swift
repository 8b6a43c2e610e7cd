import RosterTestSupport
import Testing
@testable import Roster

@Suite("Value ordering agrees with SQLite")
struct ValueOrderingTests {
    /// Values where ordering is easy to get wrong: both sides of 2^53, the Int64 ends,
    /// doubles just past them, signed zeros, infinities, bytes versus code points.
    static let tricky: [Value] = [
        .integer(0), .integer(1), .integer(-1), .integer(Int64.max), .integer(Int64.min),
        .integer(Int64.max - 1), .integer(Int64.min + 1),
        .integer(9_007_199_254_740_992), .integer(9_007_199_254_740_993), .integer(-9_007_199_254_740_993),
        .double(9_007_199_254_740_992.0), .double(9_007_199_254_740_994.0), .double(-9_007_199_254_740_992.0),
        .double(9_223_372_036_854_775_808.0), .double(-9_223_372_036_854_775_808.0),
        .double(9_223_372_036_854_774_784.0), .double(0.0), .double(-0.0), .double(0.5), .double(-0.5),
        .double(1.0), .double(.infinity), .double(-.infinity), .double(1e-300), .double(-1e300),
        .bool(true), .bool(false),
        .string(""), .string("a"), .string("A"), .string("_"), .string("Z"), .string("["), .string("ab"),
        .string("é"), .string("e\u{301}"), .string("É"), .string("\u{10FFFF}"), .string("\u{FFFD}"),
        .string("ß"), .string("aB"), .string("Ab"), .string("a\u{0}b"), .string("1"), .string("10"),
        .string("\u{301}"), .string("日"), .string("ä"), .string("Ä"), .string("`"), .string("{"),
    ]

    @Test("every pair of tricky values compares as SQLite's operators do")
    func pairsAgreeWithSQLiteOperators() throws {
        let database = try QueryTestDatabase()
        let statement = try database.connection.prepare("SELECT CASE WHEN ?1 < ?2 THEN -1 WHEN ?1 > ?2 THEN 1 ELSE 0 END")
        for a in Self.tricky {
            for b in Self.tricky {
                try statement.bind([a, b])
                #expect(try statement.step())
                let expected = statement.column(0)
                let actual = Value.compare(a, b)
                #expect(.integer(Int64(actual)) == expected, "compare(\(a), \(b))")
            }
        }
    }

    @Test("text is equal exactly when its bytes are: strings, invalid UTF-8, any length", arguments: [7, 8, 9] as [UInt64])
    func textEqualityIsByteEquality(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Lengths around the 8-byte steps of the comparison, and long shared prefixes.
        let fragments = ["a", "b", "é", "e\u{301}", "日", "0123456", "01234567", "\u{1F600}"]
        var values: [Value] = []
        for _ in 0..<300 {
            let text = random.string(from: fragments, maxLength: 6)
            values.append(.string(text))
            values.append(.invalidUTF8(Array(text.utf8) + (random.next() % 3 == 0 ? [0xFF] : [])))
        }
        // Shuffled pairs; each value with itself; each string with its bytes as invalid UTF-8.
        for (a, b) in Array(zip(values, values.shuffled(using: &random))) + Array(zip(values, values)) + Array(zip(values, values.dropFirst())) {
            #expect((a == b) == (Self.bytes(a) == Self.bytes(b) && Self.bytes(a) != nil))
        }
    }

    private static func bytes(_ value: Value) -> [UInt8]? {
        switch value {
        case let .string(text): Array(text.utf8)
        case let .invalidUTF8(bytes): bytes
        default: nil
        }
    }

    @Test("null comes before every other value and equals only itself")
    func nullFirst() {
        #expect(Value.compare(.null, .null) == 0)
        for value in Self.tricky {
            #expect(Value.compare(.null, value) == -1)
            #expect(Value.compare(value, .null) == 1)
        }
        #expect(Value.compare(.double(.nan), .null) == 0)
    }

    @Test("an Int64 and a Double compare exactly, without rounding either")
    func integerAndDoubleCompareExactly() {
        #expect(Value.compare(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992.0)) == 1)
        #expect(Value.compare(.double(9_007_199_254_740_992.0), .integer(9_007_199_254_740_993)) == -1)
        #expect(Value.compare(.integer(Int64.max), .double(9_223_372_036_854_775_808.0)) == -1)
        #expect(Value.compare(.integer(Int64.min), .double(-9_223_372_036_854_775_808.0)) == 0)
        #expect(Value.compare(.integer(2), .double(2.5)) == -1)
        #expect(Value.compare(.integer(-2), .double(-2.5)) == 1)
        #expect(Value.compare(.bool(true), .integer(1)) == 0)
        #expect(Value.compare(.bool(false), .double(-0.0)) == 0)
    }

    @Test("ORDER BY over random mixed values equals sorting with Value.compare", arguments: [1, 2, 3] as [UInt64])
    func orderByAgrees(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let values = (0..<400).map { _ in Self.randomValue(&random) }
        let database = try QueryTestDatabase()
        try database.connection.execute("CREATE TABLE V(k INTEGER PRIMARY KEY, v)")
        let insert = try database.connection.prepare("INSERT INTO V VALUES (?, ?)")
        for (key, value) in values.enumerated() {
            try insert.bind([.integer(Int64(key)), value])
            try insert.step()
        }
        for (term, ascending) in [("v", true), ("v DESC", false)] {
            let sqlite = try database.column("SELECT k FROM V ORDER BY \(term), k").map { value -> Int in
                guard case let .integer(key) = value else { return -1 }
                return Int(key)
            }
            let swift = values.indices.sorted { a, b in
                let order = Value.compare(values[a], values[b])
                return order == 0 ? a < b : (ascending ? order < 0 : order > 0)
            }
            #expect(sqlite == swift, "ORDER BY \(term), seed \(seed)")
        }
    }

    @Test("compare is a total order: antisymmetric and transitive on random triples")
    func compareIsATotalOrder() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let (a, b, c) = (Self.randomValue(&random), Self.randomValue(&random), Self.randomValue(&random))
            #expect(Value.compare(a, b) == -Value.compare(b, a))
            if Value.compare(a, b) <= 0 && Value.compare(b, c) <= 0 {
                #expect(Value.compare(a, c) <= 0, "\(a) <= \(b) <= \(c)")
            }
        }
    }

    static func randomValue(_ random: inout SplitMix64) -> Value {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .null
        case 1: return random.pick(tricky)
        case 2: return .integer(Int64.random(in: -3...3, using: &random))
        case 3: return .integer(9_007_199_254_740_990 + Int64.random(in: 0...6, using: &random))
        case 4: return .double(Double(Int.random(in: -6...6, using: &random)) / 2)
        case 5: return .double(9_007_199_254_740_990 + Double(Int.random(in: 0...6, using: &random)))
        case 6: return .bool(random.chance(0.5))
        default:
            let fragments = ["a", "A", "b", "B", "_", "é", "e\u{301}", "É", "z", "Z", "0", "日", "\u{1F600}", " "]
            return .string(random.string(from: fragments, maxLength: 4))
        }
    }
}
