import Roster

/// `displayed`: a single-row commit that changes a column no live query displays, with
/// 100 live queries that name what they display (``FetchRequest/displayedAttributes``),
/// against the same commit with one such query and with the same 100 queries naming
/// nothing (each of which reports an update for the row when it holds it).
///
/// The queries filter on rank, day or title and display title, day and rank; the commits
/// change `score` (none of those) and then undo it. Per commit: from `COMMIT` done to the
/// store call returning. The work per displaying query is (100 queries − 1 query) / 99.
/// Any callback a displaying query hears is a mismatch.
enum DisplayedScenario {
    static let queryCount = 100
    static let displayed = ["title", "day", "rank"]

    static let table = TextTable(labels: 2, [
        ("N", 9), ("live queries", 22), ("commit→all batches", 32), ("per query µs", 13),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("displayed: \(max(2, configuration.iterations / 2 * 2)) single-row commits of a column no query displays (score);")
        reporter.print("  ms as median / p95 / p99 / max; commit→all batches = COMMIT done → the store call returned")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, reporter: reporter)
        }
    }

    /// The 100 requests, each displaying title, day and rank or (`displaying` false) all.
    static func requests(displaying: Bool) throws -> [FetchRequest] {
        let days = PostFixture.days
        return try (0..<queryCount).map { index in
            let predicate: QueryPredicate = switch index % 3 {
            case 0: try QueryPredicate("rank > %@", .integer(PostFixture.rankRange - 2_000 + Int64(index)))
            case 1: try QueryPredicate("day == %@", .string(days[index % days.count]))
            default: try QueryPredicate("title BEGINSWITH %@", .string("Post \(10 + index)"))
            }
            return FetchRequest(entity: "Post", predicate: predicate, sortKeys: [SortKey("day", ascending: false), SortKey("rank")],
                                sectionAttribute: index % 2 == 0 ? "day" : nil, displayedAttributes: displaying ? displayed : nil)
        }
    }

    private static func run(size: Int, iterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("displayed N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let commits = try plannedCommits(fixture: fixture, pairs: max(1, iterations / 2))
        let displaying = try requests(displaying: true)

        reporter.progress("displayed N=\(size): \(commits.count) commits with 1 displaying query")
        let one = [try fixture.liveQuery(displaying[0])]
        let single = measure(commits, queries: one, silent: true, size: size, reporter: reporter)
        withExtendedLifetime(one) {}

        reporter.progress("displayed N=\(size): \(commits.count) commits with \(queryCount) displaying queries")
        let many = try displaying.map { try fixture.liveQuery($0) }
        let hundred = measure(commits, queries: many, silent: true, size: size, reporter: reporter)
        withExtendedLifetime(many) {}

        reporter.progress("displayed N=\(size): \(commits.count) commits with \(queryCount) queries that display everything")
        let plain = try requests(displaying: false).map { try fixture.liveQuery($0) }
        let everything = measure(commits, queries: plain, silent: false, size: size, reporter: reporter)
        withExtendedLifetime(plain) {}

        let perQuery = (hundred.median - single.median) / Double(queryCount - 1) * 1_000
        reporter.print(table.line([String(size), "1 displaying", Format.summary(single), ""]))
        reporter.print(table.line([String(size), "\(queryCount) displaying", Format.summary(hundred), Format.fixed(perQuery, decimals: 2)]))
        reporter.print(table.line([String(size), "\(queryCount) displaying all", Format.summary(everything), ""]))
        reporter.record(.displayed, size: size, "one_displaying.commit_to_all_batches", single)
        reporter.record(.displayed, size: size, "hundred_displaying.commit_to_all_batches", hundred)
        reporter.record(.displayed, size: size, "hundred_displaying_all.commit_to_all_batches", everything)
        reporter.record(.displayed, size: size, "per_displaying_query", perQuery / 1_000, unit: "ms")
    }

    /// Times each commit; a displaying query (`silent`) that hears anything is a mismatch.
    private static func measure(_ commits: [() throws -> Void], queries: [(controller: ResultsController, probe: LiveQueryProbe)],
                                silent: Bool, size: Int, reporter: BenchmarkReporter) -> Durations {
        var call = Durations()
        for (index, commit) in commits.enumerated() {
            for query in queries { query.probe.reset() }
            guard let stamps = try? WriteStamps.measure(probe: nil, commit), let after = stamps.afterCommit else {
                reporter.mismatch(.displayed, size: size, "commit #\(index) did not commit")
                continue
            }
            call.append(after)
            if silent, let heard = queries.firstIndex(where: { $0.probe.willChange != nil }) {
                reporter.mismatch(.displayed, size: size, "commit #\(index): displaying query \(heard) heard a change of a column it does not display")
            }
        }
        return call
    }

    /// Pairs of a change of `score` and its undo, on random posts.
    private static func plannedCommits(fixture: PostFixture, pairs: Int) throws -> [() throws -> Void] {
        var random = SeededGenerator(seed: UInt64(fixture.size) &+ 57)
        let store = fixture.store
        var commits: [() throws -> Void] = []
        for _ in 0..<pairs {
            let name = PostFixture.key(Int.random(in: 1...fixture.size, using: &random))
            let original = try fixture.post(name)["score"] ?? .null
            commits.append { try store.update("Post", key: .string(name), ["score": .double(-1)]) }
            commits.append { try store.update("Post", key: .string(name), ["score": original]) }
        }
        return commits
    }
}
