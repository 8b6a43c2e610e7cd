import Foundation
import RosterTestSupport
import Testing
@testable import Roster

/// `[c]`, `[d]` and `[cd]`: Unicode full case folding and diacritic folding, the same in
/// SQLite (`roster_fold`) and in Swift, checked against Unicode's own properties, against
/// Foundation's `folding(options:locale:)`, and on random multilingual text.
@Suite("Unicode case and diacritic folding")
struct TextFoldingTests {
    static let entity = try! Entity("T", key: "k", attributes: [Attribute("k", .integer), Attribute("s", .string)])

    /// The scalars of the text as `folding` folds it. (Swift's `==` on strings is canonical
    /// equivalence, so these tests compare scalars.)
    static func fold(_ text: String, _ folding: TextFolding) -> [Unicode.Scalar] {
        guard case let .string(folded) = folding.fold(.string(text)) else {
            Issue.record("folding valid UTF-8 \(text.debugDescription) gave something that is not valid UTF-8")
            return []
        }
        return Array(folded.unicodeScalars)
    }

    static func name(_ scalar: Unicode.Scalar) -> String { "U+" + String(scalar.value, radix: 16, uppercase: true) }

    /// Every assigned scalar of Unicode 15.0 and before (the tables' version) from U+0080.
    static let scalars: [Unicode.Scalar] = (0x80...0x10FFFF).compactMap { value in
        guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age,
              age.major < 15 || (age.major == 15 && age.minor == 0) else { return nil }
        return scalar
    }

    @Test("the contract's examples, in Swift and in SQLite", arguments: [
        ("s ==[c] 'STRASSE'", "straße", true), ("s ==[c] 'ss'", "ẞ", true), ("s == 'ss'", "ß", false),
        ("s ==[c] 'σίσυφος'", "ΣΊΣΥΦΟΣ", true), ("s ==[c] 'ΣΊΣΥΦΟΣ'", "σίσυφος", true), ("s ==[c] 'σ'", "ς", true),
        ("s ==[c] 'i\u{307}stanbul'", "İstanbul", true), ("s ==[c] 'ffi'", "ﬃ", true), ("s ==[c] 'é'", "É", true),
        ("s ==[c] 'e'", "é", false), ("s ==[d] 'e'", "é", true), ("s ==[d] 'e'", "e\u{301}", true),
        ("s ==[d] 'E'", "é", false), ("s ==[cd] 'E'", "é", true), ("s ==[cd] 'STRASSE'", "Straße", true),
        ("s ==[d] 'A'", "\u{212B}", true), ("s ==[d] 'Lodz'", "Łódź", false), ("s ==[d] 'Łodz'", "Łódź", true),
        ("s ==[d] 'カ'", "ガ", true), ("s ==[d] 'שלום'", "שָׁלוֹם", true), ("s ==[d] 'tieng viet'", "tiếng việt", true),
        ("s ==[d] '\u{1112}\u{1161}\u{11AB}'", "한", true), ("s ==[c] 'ꭰ'", "Ꭰ", true), ("s ==[c] 'եւ'", "և", true),
        ("s CONTAINS[c] 'SS'", "Maße", true), ("s BEGINSWITH[cd] 'ELE'", "Élève", true),
        ("s ENDSWITH[cd] 'VIET'", "Tiếng Việt", true), ("s LIKE[cd] 'e?e*'", "Élève", true),
        ("s LIKE[c] '?'", "ß", false), ("s LIKE[c] '??'", "ß", true), ("s IN[cd] {'x', 'zurich'}", "Zürich", true),
        ("s <[c] 'b'", "Ä", false), ("s <[cd] 'b'", "Ä", true), ("s BETWEEN[cd] {'a', 'b'}", "Ärger", true),
        ("s !=[cd] 'ARGER'", "ärger", false), ("s ==[d] ''", "\u{301}", true), ("s ==[cd] ''", "\u{345}", true),
        ("s ==[cd] 'α'", "ᾳ", true), ("s ==[d] 'α'", "ᾳ", true), ("s ==[c] 'αι'", "ᾳ", true), ("s ==[d] '='", "≠", true),
        ("s ==[cd] 'i'", "İ", true), ("s ==[c] 'i'", "İ", false),
    ] as [(String, String, Bool)])
    func contractExamples(format: String, text: String, expected: Bool) throws {
        let bound = try BoundPredicate(QueryPredicate(format), entity: Self.entity)
        #expect(bound.evaluate([0, .string(text)]) == expected, "Swift: \(format) on '\(text)'")
        let database = try QueryTestDatabase()
        try database.createTable(for: Self.entity)
        try database.insert([[0, .string(text)]], into: Self.entity)
        let selected = try database.column("SELECT k FROM T WHERE \(bound.sql)", bound.arguments)
        #expect(selected == (expected ? [0] : []), "SQLite: \(format) on '\(text)'")
    }

