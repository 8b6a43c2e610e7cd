import Roster

/// `live`: what a single-row commit costs a ``LiveResults`` consumer — `takeChange()`
/// building the change (group, batch, the snapshots before and after, the objects) — on a
/// ``StoreQueue`` over the scenario's table.
///
/// `LiveResults` keeps its results in the incremental engine (keys and sort values, a
/// bounded cache of rows) and its changes carry frozen snapshots, so this cost is the
/// engine's plus reading the changed rows; the `commit` scenario measures the incremental
/// `ResultsController`. The commits alternate a new rank (a move, most often)
/// and a new title (an update in place); each change must name the post written.
enum LiveScenario {
    static let table = TextTable([("N", 9), ("write", 32), ("takeChange()", 32)])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("live: LiveResults.takeChange() after each of \(configuration.iterations) single-row commits (ranks and titles);")
        reporter.print("  ms as median / p95 / p99 / max; write = the StoreQueue call")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, reporter: reporter)
        }
    }

    private static func run(size: Int, iterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("live N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let queue = try StoreQueue(path: fixture.store.path)
        let live = try LiveResults(queue: queue, request: PostFixture.request)
        var random = SeededGenerator(seed: UInt64(size) &+ 7)
        var write = Durations()
        var take = Durations()
        reporter.progress("live N=\(size): \(iterations) commits")
        for iteration in 0..<iterations {
            let key = PostFixture.key(Int.random(in: 1...size, using: &random))
            let values: [String: Value] = iteration % 2 == 0
                ? ["rank": .integer(Int64.random(in: 0..<PostFixture.rankRange, using: &random))]
                : ["title": .string("Edited \(iteration)")]
            let start = MonotonicClock.now()
            try queue.write { store in try store.update("Post", key: .string(key), values) }
            let written = MonotonicClock.now()
            let change = try live.takeChange()
            let taken = MonotonicClock.now()
            guard let change, change.group.objectChanges.contains(where: { $0.item == .string(key) }) else {
                reporter.mismatch(.live, size: size, "commit #\(iteration) to \(key): LiveResults did not report it")
                continue
            }
            write.append(MonotonicClock.elapsed(from: start, to: written))
            take.append(MonotonicClock.elapsed(from: written, to: taken))
        }
        withExtendedLifetime(live) {}
        reporter.print(table.line([String(size), Format.summary(write), Format.summary(take)]))
        reporter.record(.live, size: size, "write", write)
        reporter.record(.live, size: size, "live_results.take_change", take)
    }
}
