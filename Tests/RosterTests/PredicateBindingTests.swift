import Testing
@testable import Roster

@Suite("Binding predicates to an entity, and their SQL")
struct PredicateBindingTests {
    static let post = try! Entity("Post", key: "id", attributes: [
        Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer),
        Attribute("score", .double), Attribute("pinned", .bool),
    ])

    static func bind(_ format: String, _ arguments: Value...) throws -> BoundPredicate {
        try BoundPredicate(QueryPredicate(format: format, arguments: arguments), entity: post)
    }

    @Test("an unknown attribute is an error naming it, the entity and the offset")
    func unknownAttribute() {
        let error = #expect(throws: QueryPredicateError.self) { try Self.bind("rank > 1 AND rnak < 3") }
        #expect(error?.offset == 13)
        #expect(error?.description == "predicate \"rank > 1 AND rnak < 3\" at offset 13: entity 'Post' has no attribute 'rnak'")
    }

    @Test("a value that does not fit its attribute is an error naming both", arguments: [
        ("title == 3", 9, "attribute 'title' of entity 'Post' is string and cannot be compared with 3: use a quoted string"),
        ("rank == 'x'", 8, "attribute 'rank' of entity 'Post' is integer and cannot be compared with 'x': use a number"),
        ("score < 'x'", 8, "attribute 'score' of entity 'Post' is double and cannot be compared with 'x': use a number"),
        ("pinned == 'yes'", 10, "attribute 'pinned' of entity 'Post' is bool and cannot be compared with 'yes': use YES or NO"),
        ("title == YES", 9, "attribute 'title' of entity 'Post' is string and cannot be compared with YES: use a quoted string"),
        ("rank IN {1, nil, 'a'}", 17, "attribute 'rank' of entity 'Post' is integer and cannot be compared with 'a': use a number"),
        ("title BETWEEN {'a', 2.5}", 20, "attribute 'title' of entity 'Post' is string and cannot be compared with 2.5: use a quoted string"),
        ("rank BEGINSWITH '1'", 0, "BEGINSWITH needs a string attribute, but 'rank' of entity 'Post' is integer"),
        ("pinned LIKE nil", 0, "LIKE needs a string attribute, but 'pinned' of entity 'Post' is bool"),
        ("title CONTAINS 3", 15, "attribute 'title' of entity 'Post' is string and cannot be compared with 3: use a quoted string"),
    ])
    func typeMismatch(format: String, offset: Int, reason: String) {
        let error = #expect(throws: QueryPredicateError.self) { try Self.bind(format) }
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
    }

    @Test("values that fit: numbers and YES/NO for numbers and bools, nil anywhere", arguments: [
        "rank == YES", "score > 2", "score <= NO", "rank < 2.5", "pinned == 1", "pinned > 0.5", "pinned == TRUE",
        "title == nil", "rank != NULL", "title BEGINSWITH nil", "pinned IN {YES, 0, nil}", "%K ENDSWITH %@",
    ])
    func valuesThatFit(format: String) throws {
        let arguments: [Value] = format.contains("%K") ? ["title", "x"] : []
        _ = try BoundPredicate(QueryPredicate(format: format, arguments: arguments), entity: Self.post)
    }

    @Test("SQL is two-valued and every value is a parameter", arguments: [
        ("title == nil", #""title" IS NULL"#, [Value]()),
        ("title != nil", #""title" IS NOT NULL"#, []),
        ("title == 'x'", #""title" COLLATE BINARY IS ?"#, ["x"]),
        ("title !=[c] 'X'", #"roster_fold("title", 1) IS NOT ?"#, ["x"]),
        ("NOT rank > 2", #"NOT (("rank" IS NOT NULL AND "rank" > ?))"#, [2]),
        ("rank > 2 AND title BEGINSWITH[c] 'A*'",
         #"(("rank" IS NOT NULL AND "rank" > ?) AND ("title" IS NOT NULL AND roster_glob(?, roster_fold("title", 1))))"#, [2, "a[*]*"]),
        ("title ENDSWITH '?'", #"("title" IS NOT NULL AND roster_glob(?, "title"))"#, ["*[?]"]),
        ("title CONTAINS '[é'", #"("title" IS NOT NULL AND roster_glob(?, "title"))"#, ["*[[]é*"]),
        ("title LIKE[c] 'a?B*[Z'", #"("title" IS NOT NULL AND roster_glob(?, roster_fold("title", 1)))"#, ["a?b*[[]z"]),
        ("title LIKE[d] 'É*'", #"("title" IS NOT NULL AND roster_glob(?, roster_fold("title", 2)))"#, ["E*"]),
        ("title ==[cd] 'Straße'", #"roster_fold("title", 3) IS ?"#, ["strasse"]),
        ("rank IN {1, nil, 2}", #"("rank" IS NOT NULL AND "rank" IN (?, ?))"#, [1, 2]),
        ("title IN[c] {'A', 'ß'}", #"("title" IS NOT NULL AND roster_fold("title", 1) IN (?, ?))"#, ["a", "ss"]),
        ("rank IN {nil} OR rank < nil OR title BEGINSWITH nil", "(0 OR 0 OR 0)", []),
        ("score BETWEEN {1, 2.5}", #"("score" IS NOT NULL AND "score" BETWEEN ? AND ?)"#, [1, 2.5]),
        ("score BETWEEN {nil, 2.5}", "0", []),
        ("TRUEPREDICATE OR pinned == YES", #"(1 OR "pinned" IS ?)"#, [true]),
        ("rank ==[c] 1", #""rank" IS ?"#, [1]),
        ("title == \"'; DROP TABLE Post; --\"", #""title" COLLATE BINARY IS ?"#, ["'; DROP TABLE Post; --"]),
    ])
    func sql(format: String, sql: String, arguments: [Value]) throws {
        let bound = try Self.bind(format)
        #expect(bound.sql == sql)
        #expect(bound.arguments == arguments)
    }

    @Test("referencedAttributes lists the attributes whose values can change the answer")
    func referencedAttributes() throws {
        #expect(try Self.bind("rank > 1 OR NOT (title == 'a' AND pinned == YES)").referencedAttributes == [2, 1, 4])
        #expect(try Self.bind("score < nil OR rank IN {nil}").referencedAttributes == [])
        #expect(try Self.bind("TRUEPREDICATE").referencedAttributes == [])
    }

    @Test("null attributes: == and != treat null as a value; everything else is false, and NOT inverts it")
    func nullSemantics() throws {
        let row: [Value] = ["p1", nil, nil, nil, nil]
        let expectations: [(String, Bool)] = [
            ("title == nil", true), ("title != 'x'", true), ("title == 'x'", false), ("rank > 2", false),
            ("NOT rank > 2", true), ("rank IN {1, nil}", false), ("NOT rank IN {1, nil}", true),
            ("title BEGINSWITH ''", false), ("NOT title CONTAINS 'a'", true), ("score BETWEEN {-1e999, 1e999}", false),
            ("pinned != YES", true), ("NOT pinned == NO", true),
        ]
        for (format, expected) in expectations {
            #expect(try Self.bind(format).evaluate(row) == expected, "\(format)")
        }
    }

    @Test("every string begins with, ends with and contains the empty string; LIKE's ? is one scalar")
    func stringOperators() throws {
        let cases: [(String, String, Bool)] = [
            ("title BEGINSWITH ''", "", true), ("title ENDSWITH ''", "abc", true), ("title CONTAINS ''", "", true),
            ("title LIKE ''", "", true), ("title LIKE ''", "a", false), ("title LIKE '?'", "é", true),
            ("title LIKE '?'", "e\u{301}", false), ("title LIKE '??'", "e\u{301}", true),
            ("title LIKE 'a*c'", "abbbc", true), ("title LIKE 'a*c'", "abbbd", false),
            ("title BEGINSWITH[c] 'AB'", "abc", true), ("title BEGINSWITH 'AB'", "abc", false),
            ("title CONTAINS[c] 'É'", "é", true), ("title CONTAINS[c] 'E'", "é", false), ("title CONTAINS[cd] 'E'", "é", true), ("title CONTAINS '*'", "a*b", true), ("title CONTAINS '*'", "ab", false),
            ("title ENDSWITH '[x]'", "a[x]", true), ("title ENDSWITH '[x]'", "ax", false),
            ("title ==[c] 'HeLLo'", "hello", true), ("title <[c] 'B'", "a", true), ("title < 'B'", "a", false),
            ("title IN[c] {'x', 'hello'}", "HELLO", true), ("title IN {'x', 'hello'}", "HELLO", false),
            ("title BETWEEN[c] {'A', 'B'}", "ab", true), ("title BETWEEN {'A', 'B'}", "ab", false),
            ("title !=[c] 'ABC'", "abc", false), ("title != 'ABC'", "abc", true),
        ]
        for (format, title, expected) in cases {
            #expect(try Self.bind(format).evaluate(["p1", .string(title), nil, nil, nil]) == expected, "\(format) on '\(title)'")
        }
    }
}
