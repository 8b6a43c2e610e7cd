import Testing
@testable import Roster

@Suite("QueryPredicate parsing")
struct PredicateParserTests {
    @Test("AND binds tighter than OR, NOT tighter than both")
    func precedence() throws {
        let plain = try QueryPredicate("a == 1 OR b == 2 AND c == 3")
        #expect(plain == (try QueryPredicate("a == 1 OR (b == 2 AND c == 3)")))
        #expect(plain != (try QueryPredicate("(a == 1 OR b == 2) AND c == 3")))
        #expect(plain.description == "a == 1 OR b == 2 AND c == 3")
        #expect((try QueryPredicate("(a == 1 OR b == 2) AND c == 3")).description == "(a == 1 OR b == 2) AND c == 3")
        let negated = try QueryPredicate("NOT a == 1 AND b == 2")
        #expect(negated == (try QueryPredicate("(NOT a == 1) AND b == 2")))
        #expect(negated != (try QueryPredicate("NOT (a == 1 AND b == 2)")))
        #expect((try QueryPredicate("NOT (a == 1 AND b == 2)")).description == "NOT (a == 1 AND b == 2)")
        #expect((try QueryPredicate("!(a == 1 || b == 2) && c == 3")).description == "NOT (a == 1 OR b == 2) AND c == 3")
        #expect((try QueryPredicate("((a == 1) AND (b == 2)) AND c == 3")).description == "a == 1 AND b == 2 AND c == 3")
    }

    @Test("every spelling of every operator", arguments: [
        ("r == 1", "r == 1"), ("r = 1", "r == 1"), ("r != 1", "r != 1"), ("r <> 1", "r != 1"),
        ("r < 1", "r < 1"), ("r <= 1", "r <= 1"), ("r =< 1", "r <= 1"), ("r > 1", "r > 1"),
        ("r >= 1", "r >= 1"), ("r => 1", "r >= 1"), ("r>1", "r > 1"),
        ("t BEGINSWITH 'a'", "t BEGINSWITH 'a'"), ("t beginswith[c] 'a'", "t BEGINSWITH[c] 'a'"),
        ("t EndsWith 'a'", "t ENDSWITH 'a'"), ("t CONTAINS[C] 'a'", "t CONTAINS[c] 'a'"),
        ("t like 'a*?'", "t LIKE 'a*?'"), ("t ==[c] 'a'", "t ==[c] 'a'"),
        ("t ==[D] 'a'", "t ==[d] 'a'"), ("t CONTAINS[dc] 'a'", "t CONTAINS[cd] 'a'"), ("t LIKE[Cd] 'a'", "t LIKE[cd] 'a'"),
        ("r IN {1, 2,3}", "r IN {1, 2, 3}"), ("r in {}", "r IN {}"), ("r IN[c] {'a'}", "r IN[c] {'a'}"),
        ("r BETWEEN {1, 5}", "r BETWEEN {1, 5}"), ("r between{ -1 , 2.5 }", "r BETWEEN {-1, 2.5}"),
        ("TRUEPREDICATE", "TRUEPREDICATE"), ("falsepredicate", "FALSEPREDICATE"),
        ("a == 1 and b == 2 or not c == 3", "a == 1 AND b == 2 OR NOT c == 3"),
        ("a == 1 && b == 2 || !c == 3", "a == 1 AND b == 2 OR NOT c == 3"),
        ("#and == 1 AND #Like == 2", "#and == 1 AND #Like == 2"),
    ])
    func operatorSpellings(format: String, canonical: String) throws {
        let predicate = try QueryPredicate(format)
        #expect(predicate.description == canonical)
        #expect(try QueryPredicate(canonical) == predicate)
    }

    @Test("literals of every kind", arguments: [
        ("'it\\'s'", Value.string("it's")), ("\"say \\\"hi\\\"\"", .string("say \"hi\"")),
        ("'a\\\\b\\n\\t'", .string("a\\b\n\t")), ("'日本 é'", .string("日本 é")), ("''", .string("")),
        ("42", .integer(42)), ("-7", .integer(-7)), ("9223372036854775807", .integer(Int64.max)),
        ("-9223372036854775808", .integer(Int64.min)), ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        ("2.5", .double(2.5)), ("-0.5", .double(-0.5)), (".5", .double(0.5)), ("1e3", .double(1000)),
        ("2.5E-1", .double(0.25)), ("1e999", .double(.infinity)), ("3.0", .double(3)),
        ("YES", .bool(true)), ("no", .bool(false)), ("TRUE", .bool(true)), ("False", .bool(false)),
        ("nil", .null), ("NULL", .null),
    ])
    func literals(text: String, expected: Value) throws {
        let predicate = try QueryPredicate("x == \(text)")
        #expect(predicate == (try QueryPredicate("x == %@", expected)))
        #expect(try QueryPredicate(predicate.description) == predicate, "round trip of \(predicate)")
    }

