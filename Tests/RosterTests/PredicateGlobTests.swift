import RosterTestSupport
import Testing
@testable import Roster

@Suite("GLOB matching in Swift agrees with SQLite")
struct PredicateGlobTests {
    /// SQLite's `GLOB` stops at a NUL; Roster's matcher reads it as a character. Since no
    /// piece holds U+0001, the character right above NUL, SQLite's answer for the texts
    /// with each NUL made U+0001 is the answer for the whole texts; `roster_glob` in SQL
    /// must give the same.
    @Test("random patterns, sets and ranges included, match like SQLite's GLOB, NULs as characters", arguments: [11, 12] as [UInt64])
    func randomPatterns(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        let statement = try database.connection.prepare("SELECT ?3 GLOB ?4, roster_glob(?2, ?1)")
        func withoutNUL(_ text: String) -> String { text.replacingOccurrences(of: "\u{0}", with: "\u{1}") }
        let subjectPieces = ["a", "b", "A", "-", "]", "^", "*", "?", "[", "é", "e\u{301}", "\u{0}", "日"]
        let patternPieces = subjectPieces + ["*", "?", "[ab]", "[^a]", "[a-c]", "[]a]", "[-a]", "[a-]", "[^]]", "[c-a]", "[é-日]", "[a"]
        var matches = 0
        for _ in 0..<6_000 {
            let subject = random.string(from: subjectPieces, maxLength: 5)
            let pattern = random.string(from: patternPieces, maxLength: 4)
            try statement.bind([.string(subject), .string(pattern), .string(withoutNUL(subject)), .string(withoutNUL(pattern))])
            #expect(try statement.step())
            let expected = statement.column(0) == .integer(1)
            matches += expected ? 1 : 0
            #expect(GlobPattern(pattern).matches(subject) == expected, "'\(subject)' GLOB '\(pattern)'")
            #expect((statement.column(1) == .integer(1)) == expected, "roster_glob('\(pattern)', '\(subject)')")
        }
        #expect(matches > 300, "the random cases should match often enough to mean something")
    }

    @Test("a pattern with many stars takes linear-ish time, not exponential")
    func noExponentialBacktracking() {
        let pattern = GlobPattern(String(repeating: "*a", count: 30) + "b")
        let subject = String(repeating: "a", count: 3_000)
        let clock = ContinuousClock()
        var result = true
        let elapsed = clock.measure { result = pattern.matches(subject) }
        #expect(result == false)
        #expect(elapsed < .seconds(5))
    }
}

@Suite("String operators mean what the spec says")
struct PredicateStringOperatorTests {
    static let entity = try! Entity("S", key: "k", attributes: [Attribute("k", .integer), Attribute("s", .string)])

    @Test("BEGINSWITH, ENDSWITH, CONTAINS and LIKE, with and without [c], [d] and [cd], agree with a direct definition")
    func agreeWithDefinition() throws {
        var random = SplitMix64(seed: 5)
        let pieces = ["a", "A", "b", "B", "*", "?", "[", "]", "é", "É", "e\u{301}", "日", "ß", "S", "ς", "Σ"]
        var hits = 0
        for _ in 0..<4_000 {
            let op = random.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"])
            let folding = random.pick([[], TextFolding.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
            let literal = random.string(from: pieces, maxLength: 3)
            let subject = random.string(from: pieces, maxLength: 4)
            let predicate = try QueryPredicate("s \(op)\(folding.modifier) %@", .string(literal))
            let actual = try BoundPredicate(predicate, entity: Self.entity).evaluate([0, .string(subject)])
            let expected = Self.definition(op, Self.scalars(subject, folding), Self.scalars(literal, folding))
            hits += expected ? 1 : 0
            #expect(actual == expected, "'\(subject)' \(op)\(folding.modifier) '\(literal)'")
        }
        #expect(hits > 500)
    }

    /// The scalars of the text as the modifier folds it (the folding itself is checked in
    /// TextFoldingTests; here, that the operators apply to folded text on both sides).
    static func scalars(_ text: String, _ folding: TextFolding) -> [UInt32] {
        guard case let .string(folded) = folding.fold(.string(text)) else { return [] }
        return folded.unicodeScalars.map(\.value)
    }

    /// The operators defined on scalar arrays, LIKE by plain (exponential) recursion.
    static func definition(_ op: String, _ subject: [UInt32], _ literal: [UInt32]) -> Bool {
        switch op {
        case "BEGINSWITH": return subject.starts(with: literal)
        case "ENDSWITH": return subject.reversed().starts(with: literal.reversed())
        case "CONTAINS": return literal.isEmpty || subject.indices.contains { subject[$0...].starts(with: literal) }
        default: return like(subject[...], literal[...])
        }
    }

    static func like(_ subject: ArraySlice<UInt32>, _ pattern: ArraySlice<UInt32>) -> Bool {
        guard let first = pattern.first else { return subject.isEmpty }
        if first == 42 /* * */ {
            return (subject.startIndex...subject.endIndex).contains { like(subject[$0...], pattern.dropFirst()) }
        }
        guard let next = subject.first, first == 63 /* ? */ || first == next else { return false }
        return like(subject.dropFirst(), pattern.dropFirst())
    }
}