    @Test("[c] changes exactly the scalars that Unicode says change when case folded")
    func caseFoldingChangesWhatUnicodeSays() {
        // Unicode defines the property on the canonical decomposition: ǰ (U+01F0) folds to j
        // and a combining caron, which is its own decomposition, so it "does not change".
        func decomposed(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
            Array(String(String.UnicodeScalarView(scalars)).decomposedStringWithCanonicalMapping.unicodeScalars)
        }
        let disagreements = Self.scalars.filter {
            (decomposed(Self.fold(String($0), .caseInsensitive)) != decomposed([$0])) != $0.properties.changesWhenCaseFolded
        }
        #expect(disagreements.isEmpty, "\(disagreements.map(Self.name))")
        // Folding is idempotent.
        for scalar in Self.scalars {
            let once = String(String.UnicodeScalarView(Self.fold(String(scalar), [.caseInsensitive, .diacriticInsensitive])))
            #expect(Self.fold(once, [.caseInsensitive, .diacriticInsensitive]) == Array(once.unicodeScalars), "\(Self.name(scalar))")
        }
    }

    @Test("[d] drops every nonspacing mark and keeps every other scalar that has no canonical decomposition")
    func diacriticFoldingDropsNonspacingMarks() {
        for scalar in Self.scalars {
            let folded = Self.fold(String(scalar), .diacriticInsensitive)
            #expect(!folded.contains { $0.properties.generalCategory == .nonspacingMark && !Self.categoryChanged.contains($0.value) }, "\(Self.name(scalar))")
            let decomposition = Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
            if scalar.properties.generalCategory != .nonspacingMark && decomposition == [scalar] && !Self.categoryChanged.contains(scalar.value) {
                #expect(folded == [scalar], "\(Self.name(scalar)) has no decomposition")
            }
        }
    }

    /// Scalars whose general category Swift's later Unicode tables give otherwise than
    /// Unicode 15: U+1171E AHOM CONSONANT SIGN MEDIAL RA, Mn in 15 and Mc since.
    static let categoryChanged: Set<UInt32> = [0x1171E]

    /// Foundation's folding of one scalar.
    static func foundation(_ scalar: Unicode.Scalar, _ options: String.CompareOptions) -> [Unicode.Scalar] {
        Array(String(scalar).folding(options: options, locale: nil).unicodeScalars)
    }

    /// Where Roster's [c] follows CaseFolding.txt and Foundation does not: Cherokee, whose
    /// letters fold to upper case (Foundation: lower), and the historic Cyrillic variants
    /// U+1C80–U+1C88, which fold to their ordinary letters (Foundation: unchanged).
    static let caseDifferences: Set<UInt32> = Set(0x13A0...0x13F5).union(0x13F8...0x13FD).union(0xAB70...0xABBF).union(0x1C80...0x1C88)

    @Test("[c] equals Foundation's case-insensitive folding for every scalar of Unicode 15 but the documented ones")
    func caseFoldingAgreesWithFoundation() {
        let differences = Self.scalars.filter { Self.fold(String($0), .caseInsensitive) != Self.foundation($0, .caseInsensitive) }
        #expect(Set(differences.map(\.value)) == Self.caseDifferences, "\(differences.filter { !Self.caseDifferences.contains($0.value) }.map(Self.name))")
        // Cherokee still matches in both cases, as Foundation's does.
        for (upper, lower) in zip(0x13A0...0x13EF, 0xAB70...0xABBF) {
            let (a, b) = (String(Unicode.Scalar(upper)!), String(Unicode.Scalar(lower)!))
            #expect(Self.fold(a, .caseInsensitive) == Self.fold(b, .caseInsensitive))
            #expect(Self.foundation(Unicode.Scalar(upper)!, .caseInsensitive) == Self.foundation(Unicode.Scalar(lower)!, .caseInsensitive))
        }
    }

