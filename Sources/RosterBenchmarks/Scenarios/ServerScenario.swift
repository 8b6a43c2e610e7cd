import Foundation
import Roster
import Synchronization

/// `server`: Roster on a PostgreSQL server (`roster bench --scenario server --store URL`),
/// each size in a schema of its own, dropped when done.
///
/// - **Commit → batch across processes.** The table of N posts, a watching ``StoreQueue``
///   with a ``LiveResults`` over the usual query here, and `roster bench-writer` in another
///   process inserting one post per commit on its own connection. Latency = the change in
///   the consumer's hands here − the moment just before the writer sent its `COMMIT`
///   (`CLOCK_MONOTONIC`, which processes on one machine share). (Timed from the insert's
///   return, it read 0: the consumer often had the change before the writer's call
///   returned.)
/// - **Re-fetch and diff over the same server**, the baseline: a `ResultsController` with
///   ``ResultsEngineKind/refetchAndDiff`` on its own store; another store in this process
///   inserts a post, and the controller's poll re-runs the query and diffs. Latency = from
///   the insert's return to the controller's `didChange`.
/// - **Fan-out**: 20 stores in this process, each with a watching queue and a live query,
///   and the writer in another process: from its commit until all 20 have the change.
/// - **Concurrent writers**: 8 connections (a thread each) insert one post per commit for
///   ``BenchmarkConfiguration/concurrentWriteSeconds`` while 4 watching clients, each a
///   store of its own, count every insert they hear; reports commits a second, and a
///   mismatch for any insert a client heard twice or never, or a client whose results
///   differ from a fresh fetch. The same writers into a table of the same columns that no
///   one watches, just before, give the writers' cost of being watched (a ratio).
enum ServerScenario {
    static let table = TextTable(labels: 2, [
        ("N", 9), ("what", 34), ("commits", 7), ("median", 8), ("p95", 8), ("p99", 8), ("max", 9), ("ratio", 10),
    ])
    static let fanOutClients = 20
    static let writers = 8
    static let watchingClients = 4

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        guard let url = configuration.serverURL else {
            reporter.print("server: skipped (name a PostgreSQL server with --store postgresql://…)")
            return
        }
        guard let writer = configuration.writerExecutable else {
            reporter.print("server: skipped (no executable to run `bench-writer` in another process)")
            return
        }
        reporter.print("server: Roster on PostgreSQL at \(PostgresSchema.redacted(url)); each size in a schema of its own")
        reporter.print("  ms from just before the writer sends COMMIT (another process) to the change in the consumer's hands")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try latency(size: size, configuration: configuration, url: url, writer: writer, reporter: reporter)
        }
        let size = configuration.sizes.min() ?? 10_000
        try fanOut(size: size, commits: min(configuration.iterations, 100), url: url, writer: writer, reporter: reporter)
        try concurrentWriters(size: size, seconds: configuration.concurrentWriteSeconds, url: url, reporter: reporter)
    }

    /// A schema of N posts, indexed for the query: the server's twin of ``PostFixture``.
    final class ServerFixture {
        let serverURL: String
        let schema: String
        let url: String
        let store: Store

        init(size: Int, serverURL: String) throws {
            self.serverURL = serverURL
            (schema, url) = try PostgresSchema.create(at: serverURL)
            store = try Store(postgresURL: url)
            store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: 10_000)
            try store.define(Entity("Post", key: "id", attributes: [
                Attribute("id", .string), Attribute("day", .string), Attribute("rank", .integer),
                Attribute("score", .double), Attribute("title", .string), Attribute("pinned", .bool),
            ]))
            // The same rows as PostFixture's, in PostgreSQL's SQL.
            try store.execute("""
                INSERT INTO "Post"(id, day, rank, score, title, pinned)
                SELECT 'p' || lpad(i::text, 7, '0'), '2026-10-' || lpad((1 + i % 30)::text, 2, '0'),
                       (i::bigint * 7919) % \(PostFixture.rankRange), ((i * 37) % 10000) / 100.0, 'Post ' || i, i % 10 = 0
                FROM generate_series(1, \(size)) AS i
                """)
            try store.createIndex(serving: PostFixture.request)
            try store.execute(#"ANALYZE "Post""#)
        }

        deinit { try? PostgresSchema.drop(schema, at: serverURL) }
    }

    private static func latency(size: Int, configuration: BenchmarkConfiguration, url: String, writer: String, reporter: BenchmarkReporter) throws {
        reporter.progress("server N=\(size): filling the table")
        let fixture = try ServerFixture(size: size, serverURL: url)
        let queue = try StoreQueue(postgresURL: fixture.url)
        let live = try LiveResults(queue: queue, request: PostFixture.request)
        defer { live.close() }
        queue.startWatching()
        defer { queue.stopWatching() }
        reporter.progress("server N=\(size): \(configuration.iterations) commits in another process")
        let watched = try CrossProcessScenario.measure(
            .watching, commits: configuration.iterations, lives: [live], writer: writer, path: fixture.url,
            seed: UInt64(size), size: size, reporter: reporter, scenario: .server)

        let baselineCommits = min(configuration.iterations, configuration.baselineIterations ?? (size >= 1_000_000 ? 3 : 10))
        reporter.progress("server N=\(size): \(baselineCommits) commits, re-fetch and diff")
        let baseline = try refetchAndDiff(fixture: fixture, commits: baselineCommits, size: size, reporter: reporter)
        let ratio = baseline.median / watched.median
        for (label, durations, metric) in [("Roster, watching (LISTEN/NOTIFY)", watched, "watching"), ("re-fetch and diff (same server)", baseline, "refetch")] {
            reporter.print(table.line([
                String(size), label, String(durations.samples.count), Format.milliseconds(durations.median),
                Format.milliseconds(durations.p95), Format.milliseconds(durations.percentile(0.99)), Format.milliseconds(durations.max),
                metric == "refetch" ? Format.ratio(ratio) : "",
            ]))
            reporter.record(.server, size: size, "\(metric).commit_to_change", durations)
        }
        reporter.record(.server, size: size, "ratio.refetch_over_watching", ratio, unit: "x")
    }

    /// Commits in this process, each heard by a re-fetch-and-diff controller on its own
    /// store; checks that each reports the one insert.
    private static func refetchAndDiff(fixture: ServerFixture, commits: Int, size: Int, reporter: BenchmarkReporter) throws -> Durations {
        let store = try Store(postgresURL: fixture.url)
        let controller = try ResultsController(store: store, request: PostFixture.request, engine: .refetchAndDiff)
        let heard = Heard()
        controller.delegate = heard
        try controller.performFetch()
        let writer = try Store(postgresURL: fixture.url)
        var durations = Durations()
        for index in 0..<commits {
            let key = "r\(index)"
            try writer.insert("Post", [
                "id": .string(key), "day": "2026-10-15", "rank": .integer(-1 - Int64(index)), "score": .double(0),
                "title": .string("Re-fetched \(index)"), "pinned": .bool(false),
            ])
            let committed = MonotonicClock.now()
            try store.pollExternalChanges()
            durations.append(MonotonicClock.elapsed(from: committed, to: heard.lastChange))
            if heard.inserted != [.string(key)] {
                reporter.mismatch(.server, size: size, "re-fetch and diff: commit #\(index) reported inserts \(heard.inserted), expected \(key)")
            }
        }
        return durations
    }

    /// Records when a controller last finished a change, and what it inserted.
    private final class Heard: ResultsControllerDelegate {
        var lastChange: UInt64 = 0
        var inserted: [Value] = []

        func controllerWillChangeContent(_ controller: ResultsController) { inserted = [] }

        func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
            if type == .insert { inserted.append(object.key) }
        }

        func controllerDidChangeContent(_ controller: ResultsController) { lastChange = MonotonicClock.now() }
    }

    private static func fanOut(size: Int, commits: Int, url: String, writer: String, reporter: BenchmarkReporter) throws {
        reporter.progress("server fan-out: \(fanOutClients) clients, N=\(size)")
        let fixture = try ServerFixture(size: size, serverURL: url)
        var queues: [StoreQueue] = []
        var lives: [LiveResults] = []
        for _ in 0..<fanOutClients {
            let queue = try StoreQueue(postgresURL: fixture.url)
            lives.append(try LiveResults(queue: queue, request: PostFixture.request))
            queue.startWatching()
            queues.append(queue)
        }
        defer {
            lives.forEach { $0.close() }
            queues.forEach { $0.stopWatching() }
        }
        let durations = try CrossProcessScenario.measure(
            .watching, commits: commits, lives: lives, writer: writer, path: fixture.url,
            seed: UInt64(size) &+ 7, size: size, reporter: reporter, scenario: .server)
        reporter.print(table.line([
            String(size), "fan-out: all \(fanOutClients) clients have it", String(durations.samples.count), Format.milliseconds(durations.median),
            Format.milliseconds(durations.p95), Format.milliseconds(durations.percentile(0.99)), Format.milliseconds(durations.max), "",
        ]))
        reporter.record(.server, size: size, "fanout\(fanOutClients).commit_to_all", durations)
    }

    private static func concurrentWriters(size: Int, seconds: Double, url: String, reporter: BenchmarkReporter) throws {
        reporter.progress("server: \(writers) writers for \(seconds) s, \(watchingClients) clients, N=\(size)")
        let fixture = try ServerFixture(size: size, serverURL: url)

        // The clients, each a store of its own with a watching queue: every insert each
        // hears, counted, on a thread of its own.
        final class Client: Sendable {
            let queue: StoreQueue
            let live: LiveResults
            let heard = Mutex<[Value: Int]>([:])
            let listening = Atomic<Bool>(true)
            let finished = DispatchSemaphore(value: 0)

            init(url: String) throws {
                queue = try StoreQueue(postgresURL: url)
                live = try LiveResults(queue: queue, request: PostFixture.request)
                queue.startWatching()
                Thread { [self] in
                    while listening.load(ordering: .acquiring) || live.hasPendingChanges {
                        if let change = try? live.takeChange() {
                            heard.withLock { counts in
                                for object in change.group.objectChanges where object.type == .insert { counts[object.item, default: 0] += 1 }
                            }
                        } else {
                            Thread.sleep(forTimeInterval: 0.001)
                        }
                    }
                    finished.signal()
                }.start()
            }

            func stop() {
                listening.store(false, ordering: .releasing)
                finished.wait()
                queue.stopWatching()
                live.close()
            }
        }
        let clients = try (0..<watchingClients).map { _ in try Client(url: fixture.url) }

        // The writers' cost: the same writers into a table of the same columns that no one
        // watches (no triggers, no log) first, then into the watched one.
        try fixture.store.define(Entity("Plain", key: "id", attributes: [
            Attribute("id", .string), Attribute("day", .string), Attribute("rank", .integer),
            Attribute("score", .double), Attribute("title", .string), Attribute("pinned", .bool),
        ]))
        let unwatched = writeConcurrently(into: "Plain", seconds: seconds, url: fixture.url)
        let (inserted, elapsed, failures) = writeConcurrently(into: "Post", seconds: seconds, url: fixture.url)
        // Wait for every client to hear the last of them (30 s at most).
        let waitEnd = MonotonicClock.now() + 30_000_000_000
        while clients.contains(where: { $0.heard.withLock { $0.count } < inserted.count }) && MonotonicClock.now() < waitEnd {
            Thread.sleep(forTimeInterval: 0.01)
        }
        clients.forEach { $0.stop() }

        let fresh = try ResultsController(store: fixture.store, request: PostFixture.request)
        try fresh.performFetch()
        let freshKeys = try fresh.fetchedObjects.map(\.key)
        var twice = 0, missed = 0, differing = 0
        for (index, client) in clients.enumerated() {
            let counts = client.heard.withLock { $0 }
            let clientTwice = counts.values.filter { $0 > 1 }.count
            let clientMissed = inserted.filter { counts[$0] == nil }.count
            twice += clientTwice
            missed += clientMissed
            if clientTwice > 0 { reporter.mismatch(.server, size: size, "concurrent writers: client \(index) heard \(clientTwice) inserts twice") }
            if clientMissed > 0 { reporter.mismatch(.server, size: size, "concurrent writers: client \(index) never heard \(clientMissed) of \(inserted.count) inserts") }
            if client.live.fetchedObjects.map(\.key) != freshKeys {
                differing += 1
                reporter.mismatch(.server, size: size, "concurrent writers: client \(index)'s results differ from a fresh fetch")
            }
        }
        for failure in failures + unwatched.failures { reporter.mismatch(.server, size: size, "concurrent writers: \(failure)") }
        let rate = Double(inserted.count) / elapsed
        let unwatchedRate = Double(unwatched.keys.count) / unwatched.elapsed
        reporter.print("  the writers' cost: \(Format.fixed(unwatchedRate, decimals: 0)) commits/s into the same table unwatched, "
            + "\(Format.fixed(rate, decimals: 0)) watched: \(Format.ratio(unwatchedRate / rate)) (the log's triggers and the commit order)")
        reporter.record(.server, size: size, "writers\(writers).unwatched_commits_per_second", unwatchedRate, unit: "1/s")
        reporter.record(.server, size: size, "writers\(writers).ratio.unwatched_over_watched", unwatchedRate / rate, unit: "x")
        reporter.print("  \(writers) writers for \(Format.fixed(elapsed, decimals: 1)) s: \(inserted.count) commits, \(Format.fixed(rate, decimals: 0)) commits/s; "
            + "\(clients.count) clients heard them: \(twice) twice, \(missed) missed; \(clients.count - differing) of \(clients.count) clients' results equal a fresh fetch")
        reporter.record(.server, size: size, "writers\(writers).commits_per_second", rate, unit: "1/s")
        reporter.record(.server, size: size, "writers\(writers).missed", Double(missed), unit: "inserts")
        reporter.record(.server, size: size, "writers\(writers).twice", Double(twice), unit: "inserts")
    }

    /// ``writers`` connections, a thread each so that all commit at once (not
    /// concurrentPerform, which runs as many at a time as there are cores), inserting one
    /// post per commit into `entity` for `seconds`: the keys committed, the seconds taken,
    /// and what failed.
    private static func writeConcurrently(into entity: String, seconds: Double, url: String) -> (keys: [Value], elapsed: Double, failures: [String]) {
        let committed = Mutex<[Value]>([])
        let failures = Mutex<[String]>([])
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        let start = MonotonicClock.now()
        let done = DispatchGroup()
        for writer in 0..<writers {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let store = try Store(postgresURL: url)
                    var keys: [Value] = []
                    var number = 0
                    while MonotonicClock.now() < deadline {
                        let key = Value.string("c\(writer)-\(number)")
                        try store.insert(entity, [
                            "id": key, "day": .string(PostFixture.days[(writer * 7 + number) % 30]), "rank": .integer(Int64(number % 1_000)),
                            "score": .double(Double(writer)), "title": .string("Writer \(writer)"), "pinned": .bool(false),
                        ])
                        keys.append(key)
                        number += 1
                    }
                    committed.withLock { $0 += keys }
                } catch {
                    failures.withLock { $0.append("writer \(writer) into \(entity): \(error)") }
                }
            }.start()
        }
        done.wait()
        let elapsed = Double(MonotonicClock.elapsed(from: start, to: MonotonicClock.now())) / 1e9
        return (committed.withLock { $0 }, elapsed, failures.withLock { $0 })
    }
}
