/// The benchmark scenarios, in the order they run.
package enum BenchmarkScenario: String, CaseIterable, Sendable {
    /// `performFetch()` time and memory against raw sqlite3 reading keys and sort columns.
    case fetch
    /// Bytes a row held by a `ResultsController` and a `LiveResults` against the floor.
    case memory
    /// Single-row commits of five kinds, live query against re-fetch and diff.
    case commit
    /// A feed of 500 posts re-synced in one transaction, then re-synced again unchanged.
    case feed
    /// The cost of a commit with 100 live queries on the table against one.
    case queries
    /// A commit of a column no live query displays, with 100 queries that name what they
    /// display: no update, and the work per query.
    case displayed
    /// One commit that changes a tenth of the rows, live query against re-fetch and diff.
    case bulk
    /// Commits that change a growing share of the rows, moved row by row against
    /// re-fetched whole: where the live query's bulk path should take over.
    case crossover
    /// What a single-row commit costs a `LiveResults` consumer.
    case live
    /// What `ObservedResults` adds to a `LiveResults` taking the same one-row commit.
    case observed
    /// A commit in another process until the batch is ready here: a watching
    /// `StoreQueue` (file events) against the 100 ms polling it replaces.
    case crossProcess = "cross-process"
    /// The worst predicates within the limits on a 64 KB value: Swift against SQLite.
    case predicate
    /// What change tracking adds to writes: inserts, updates and deletes of 1, 1k and 100k
    /// rows, through the store and through another connection, with and without a change
    /// log; then the floors under those ratios (a preupdate hook that only reads, triggers
    /// that never run).
    case writes
    /// A window of 100 rows in the middle of the results: one-row commits and moves of
    /// the window against re-fetching it, next to the same commits without a window.
    case window
    /// A feed reader's list with an unread count per feed: one entry marked read per
    /// commit, batch and counts against re-fetch, diff and `GROUP BY`.
    case unread
    /// Roster on a PostgreSQL server (`--store URL`): a commit in another process until
    /// the batch is ready here, against re-fetch and diff over the same server; 20 clients
    /// hearing one writer; concurrent writers, every change counted.
    case server
    /// N entities defined in one batch and each watched by a live query, in a new file,
    /// against raw sqlite3 making the same tables and triggers in one transaction. Its
    /// sizes are numbers of entities (``BenchmarkConfiguration/entityCounts``).
    case entities
}

/// What `roster bench` runs: table sizes, commits per kind, scenarios.
package struct BenchmarkConfiguration: Sendable, Hashable {
    /// The numbers of posts to fill the table with; each scenario runs once per size.
    package var sizes: [Int]
    /// How many single-row commits of each kind the `commit` and `queries` scenarios make.
    package var iterations: Int
    /// The scenarios to run, in order.
    package var scenarios: [BenchmarkScenario]
    /// How many of the `commit` scenario's commits per kind the baseline re-fetches and
    /// checks too (the first ones); nil for all. At a million rows the baseline takes
    /// seconds a commit, so a run can time a few hundred live-query commits against a
    /// sample of baseline ones; the live query's results are then checked whole at the end.
    /// In the `cross-process` scenario: how many commits the polling baseline makes, at
    /// about 100 ms each (nil: at most 50).
    package var baselineIterations: Int?
    /// The folder to make the stores in (each in a new folder of its own, removed when
    /// done); nil for the system's temporary folder.
    package var storeDirectory: String?
    /// The executable that runs `bench-writer`, the other process of the `cross-process`
    /// scenario (`roster` itself); nil skips that scenario.
    package var writerExecutable: String?
    /// The PostgreSQL server the `server` scenario runs on (`--store URL`); nil skips it.
    package var serverURL: String?
    /// How long the `server` scenario's concurrent writers write, in seconds.
    package var concurrentWriteSeconds: Double = 30
    /// The numbers of entities the `entities` scenario defines and watches; each run once.
    package var entityCounts: [Int] = [100, 1_000, 3_000]

    /// Creates a configuration.
    package init(sizes: [Int], iterations: Int, scenarios: [BenchmarkScenario] = BenchmarkScenario.allCases) {
        self.sizes = sizes
        self.iterations = iterations
        self.scenarios = scenarios
    }

    /// 10,000, 100,000 and 1,000,000 posts; 200 commits per kind; every scenario.
    package static let standard = BenchmarkConfiguration(sizes: [10_000, 100_000, 1_000_000], iterations: 200)

    /// 2,000 and 20,000 posts; 30 commits per kind; 100 and 300 entities: a quick run for
    /// CI and tests.
    package static let quick: BenchmarkConfiguration = {
        var quick = BenchmarkConfiguration(sizes: [2_000, 20_000], iterations: 30)
        quick.entityCounts = [100, 300]
        return quick
    }()

    /// Rounds of the `feed` and `bulk` scenarios: fewer when the run is short.
    var rounds: Int { iterations >= 100 ? 5 : 3 }
}