    @Test("[d] equals Foundation's diacritic-insensitive folding but for the documented differences")
    func diacriticFoldingAgreesWithFoundation() {
        var differences: [String: [String]] = [:]
        for scalar in Self.scalars {
            let ours = Self.fold(String(scalar), .diacriticInsensitive), theirs = Self.foundation(scalar, .diacriticInsensitive)
            guard ours != theirs else { continue }
            differences[Self.documentedDifference(scalar, ours: ours, theirs: theirs) ?? "undocumented", default: []].append(Self.name(scalar))
        }
        #expect(differences["undocumented"] == nil, "\(differences["undocumented"] ?? [])")
        // Text in the Latin, Greek and Cyrillic scripts folds as Foundation folds it.
        for word in ["Élève", "Příliš žluťoučký kůň", "Tiếng Việt", "Zürich", "ὀδυσσεύς", "Ёлка", "ЙОД", "A\u{30A}ngstr\u{F6}m", "naïve café"] {
            for options: String.CompareOptions in [.diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]] {
                let folding: TextFolding = options.contains(.caseInsensitive) ? [.caseInsensitive, .diacriticInsensitive] : .diacriticInsensitive
                #expect(Self.fold(word, folding) == Array(word.folding(options: options, locale: nil).unicodeScalars), "\(word)")
            }
        }
    }

    /// Which documented difference (Docs/ScriptFormat.md, "Modifiers") explains why Foundation
    /// folds a scalar otherwise, or nil.
    static func documentedDifference(_ scalar: Unicode.Scalar, ours: [Unicode.Scalar], theirs: [Unicode.Scalar]) -> String? {
        // Hangul syllables decompose into their conjoining jamo; Foundation keeps them.
        if (0xAC00...0xD7A3).contains(scalar.value) && theirs == [scalar] { return "hangul" }
        // Foundation keeps some nonspacing marks that [d] drops, alone or in a decomposition.
        if theirs.contains(where: { $0.properties.generalCategory == .nonspacingMark })
            && theirs.filter({ $0.properties.generalCategory != .nonspacingMark }) == ours {
            return "marks Foundation keeps"
        }
        // Foundation leaves some precomposed scalars whole.
        if theirs == [scalar] { return "not decomposed by Foundation" }
        return nil
    }

    /// Words in many scripts, with their case and marks; the random test cuts and recases them.
    static let words = [
        "Straße", "STRASSE", "Maß", "ẞ", "Σίσυφος", "ΣΊΣΥΦΟΣ", "ὀδυσσεύς", "ΐ", "İstanbul", "ısparta", "Élève", "élève",
        "Tiếng Việt", "Łódź", "Příliš žluťoučký kůň", "Zürich", "ᏣᎳᎩ", "ꮳꮃꭹ", "և", "ﬁ", "ǅ", "Ǳ", "ĳ",
        "ᲐᲑᲒ", "აბგ", "한국어", "\u{1112}\u{1161}\u{11AB}", "ガギグ", "カキク", "שָׁלוֹם", "שלום", "مُحَمَّد", "محمد",
        "हिन्दी", "ภาษาไทย", "👍🏽", "e\u{301}", "A\u{30A}", "\u{212B}", "Ω", "\u{2126}", "ǰ", "ﬀ", "ss", "SS", "i", "I",
    ]

    /// Random text from `words`: whole words or runs of their scalars, upper- or lower-cased
    /// as Swift's full mappings do, sometimes decomposed.
    static func randomText(_ random: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            var word = random.pick(words)
            if random.chance(0.4) {
                let scalars = Array(word.unicodeScalars)
                let start = Int.random(in: 0..<scalars.count, using: &random)
                let end = Int.random(in: (start + 1)...scalars.count, using: &random)
                word = String(String.UnicodeScalarView(scalars[start..<end]))
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: word = word.uppercased()
            case 1: word = word.lowercased()
            case 2: word = word.decomposedStringWithCanonicalMapping
            default: break
            }
            text += (text.isEmpty ? "" : random.pick([" ", "", "-"])) + word
        }
        return text
    }

    @Test("random predicates with [c], [d] and [cd] over multilingual text: SQLite and Swift agree",
          arguments: [1, 2, 3] as [UInt64])
    func sqliteAndSwiftAgreeOnMultilingualText(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        try database.createTable(for: Self.entity)
        var stored = (0..<300).map { key -> [Value] in [.integer(Int64(key)), random.chance(0.05) ? .null : .string(Self.randomText(&random))] }
        // Text that is not valid UTF-8 folds its valid scalars and keeps its other bytes.
        stored.append([300, .invalidUTF8([0xFF] + Array("STRASSE".utf8) + [0xC3])])
        stored.append([301, .invalidUTF8(Array("É".utf8) + [0x80])])
        try database.insert(stored, into: Self.entity)
        let rows = try database.rows("SELECT * FROM T", types: [.integer, .string])
        var selective = 0
        for _ in 0..<500 {
            let op = random.pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "BETWEEN"])
            let modifier = random.pick(["[c]", "[d]", "[cd]", "[dc]", "[C]", "[D]", ""])
            func literal() -> Value {
                var text = Self.randomText(&random)
                if op == "LIKE" && random.chance(0.5) { text = text.unicodeScalars.map { random.chance(0.3) ? "?" : String($0) }.joined() + "*" }
                return .string(text)
            }
            let (operand, arguments): (String, [Value]) = switch op {
            case "IN": ("{%@, %@}", [literal(), literal()])
            case "BETWEEN": ("{%@, %@}", [literal(), literal()].sorted { Value.compare($0, $1) < 0 })
            default: ("%@", [literal()])
            }
            let predicate = try QueryPredicate(format: "s \(op)\(modifier) \(operand)", arguments: arguments)
            #expect(try QueryPredicate(predicate.description) == predicate)
            let bound = try BoundPredicate(predicate, entity: Self.entity)
            let selected = try database.expectSameKeys(bound, rows: rows)
            if !selected.isEmpty && selected.count < rows.count { selective += 1 }
        }
        #expect(selective > 100, "most predicates should select some rows but not all")
    }

    @Test("a modifier other than c and d, or a letter twice, is a clear error at its offset",
          arguments: ["s ==[n] 'a'", "s ==[cc] 'a'", "s ==[cdl] 'a'", "s ==[] 'a'"])
    func unknownModifiers(format: String) {
        #expect {
            try QueryPredicate(format)
        } throws: { error in
            guard let error = error as? QueryPredicateError else { return false }
            return error.offset == 4 && error.reason.contains("unsupported modifier")
        }
    }

    @Test("a BLOB another writer stored in a string column folds as the text of its bytes, in SQLite as in Swift")
    func blobsFoldAsText() throws {
        let database = try QueryTestDatabase()
        try database.connection.execute("CREATE TABLE T(k INTEGER PRIMARY KEY, s TEXT)")
        try database.connection.execute("INSERT INTO T VALUES (0, X'41C3'), (1, X'4243'), (2, X''), (3, 5), (4, NULL)")
        #expect(try database.column("SELECT typeof(roster_fold(s, 1)) FROM T ORDER BY k") == ["text", "text", "text", "text", "null"], "5 is stored as text: the column has TEXT affinity")
        #expect(try database.column("SELECT roster_fold(s, 1) FROM T WHERE k = 0") == [.invalidUTF8([0x61, 0xC3])])
        let rows = try database.rows("SELECT * FROM T ORDER BY k", types: [.integer, .string])
        for format in ["s BEGINSWITH[c] 'a'", "s ==[cd] 'bc'", "s ==[c] ''", "s <[c] 'b'"] {
            let bound = try BoundPredicate(QueryPredicate(format), entity: Self.entity)
            try database.expectSameKeys(bound, rows: rows)
        }
    }

    @Test("values that are not text, null and empty text are not folded")
    func onlyTextFolds() {
        for value: Value in [nil, 1, 2.5, true, "", "abc"] {
            #expect(TextFolding([.caseInsensitive, .diacriticInsensitive]).fold(value) == value)
        }
        #expect(TextFolding.unicodeVersion == "15.0.0")
    }
}