    @Test("%@ takes values and %K attribute names, in order")
    func placeholders() throws {
        let predicate = try QueryPredicate("%K BEGINSWITH[c] %@ AND rank IN {%@, %@}", "title", "it's", 1, nil)
        #expect(predicate.description == "title BEGINSWITH[c] 'it\\'s' AND rank IN {1, nil}")
        #expect(try QueryPredicate(format: "score > %@", arguments: [.double(.nan)]) == (try QueryPredicate("score > nil")))
        #expect(QueryPredicate.all == (try QueryPredicate("TRUEPREDICATE")))
    }

    @Test("malformed predicates report the offset and the reason", arguments: [
        ("rank > ", 7, "expected a value after '>'"),
        ("", 0, "expected a predicate, found an empty text"),
        ("rank > 1 AND", 12, "expected a predicate after 'AND'"),
        ("(rank > 1", 9, "expected ')' to close the '(' at offset 0, found the end"),
        ("title == 'abc", 9, "unterminated string: no closing '"),
        ("title BEGINSWITH[n] 'a'", 16, "unsupported modifier '[n]': only [c] (case-insensitive), [d] (diacritic-insensitive) and [cd] are supported"),
        ("rank >> 1", 6, "expected a value after '>', found '>'"),
        ("rank IN 1", 8, "expected '{' after IN, as in IN {1, 2}, found the number 1"),
        ("rank BETWEEN {1}", 15, "BETWEEN needs exactly two values, as in BETWEEN {1, 5}; found 1"),
        ("rank IN {1 2}", 11, "expected ',' or '}' in the list after IN, found the number 2"),
        ("rank > 1 rank < 2", 9, "expected AND, OR or the end of the predicate, found 'rank'"),
        ("rank > %d", 7, "unsupported format specifier '%d': use %@ for a value and %K for an attribute name"),
        ("title MATCHES 'a'", 6, "'MATCHES' is not supported in Roster's predicates: SQLite and Swift share no regular expression engine, so they could not give the same answer; use LIKE with * and ?"),
        ("rank > score", 7, "expected a value after '>', found the attribute 'score': a comparison's right side is a value, not an attribute"),
        ("'abc' == title", 0, "expected an attribute name, found the string 'abc': the left side of a comparison is an attribute"),
        ("rank > 1 & rank < 2", 9, "expected '&&', found a single '&'"),
        ("title == 'a\\q'", 11, "unknown escape '\\q' in a string: use \\\\, \\', \\\", \\n, \\t or \\r"),
        ("rank > 1.2.3", 7, "malformed number '1.2.3'"),
        ("rank ~ 1", 5, "unexpected character '~'"),
        ("AND rank > 1", 0, "expected an attribute name or '(', found 'AND'"),
        ("rank 1", 5, "expected an operator after 'rank', found the number 1"),
    ])
    func malformed(format: String, offset: Int, reason: String) {
        let error = #expect(throws: QueryPredicateError.self) { try QueryPredicate(format) }
        #expect(error?.offset == offset)
        #expect(error?.reason == reason)
        #expect(error?.format == format)
    }

    @Test("the error's description quotes the text, the offset and the reason")
    func errorDescription() {
        let error = #expect(throws: QueryPredicateError.self) { try QueryPredicate("rank > ") }
        #expect(error?.description == "predicate \"rank > \" at offset 7: expected a value after '>'")
    }

    @Test("too few or too many arguments is an error")
    func argumentCount() {
        let tooFew = #expect(throws: QueryPredicateError.self) { try QueryPredicate("rank > %@ AND rank < %@", 1) }
        #expect(tooFew?.offset == 21)
        #expect(tooFew?.reason == "no argument left for %@: only 1 argument given")
        let tooMany = #expect(throws: QueryPredicateError.self) { try QueryPredicate("rank > %@", 1, 2) }
        #expect(tooMany?.offset == 9)
        #expect(tooMany?.reason == "2 arguments given, but the predicate has 1 placeholder")
        let badKey = #expect(throws: QueryPredicateError.self) { try QueryPredicate("%K > 1", 3) }
        #expect(badKey?.reason == "%K needs an attribute name as a string argument")
    }

    @Test("equal predicates hash equally however they were written")
    func hashing() throws {
        let set: Set<QueryPredicate> = [try QueryPredicate("rank = 1"), try QueryPredicate("  rank   ==   1 "), try QueryPredicate("rank == %@", 1)]
        #expect(set.count == 1)
        #expect(try QueryPredicate("rank == 1") != (try QueryPredicate("rank == 1.0")))
    }
}
