import Roster

/// `predicate`: the worst predicates within ``PredicateLimits`` on a 64 KB value, evaluated
/// in Swift (what a live query does for every row a commit touches) against SQLite's
/// `WHERE` on the same row (a fetch of a one-row table).
///
/// The value is 65,536 × "a": the subject on which backtracking `GLOB` matchers spend
/// n·k steps for a pattern `…aaab…`. Each case is the largest the limits allow.
enum PredicateScenario {
    static let runs = 5
    static let valueLength = 65_536

    static let table = TextTable([
        ("predicate", 46), ("text bytes", 11), ("Swift ms", 10), ("SQLite ms", 10), ("SQLite/Swift", 13),
    ])

    /// The worst cases: a name and the predicate's text.
    static var cases: [(name: String, format: String)] {
        let a = { (count: Int) in String(repeating: "a", count: count) }
        // Each string operator reads the value once; the pattern's length sets the work per
        // character (one 64-bit word per 64 positions).
        let perComparison = PredicateLimits.maxPatternTotal / PredicateLimits.maxStringComparisons
        return [
            ("LIKE, longest pattern, no match", "s LIKE '*\(a(PredicateLimits.maxPatternTotal - 3))b*'"),
            // [cd] folds the pattern (here to itself but its last letter) and scans the value's
            // scalars for anything to fold, then matches the unchanged value.
            ("CONTAINS[cd], longest pattern, no match", "s CONTAINS[cd] '\(a(PredicateLimits.maxPatternTotal - 3))B'"),
            ("\(PredicateLimits.maxStringComparisons) × CONTAINS, patterns filling the total",
             (0..<PredicateLimits.maxStringComparisons).map { _ in "s CONTAINS '\(a(perComparison - 3))b'" }.joined(separator: " OR ")),
            ("LIKE with \(PredicateLimits.maxPatternTotal / 2) '?' and '*'",
             "s LIKE '\(String(repeating: "?*", count: PredicateLimits.maxPatternTotal / 2 - 1))b'"),
            ("\(PredicateLimits.maxComparisons) comparisons", (0..<PredicateLimits.maxComparisons).map { "s != '\(a(100))\($0)'" }.joined(separator: " AND ")),
            ("IN with \(PredicateLimits.maxValues) values", "s IN {\((0..<PredicateLimits.maxValues).map { "'\(a(16))\($0)'" }.joined(separator: ", "))}"),
            ("\(PredicateLimits.maxNesting) NOTs", String(repeating: "NOT ", count: PredicateLimits.maxNesting) + "s BEGINSWITH 'b'"),
        ]
    }

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("predicate: the worst predicates within PredicateLimits on one 64 KB value (\(valueLength) × \"a\")")
        reporter.print("  Swift: BoundPredicate.evaluate on the row; SQLite: performFetch of a one-row table with the predicate; median of \(runs)")
        table.header.forEach(reporter.print)
        let entity = try Entity("T", key: "k", attributes: [Attribute("k", .integer), Attribute("s", .string)])
        let store = try Store.temporary()
        try store.define(entity)
        let value = String(repeating: "a", count: valueLength)
        try store.insert("T", ["k": 1, "s": .string(value)])
        let row: [Value] = [.integer(1), .string(value)]
        for (name, format) in cases {
            let predicate = try QueryPredicate(format: format, arguments: [])
            let bound = try BoundPredicate(predicate, entity: entity)
            var matched = false
            let swift = median((0..<runs).map { _ in
                time { matched = bound.evaluate(row) }
            })
            var fetched = 0
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "T", predicate: predicate))
            let sqlite = try median((0..<runs).map { _ in
                try time {
                    try controller.performFetch()
                    fetched = controller.numberOfObjects
                }
            })
            if (fetched == 1) != matched {
                reporter.mismatch(.predicate, size: valueLength, "\(name): Swift says \(matched), SQLite fetched \(fetched) rows")
            }
            reporter.print(table.line([
                name, String(format.utf8.count), Format.milliseconds(swift), Format.milliseconds(sqlite),
                Format.fixed(sqlite / swift, decimals: 1) + "x",
            ]))
        }
    }

    private static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = MonotonicClock.now()
        try body()
        return Double(MonotonicClock.elapsed(from: start, to: MonotonicClock.now())) / 1e6
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
