import Foundation
import RosterTestSupport
import Testing
@testable import Roster

/// The key property again, on text that is not valid UTF-8: for random byte strings stored
/// by SQL (`CAST(X'…' AS TEXT)`, as another process would), SQLite and Swift agree on
/// `WHERE`, on `ORDER BY`, on which values are equal, and on `GLOB` itself.
@Suite("Random byte strings agree between SQLite and Swift")
struct PredicateBytesRandomTests {
    /// A few seeds by default; `ROSTER_PROPERTY_SEEDS=200` for a longer soak.
    static func seeds(from first: UInt64, default count: Int) -> [UInt64] {
        let count = ProcessInfo.processInfo.environment["ROSTER_PROPERTY_SEEDS"].flatMap(Int.init) ?? count
        return (0..<UInt64(count)).map { first + $0 }
    }

    /// The key is indexed (its primary key) and so is `s`: SQLite may then answer a
    /// `GLOB` with a range of bytes instead of reading characters, which must not happen.
    static let entity = try! Entity("B", key: "k", attributes: [
        Attribute("k", .string), Attribute("s", .string), Attribute("t", .string), Attribute("i", .integer),
    ])

    /// Pieces of byte strings: ASCII (wildcards and letters of both cases), valid
    /// characters near the invalid ones, and every kind of invalid sequence SQLite's
    /// reader treats in its own way.
    static let pieces: [[UInt8]] = [
        [0x61], [0x41], [0x62], [0x2A], [0x3F], [0x5B], [0x5D], [0x5E], [0x2D], [0x00],
        [0xC3, 0xA9],              // é
        [0xCC, 0x81],              // U+0301, a nonspacing mark that [d] drops
        [0xED, 0x95, 0x9C],        // 한, which [d] decomposes into three jamo
        [0xC3, 0x9F],              // ß, which [c] folds to "ss"
        [0xEF, 0xBF, 0xBD],        // U+FFFD
        [0xEF, 0xBF, 0xBE],        // U+FFFE, which SQLite 3.40 reads as U+FFFD
        [0xC2, 0x80],              // U+0080
        [0xF0, 0x9F, 0x98, 0x80],  // U+1F600
        [0xC3],                    // a lead byte alone
        [0xA9], [0x80],            // continuation bytes alone: U+00A9 and U+0080 to SQLite
        [0xFF], [0xFE], [0xF8, 0x88, 0x80, 0x80, 0x80],  // leads UTF-8 no longer has
        [0xE0, 0x82, 0x80],        // overlong U+0080, which SQLite accepts
        [0xE0, 0x83, 0xA9],        // overlong é
        [0xC1, 0x81],              // overlong "A": U+FFFD to SQLite
        [0xED, 0xA0, 0x80],        // a surrogate
        [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
        [0xC3, 0xA9, 0xA9],        // one continuation byte too many
    ]

    static func randomBytes(_ random: inout SplitMix64, maxPieces: Int) -> [UInt8] {
        (0..<Int.random(in: 0...maxPieces, using: &random)).flatMap { _ in random.pick(pieces) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }

    static func sql(_ value: Value) -> String {
        guard let bytes = value.textBytes else { return value.isNull ? "NULL" : value.description }
        return "CAST(X'\(hex(bytes))' AS TEXT)"
    }

    /// NULs as characters: see ``PredicateGlobTests/randomPatterns(seed:)`` (no piece holds 0x01).
    @Test("GLOB in Swift and roster_glob in SQL read bytes as SQLite does", arguments: PredicateBytesRandomTests.seeds(from: 21, default: 2))
    func globAgrees(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        let statement = try database.connection.prepare("SELECT ?3 GLOB ?4, roster_glob(?2, ?1)")
        func withoutNUL(_ bytes: [UInt8]) -> Value { Value(textBytes: bytes.map { $0 == 0 ? 1 : $0 }) }
        let sets: [[UInt8]] = [Array("[a-c]".utf8), Array("[^a]".utf8), [0x5B, 0xC3, 0x5D], [0x5B, 0x80, 0x2D, 0xFF, 0x5D],
                               Array("[é-\u{FFFD}]".utf8), [0x5B, 0x61]]
        var matches = 0
        for _ in 0..<6_000 {
            let subject = Self.randomBytes(&random, maxPieces: 4)
            var pattern: [UInt8] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                pattern += random.chance(0.2) ? random.pick(sets) : random.pick(Self.pieces)
            }
            try statement.bind([Value(textBytes: subject), Value(textBytes: pattern), withoutNUL(subject), withoutNUL(pattern)])
            #expect(try statement.step())
            let expected = statement.column(0) == .integer(1)
            matches += expected ? 1 : 0
            let actual = Value(textBytes: subject).withTextBytes { GlobPattern(bytes: pattern).matches(utf8: $0) }
            #expect(actual == expected, "X'\(Self.hex(subject))' GLOB X'\(Self.hex(pattern))'")
            #expect((statement.column(1) == .integer(1)) == expected, "roster_glob(X'\(Self.hex(pattern))', X'\(Self.hex(subject))')")
        }
        #expect(matches > 300, "the random cases should match often enough to mean something")
    }

    @Test("WHERE, ORDER BY and equality agree on stored byte strings", arguments: PredicateBytesRandomTests.seeds(from: 31, default: 3))
    func storedBytesAgree(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        try database.createTable(for: Self.entity)
        try database.connection.execute("CREATE INDEX B_s ON B(s)")
        var keys: Set<[UInt8]> = []
        while keys.count < 200 { keys.insert(Self.randomBytes(&random, maxPieces: 3)) }
        try database.connection.execute("BEGIN")
        for key in keys {
            let values = [Value(textBytes: key)] + (0..<2).map { _ -> Value in
                random.chance(0.15) ? .null : Value(textBytes: Self.randomBytes(&random, maxPieces: 3))
            }
            try database.connection.execute("INSERT INTO B VALUES (\(values.map(Self.sql).joined(separator: ", ")), \(Int.random(in: 0...3, using: &random)))")
        }
        try database.connection.execute("COMMIT")
        let types = Self.entity.attributes.map(\.type)
        let rows = try database.rows("SELECT * FROM B", types: types)
        #expect(rows.count == keys.count)
        #expect(rows.contains { if case .invalidUTF8 = $0[0] { true } else { false } })

        // Identity: every stored key reads back as its own bytes, and distinct bytes are
        // distinct values (equal and hash alike exactly when the bytes are the same).
        #expect(Set(rows.map { $0[0].textBytes ?? [] }) == keys)
        #expect(Set(rows.map { $0[0] }).count == keys.count)
        for row in rows { #expect(Value(textBytes: row[0].textBytes ?? []) == row[0]) }

        // Order: SQLite's ORDER BY equals Swift's compare, both directions, on each column.
        for sortKeys in [[SortKey("s")], [SortKey("t", ascending: false)], [SortKey("s"), SortKey("t", ascending: false)], [SortKey("k")]] {
            let sort = try BoundSort(sortKeys, entity: Self.entity)
            let sqlite = try database.column("SELECT k FROM B ORDER BY \(sort.orderBySQL)")
            let swift = rows.sorted { sort.compare($0, $1) < 0 }.map { $0[0] }
            #expect(sqlite == swift, "ORDER BY \(sort.orderBySQL)")
        }

        // Predicates, with byte strings as arguments (`%@`), near misses of stored ones.
        let stored = rows.flatMap { $0[0...2] }.compactMap(\.textBytes)
        var nonTrivial = 0
        for _ in 0..<400 {
            var arguments: [Value] = []
            let format = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                Self.randomComparison(stored: stored, arguments: &arguments, &random)
            }.joined(separator: random.pick([" AND ", " OR "]))
            let predicate = try QueryPredicate(format: format, arguments: arguments)
            let bound = try BoundPredicate(predicate, entity: Self.entity)
            let sqlite = try database.expectSameKeys(bound, rows: rows)
            if !sqlite.isEmpty && sqlite.count < rows.count { nonTrivial += 1 }
        }
        #expect(nonTrivial > 100, "most predicates should select some rows but not all")
    }

    static func randomComparison(stored: [[UInt8]], arguments: inout [Value], _ random: inout SplitMix64) -> String {
        let attribute = random.pick(["k", "s", "t"])
        let op = random.pick(["==", "!=", "<", "<=", ">", ">=", "IN", "BETWEEN", "BEGINSWITH", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "LIKE"])
        let modifier = random.chance(0.5) ? random.pick(["[c]", "[d]", "[cd]"]) : ""
        func value() -> String {
            arguments.append(random.chance(0.05) ? .null : Value(textBytes: nearMiss(random.pick(stored), &random)))
            return "%@"
        }
        let operand = switch op {
        case "IN": "{" + (0..<Int.random(in: 1...3, using: &random)).map { _ in value() }.joined(separator: ", ") + "}"
        case "BETWEEN": "{\(value()), \(value())}"
        default: value()
        }
        return "\(attribute) \(op)\(modifier) \(operand)"
    }

    /// A piece of a stored byte string (which may cut a character in two), with the case
    /// of some ASCII letters flipped, and sometimes a wildcard or an odd byte added.
    static func nearMiss(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let start = random.chance(0.5) ? 0 : Int.random(in: 0...bytes.count, using: &random)
        let end = random.chance(0.5) ? bytes.count : Int.random(in: start...bytes.count, using: &random)
        var result = bytes[start..<end].map { byte -> UInt8 in
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            return isLetter && random.chance(0.3) ? byte ^ 0x20 : byte
        }
        if random.chance(0.2) { result.insert(random.pick([0x2A, 0x3F, 0xC3, 0x80]), at: Int.random(in: 0...result.count, using: &random)) }
        return result
    }
}
