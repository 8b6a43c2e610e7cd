import Roster

/// `queries`: what a single-row commit costs with 100 live queries on the table against
/// the same commit with one.
///
/// The one query is the scenario's usual live query (every post, by day). The 99 others
/// filter with different predicates — `rank > k`, `day == d`, `pinned == YES AND rank < k`,
/// `title BEGINSWITH p`, `score BETWEEN {a, b}` — each keeping a few percent of the rows,
/// half sectioned by day and half sorted by rank alone. The commits come in pairs, a change
/// and its undo (rank, day, title, pinned, or an insert and its delete), so that both
/// phases make exactly the same commits from the same table. Per commit: from `COMMIT`
/// done to the store call returning, every live query updated and its batch built.
enum QueriesScenario {
    static let queryCount = 100

    static let table = TextTable(labels: 2, [
        ("N", 9), ("live queries", 12), ("write", 32), ("commit→all batches", 32), ("vs 1 query", 10),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("queries: the same \(max(2, configuration.iterations / 2 * 2)) single-row commits with 1 live query, then with \(queryCount);")
        reporter.print("  ms as median / p95 / p99 / max; commit→all batches = COMMIT done → the store call returned")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, reporter: reporter)
        }
    }

    /// The 99 other queries' requests.
    static func otherRequests() throws -> [FetchRequest] {
        let days = PostFixture.days
        let range = PostFixture.rankRange
        return try (1..<queryCount).map { index in
            let predicate: QueryPredicate
            switch index % 5 {
            case 0: predicate = try QueryPredicate("rank > %@", .integer(range - 2_000 + Int64(index)))
            case 1: predicate = try QueryPredicate("day == %@", .string(days[index % days.count]))
            case 2: predicate = try QueryPredicate("pinned == YES AND rank < %@", .integer(10_000 + Int64(index) * 10))
            case 3: predicate = try QueryPredicate("title BEGINSWITH %@", .string("Post \(10 + index)"))
            default: predicate = try QueryPredicate("score BETWEEN {%@, %@}", .double(Double(index)), .double(Double(index) + 1))
            }
            return index % 2 == 0
                ? FetchRequest(entity: "Post", predicate: predicate, sortKeys: [SortKey("day", ascending: false), SortKey("rank")], sectionAttribute: "day")
                : FetchRequest(entity: "Post", predicate: predicate, sortKeys: [SortKey("rank")])
        }
    }

    private static func run(size: Int, iterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("queries N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let (main, probe) = try fixture.liveQuery()
        let commits = try plannedCommits(fixture: fixture, pairs: max(1, iterations / 2))

        reporter.progress("queries N=\(size): \(commits.count) commits with 1 live query")
        let single = try measure(commits, probe: probe, size: size, reporter: reporter)

        reporter.progress("queries N=\(size): fetching \(queryCount - 1) more live queries")
        let (others, setup) = try MonotonicClock.measure {
            try otherRequests().map { try fixture.liveQuery($0) }
        }
        let heldRows = others.reduce(main.numberOfObjects) { $0 + $1.controller.numberOfObjects }
        reporter.progress("queries N=\(size): \(commits.count) commits with \(queryCount) live queries (\(heldRows) rows held, fetched in \(Format.milliseconds(Double(setup) / 1_000_000)) ms)")
        let many = try measure(commits, probe: probe, size: size, reporter: reporter)
        withExtendedLifetime((main, others)) {}

        let ratio = many.call.median / single.call.median
        reporter.print(table.line([String(size), "1", Format.summary(single.write), Format.summary(single.call), ""]))
        reporter.print(table.line([String(size), String(queryCount), Format.summary(many.write), Format.summary(many.call), Format.ratio(ratio)]))
        reporter.record(.queries, size: size, "one_query.write", single.write)
        reporter.record(.queries, size: size, "one_query.commit_to_all_batches", single.call)
        reporter.record(.queries, size: size, "hundred_queries.write", many.write)
        reporter.record(.queries, size: size, "hundred_queries.commit_to_all_batches", many.call)
        reporter.record(.queries, size: size, "hundred_queries.rows_held", Double(heldRows), unit: "count")
        reporter.record(.queries, size: size, "ratio.hundred_over_one", ratio, unit: "x")
    }

    private static func measure(_ commits: [() throws -> Void], probe: LiveQueryProbe, size: Int, reporter: BenchmarkReporter) throws -> (write: Durations, call: Durations) {
        var write = Durations()
        var call = Durations()
        for (index, commit) in commits.enumerated() {
            let stamps = try WriteStamps.measure(probe: probe, commit)
            guard let written = stamps.write, let after = stamps.afterCommit, stamps.batchReady != nil else {
                reporter.mismatch(.queries, size: size, "commit #\(index): no commit, or the query over every post heard nothing")
                continue
            }
            write.append(written)
            call.append(after)
        }
        return (write, call)
    }

    /// Pairs of a change and its undo, planned from the table as it is before the first.
    private static func plannedCommits(fixture: PostFixture, pairs: Int) throws -> [() throws -> Void] {
        var random = SeededGenerator(seed: UInt64(fixture.size) &+ 31)
        let store = fixture.store
        var commits: [() throws -> Void] = []
        for pair in 0..<pairs {
            let key = PostFixture.key(Int.random(in: 1...fixture.size, using: &random))
            let post = try fixture.post(key)
            let attribute: String
            let changed: Value
            switch pair % 5 {
            case 0:
                guard case let .integer(rank)? = post["rank"] else { throw BenchmarkError("\(key) has no rank") }
                (attribute, changed) = ("rank", .integer((rank + PostFixture.rankRange / 2) % PostFixture.rankRange))
            case 1:
                (attribute, changed) = ("day", .string(post["day"] == .string(PostFixture.days[0]) ? PostFixture.days[1] : PostFixture.days[0]))
            case 2:
                (attribute, changed) = ("title", .string("Edited \(pair)"))
            case 3:
                (attribute, changed) = ("pinned", .bool(post["pinned"] != .bool(true)))
            default:
                let newKey = Value.string("q\(pair)")
                var values = post.dictionary
                values["id"] = newKey
                commits.append { try store.insert("Post", values) }
                commits.append { try store.delete("Post", key: newKey) }
                continue
            }
            let original = post[attribute] ?? .null
            commits.append { try store.update("Post", key: .string(key), [attribute: changed]) }
            commits.append { try store.update("Post", key: .string(key), [attribute: original]) }
        }
        return commits
    }
}
