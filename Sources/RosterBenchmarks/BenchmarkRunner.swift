import Foundation
import Roster

/// Runs the benchmark scenarios and reports them: `roster bench` is a thin shell around it.
///
/// ```swift
/// let reporter = try BenchmarkReporter(jsonPath: nil)
/// try BenchmarkRunner(configuration: .quick, reporter: reporter).run()
/// ```
///
/// Everything runs in this process, on this thread — except the `cross-process` scenario,
/// which starts ``BenchmarkConfiguration/writerExecutable`` as its writing process and takes
/// changes on a task: each scenario fills a new store in a temporary WAL file (or in
/// ``BenchmarkConfiguration/storeDirectory``) for each size, measures Roster and its baseline
/// side by side, and prints its rows as soon as a size is done. Build in release mode for
/// meaningful numbers.
package struct BenchmarkRunner {
    /// What to run.
    package let configuration: BenchmarkConfiguration
    /// Where the results go.
    package let reporter: BenchmarkReporter

    /// Creates a runner.
    package init(configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) {
        self.configuration = configuration
        self.reporter = reporter
    }

    /// Runs every configured scenario at every configured size.
    ///
    /// A live query that reports something other than what the re-fetch-and-diff baseline
    /// finds is not an error that stops the run: it is reported loudly on standard error and
    /// counted in ``BenchmarkReporter/mismatchCount``.
    ///
    /// - Throws: ``BenchmarkError`` or `StoreError` when a store or a query cannot be set up.
    package func run() throws {
        try CommitClock.install()
        PostFixture.directory.withLock { $0 = configuration.storeDirectory }
        try printHeader()
        for scenario in configuration.scenarios {
            let start = MonotonicClock.now()
            switch scenario {
            case .fetch: try FetchScenario.run(configuration, reporter: reporter)
            case .memory: try MemoryScenario.run(configuration, reporter: reporter)
            case .commit: try CommitScenario.run(configuration, reporter: reporter)
            case .feed: try FeedScenario.run(configuration, reporter: reporter)
            case .queries: try QueriesScenario.run(configuration, reporter: reporter)
            case .displayed: try DisplayedScenario.run(configuration, reporter: reporter)
            case .bulk: try BulkScenario.run(configuration, reporter: reporter)
            case .crossover: try CrossoverScenario.run(configuration, reporter: reporter)
            case .window: try WindowScenario.run(configuration, reporter: reporter)
            case .live: try LiveScenario.run(configuration, reporter: reporter)
            case .observed: try ObservedScenario.run(configuration, reporter: reporter)
            case .crossProcess: try CrossProcessScenario.run(configuration, reporter: reporter)
            case .predicate: try PredicateScenario.run(configuration, reporter: reporter)
            case .writes: try WritesScenario.run(configuration, reporter: reporter)
            case .unread: try UnreadScenario.run(configuration, reporter: reporter)
            case .server: try ServerScenario.run(configuration, reporter: reporter)
            case .entities: try EntitiesScenario.run(configuration, reporter: reporter)
            }
            reporter.progress("\(scenario.rawValue) done in \(Format.fixed(Double(MonotonicClock.elapsed(from: start, to: MonotonicClock.now())) / 1e9, decimals: 1)) s")
        }
        reporter.print("")
        if reporter.mismatchCount == 0 {
            reporter.print("mismatches: 0 (every change a live query reported was the one re-fetch and diff found)")
        } else {
            reporter.print("MISMATCH: \(reporter.mismatchCount) changes differed from re-fetch and diff (details on standard error)")
        }
    }

    private func printHeader() throws {
        // A store made as every scenario makes it; its first connection is the one that writes.
        let (store, connections) = try CommitClock.capturingConnections { try Store.temporary() }
        guard let writer = connections.first else { throw BenchmarkError("the store opened no connection the benchmark could see") }
        let settings = try DurabilitySettings(connection: writer)
        // The bench's WAL hook replaces SQLite's automatic checkpoint (the pragma then reads 0)
        // and checkpoints at SQLite's default size itself.
        let checkpoint = settings.autocheckpointPages == 0
            ? "checkpoint at \(CommitClock.checkpointPages) pages (SQLite's default, run by the bench's WAL hook)"
            : "wal_autocheckpoint=\(settings.autocheckpointPages) pages"
        withExtendedLifetime(store) {}

        #if DEBUG
        let build = "DEBUG (numbers are meaningless: build with -c release)"
        #else
        let build = "release"
        #endif
        reporter.print("roster bench: Roster live queries against re-fetch and diff")
        reporter.print("build \(build); SQLite \(RawDatabase.libraryVersion); \(ProcessInfo.processInfo.activeProcessorCount) CPUs; "
            + "sizes \(configuration.sizes.map(String.init).joined(separator: ", ")); \(configuration.iterations) commits per kind"
            + (configuration.scenarios.contains(.entities) ? "; entities \(configuration.entityCounts.map(String.init).joined(separator: ", "))" : ""))
        reporter.print("durability (the store's writing connection, read with PRAGMA): journal_mode=\(settings.journalMode), "
            + "synchronous=\(settings.synchronous) (\(settings.synchronousName)), \(checkpoint)")
        reporter.print("  commits are stamped when done, checkpoint included, by a WAL hook that checkpoints as SQLite's own does")
        reporter.print("data: Post(id, day, rank, score, title, pinned), 30 days = 30 sections, index (day DESC, rank, id);")
        reporter.print("  live query: every post by day desc, rank, id, sectioned by day; baseline: re-run its SQL over every row")
        reporter.print("  on its own connection and SnapshotDiff by key with a row comparison, then BatchAdapter")
    }
}
