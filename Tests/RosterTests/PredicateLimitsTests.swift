import Testing
@testable import Roster

/// Predicates at and past ``PredicateLimits``: past a limit, a clear error naming it (never
/// a stack overflow, never an error from SQLite later); at the limit, a live query that
/// works in SQLite and in Swift alike.
@Suite("Predicate limits")
struct PredicateLimitsTests {
    /// Posts p0…p9 with ranks 0…9; a live query over the predicate; the keys it holds,
    /// after its fetch and after a write that the Swift evaluator decides.
    func keys(for format: String) throws -> (fetched: [String], afterWrite: [String]) {
        let store = try postStore()
        try store.write {
            for rank in 0..<10 { try store.insert("Post", ["id": .string("p\(rank)"), "rank": .integer(Int64(rank)), "title": "abc"]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(
            entity: "Post", predicate: try QueryPredicate(format: format, arguments: []), sortKeys: [SortKey("rank")]))
        try controller.performFetch()
        func names() throws -> [String] { try controller.fetchedObjects.map { if case let .string(key) = $0.key { key } else { "?" } } }
        let fetched = try names()
        // p0 moves to rank 5: the incremental engine evaluates the predicate in Swift.
        try store.update("Post", key: "p0", ["rank": 5])
        return (fetched, try names())
    }

    func reason(of format: String) -> String {
        do {
            _ = try QueryPredicate(format: format, arguments: [])
            return "no error"
        } catch {
            return (error as? QueryPredicateError)?.reason ?? "not a QueryPredicateError: \(error)"
        }
    }

    @Test func eightThousandNestedParenthesesOrNotsAreAClearErrorNotACrash() {
        let atom = "rank > 1"
        for format in [
            String(repeating: "(", count: 8_000) + atom + String(repeating: ")", count: 8_000),
            String(repeating: "NOT ", count: 8_000) + atom,
            String(repeating: "!", count: 8_000) + atom,
            String(repeating: "NOT (", count: 8_000) + atom + String(repeating: ")", count: 8_000),
        ] {
            #expect(reason(of: format).contains("more than 32 levels of parentheses and NOT"), "\(format.prefix(20))…")
        }
    }

    @Test func nestingAtTheLimitRunsInSQLiteAndSwift() throws {
        let depth = PredicateLimits.maxNesting
        // An even number of NOTs is the predicate itself; one fewer, its opposite. Each NOT
        // becomes `NOT (…)` in SQL.
        let even = String(repeating: "NOT ", count: depth) + "rank > 6"
        #expect(try keys(for: even) == (["p7", "p8", "p9"], ["p7", "p8", "p9"]))
        let odd = String(repeating: "NOT ", count: depth - 1) + "rank > 6"
        #expect(try keys(for: odd).afterWrite == ["p1", "p2", "p3", "p4", "p0", "p5", "p6"])
        // Alternating AND and OR at every level: each level becomes a parenthesis in SQL.
        var alternating = "rank > 6"
        for level in 0..<depth { alternating = level % 2 == 0 ? "(\(alternating) OR rank == 0)" : "(\(alternating) AND rank != 3)" }
        #expect(try keys(for: alternating) == (["p0", "p7", "p8", "p9"], ["p7", "p8", "p9"]))
        #expect(reason(of: "(" + even + ")").contains("32 levels"))
    }

    @Test func fiveHundredComparisonsRunAndOneMoreIsAClearError() throws {
        let terms = (0..<PredicateLimits.maxComparisons).map { "rank != \(100 + $0)" }
        let format = terms.joined(separator: " AND ") + " AND rank < 2"
        #expect(reason(of: format).contains("more than 500 comparisons"))
        let atLimit = terms.dropLast().joined(separator: " AND ") + " AND rank < 2"
        #expect(try keys(for: atLimit) == (["p0", "p1"], ["p1"]))
    }

    @Test func tenThousandValuesRunAndOneMoreIsAClearError() throws {
        let values = (0..<PredicateLimits.maxValues).map { String($0 * 2) }
        #expect(try keys(for: "rank IN {\(values.joined(separator: ", "))}").fetched == ["p0", "p2", "p4", "p6", "p8"])
        #expect(reason(of: "rank IN {\(values.joined(separator: ", ")), 1}").contains("more than 10000 values"))
    }

    @Test func patternsPastTheirTotalOrTooManyStringOperatorsAreAClearErrorWhenBound() throws {
        let entity = try postEntity()
        func reason(_ format: String, _ arguments: [Value] = []) -> String {
            do {
                _ = try BoundPredicate(try QueryPredicate(format: format, arguments: arguments), entity: entity)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        // [c] counts the folded literal: 'ΐ' (2 bytes) folds to three scalars of 2 bytes, so
        // 1,366 of them make a pattern of 8,198 bytes with CONTAINS's two stars.
        #expect(reason("title CONTAINS[c] %@", [.string(String(repeating: "ΐ", count: 1_366))]).contains("8198 bytes together"))
        #expect(reason("title CONTAINS[c] %@", [.string(String(repeating: "ΐ", count: 1_365))]) == "no error")
        let many = (0...PredicateLimits.maxStringComparisons).map { "title CONTAINS 'x\($0)'" }.joined(separator: " OR ")
        #expect(reason(many).contains("more than 16 string operators"))
        #expect(reason(many.components(separatedBy: " OR ").dropLast().joined(separator: " OR ")) == "no error")

        // At the limit, SQLite and Swift agree on a 64 KB value.
        let store = try postStore()
        let long = String(repeating: "a", count: 64_000)
        try store.insert("Post", ["id": "p1", "title": .string(long)])
        let atLimit = try QueryPredicate(format: "title CONTAINS[c] %@", arguments: [.string(String(repeating: "A", count: 2_047))])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", predicate: atLimit))
        try controller.performFetch()
        #expect(try controller.fetchedObjects.count == 1)
        try store.insert("Post", ["id": "p2", "title": .string(long + "b")])
        #expect(try controller.fetchedObjects.count == 2)
    }

    @Test func aPredicateLongerThanTheLimitIsAClearError() {
        let format = "rank > 1" + String(repeating: " ", count: PredicateLimits.maxLength)
        #expect(reason(of: format).contains("the limit is 262144 bytes"))
    }
}
