import Roster

/// `predicate`: the worst predicates within ``PredicateLimits`` on a 64 KB value, evaluated
/// in Swift (what a live query does for every row a commit touches) against SQLite's
/// `WHERE` on the same row (a fetch of a one-row table).
///
/// The value is 65,536 × "a": the subject on which backtracking `GLOB` matchers spend
/// n·k steps for a pattern `…aaab…`. Each case is the largest the limits allow. Each side
/// runs ``runs`` times; the table and the JSON (`N` is the value's length) give median,
/// p95, p99 and max (with five runs p95, p99 and max are the slowest run).
enum PredicateScenario {
    static let runs = 5
    static let valueLength = 65_536

    static let table = TextTable([
        ("predicate", 46), ("text bytes", 11), ("Swift ms", 30), ("SQLite ms", 30), ("SQLite/Swift", 13),
    ])

    /// The worst cases: a name, the metric it is recorded as, and the predicate's text.
    static var cases: [(name: String, metric: String, format: String)] {
        let a = { (count: Int) in String(repeating: "a", count: count) }
        // Each string operator reads the value once; the pattern's length sets the work per
        // character (one 64-bit word per 64 positions).
        let perComparison = PredicateLimits.maxPatternTotal / PredicateLimits.maxStringComparisons
        return [
            ("LIKE, longest pattern, no match", "like_longest", "s LIKE '*\(a(PredicateLimits.maxPatternTotal - 3))b*'"),
            // [cd] folds the pattern (here to itself but its last letter) and scans the value's
            // scalars for anything to fold, then matches the unchanged value.
            ("CONTAINS[cd], longest pattern, no match", "contains_cd_longest", "s CONTAINS[cd] '\(a(PredicateLimits.maxPatternTotal - 3))B'"),
            ("\(PredicateLimits.maxStringComparisons) × CONTAINS, patterns filling the total", "contains_many",
             (0..<PredicateLimits.maxStringComparisons).map { _ in "s CONTAINS '\(a(perComparison - 3))b'" }.joined(separator: " OR ")),
            ("LIKE with \(PredicateLimits.maxPatternTotal / 2) '?' and '*'", "like_wildcards",
             "s LIKE '\(String(repeating: "?*", count: PredicateLimits.maxPatternTotal / 2 - 1))b'"),
            ("\(PredicateLimits.maxComparisons) comparisons", "comparisons", (0..<PredicateLimits.maxComparisons).map { "s != '\(a(100))\($0)'" }.joined(separator: " AND ")),
            ("IN with \(PredicateLimits.maxValues) values", "in_values", "s IN {\((0..<PredicateLimits.maxValues).map { "'\(a(16))\($0)'" }.joined(separator: ", "))}"),
            ("\(PredicateLimits.maxNesting) NOTs", "nots", String(repeating: "NOT ", count: PredicateLimits.maxNesting) + "s BEGINSWITH 'b'"),
        ]
    }

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("predicate: the worst predicates within PredicateLimits on one 64 KB value (\(valueLength) × \"a\")")
        reporter.print("  Swift: BoundPredicate.evaluate on the row; SQLite: performFetch of a one-row table with the predicate;")
        reporter.print("  ms as median / p95 / p99 / max of \(runs) runs (the ratio compares medians)")
        table.header.forEach(reporter.print)
        let entity = try Entity("T", key: "k", attributes: [Attribute("k", .integer), Attribute("s", .string)])
        let store = try Store.temporary()
        try store.define(entity)
        let value = String(repeating: "a", count: valueLength)
        try store.insert("T", ["k": 1, "s": .string(value)])
        let row: [Value] = [.integer(1), .string(value)]
        for (name, metric, format) in cases {
            let predicate = try QueryPredicate(format: format, arguments: [])
            let bound = try BoundPredicate(predicate, entity: entity)
            var matched = false
            var swift = Durations()
            for _ in 0..<runs {
                swift.append(MonotonicClock.measure { matched = bound.evaluate(row) }.nanoseconds)
            }
            var fetched = 0
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "T", predicate: predicate))
            var sqlite = Durations()
            for _ in 0..<runs {
                sqlite.append(try MonotonicClock.measure {
                    try controller.performFetch()
                    fetched = controller.numberOfObjects
                }.nanoseconds)
            }
            if (fetched == 1) != matched {
                reporter.mismatch(.predicate, size: valueLength, "\(name): Swift says \(matched), SQLite fetched \(fetched) rows")
            }
            let ratio = sqlite.median / swift.median
            reporter.print(table.line([
                name, String(format.utf8.count), Format.summary(swift), Format.summary(sqlite),
                Format.fixed(ratio, decimals: 1) + "x",
            ]))
            reporter.record(.predicate, size: valueLength, "\(metric).swift", swift)
            reporter.record(.predicate, size: valueLength, "\(metric).sqlite", sqlite)
            reporter.record(.predicate, size: valueLength, "\(metric).ratio.sqlite_over_swift", ratio, unit: "x")
        }
    }
}
