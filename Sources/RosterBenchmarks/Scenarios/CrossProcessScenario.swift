import Foundation
import Roster
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `cross-process`: a one-row commit in another process until the batch is ready here.
///
/// The bench fills the table, opens a ``StoreQueue`` on the file with a ``LiveResults``
/// over the usual live query, and starts `roster bench-writer` (``CrossProcessWriter``),
/// which inserts one post per commit and prints when each commit was done. A consumer task
/// here awaits `nextChange()` and stamps the moment each change — its batch built — is in
/// its hands; latency = that stamp − the writer's commit stamp, both `CLOCK_MONOTONIC`,
/// which processes on one machine share. The consumer acknowledges each change before the
/// writer commits again, so every change covers exactly one commit.
///
/// Two ways of waking the queue, one after the other on the same table:
/// - **watching**: `startWatching()` — file events, with the 1 s safety poll; the writer
///   pauses 0–5 ms before each commit;
/// - **polling**, the baseline it replaces: `startPolling(every: 100 ms)`; the writer
///   pauses 0–100 ms, so commits land at random moments of the timer. It runs the first
///   `baselineIterations` commits (default: at most 50), at about 100 ms each.
enum CrossProcessScenario {
    static let table = TextTable(labels: 2, [
        ("N", 9), ("wakes by", 24), ("commits", 7), ("median", 8), ("p95", 8), ("p99", 8), ("max", 8), ("poll/watch", 10),
    ])
    static let pollInterval: Duration = .milliseconds(100)

    enum Mode {
        case watching
        case polling

        var label: String {
            switch self {
            case .watching: "file events (1 s safety)"
            case .polling: "polling every 100 ms"
            }
        }

        var metric: String {
            switch self {
            case .watching: "watching"
            case .polling: "polling"
            }
        }

        var keyPrefix: String {
            switch self {
            case .watching: "w"
            case .polling: "p"
            }
        }

        var maximumPause: Duration {
            switch self {
            case .watching: .milliseconds(5)
            case .polling: CrossProcessScenario.pollInterval
            }
        }
    }

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        guard let writer = configuration.writerExecutable else {
            reporter.print("cross-process: skipped (no executable to run `bench-writer` in another process)")
            return
        }
        let polled = min(configuration.iterations, configuration.baselineIterations ?? 50)
        reporter.print("cross-process: one-row commits in another process (roster bench-writer) → LiveResults.nextChange()")
        reporter.print("  returned the change with its batch here; \(configuration.iterations) commits watching, \(polled) polling;")
        reporter.print("  ms from COMMIT done in the writer to the change in the consumer's hands (CLOCK_MONOTONIC in both)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, polled: polled, writer: writer, reporter: reporter)
        }
    }

    private static func run(size: Int, iterations: Int, polled: Int, writer: String, reporter: BenchmarkReporter) throws {
        reporter.progress("cross-process N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let queue = try StoreQueue(path: fixture.store.path)
        let live = try LiveResults(queue: queue, request: PostFixture.request)
        defer { live.close() }

        reporter.progress("cross-process N=\(size): \(iterations) commits, watching")
        queue.startWatching()
        let mode = queue.watchMode
        let watched = try measure(.watching, commits: iterations, live: live, writer: writer, path: fixture.store.path, seed: UInt64(size), size: size, reporter: reporter)
        queue.stopWatching()

        reporter.progress("cross-process N=\(size): \(polled) commits, polling every 100 ms")
        queue.startPolling(every: pollInterval)
        let polling = try measure(.polling, commits: polled, live: live, writer: writer, path: fixture.store.path, seed: UInt64(size) &+ 1, size: size, reporter: reporter)
        queue.stopPolling()

        let ratio = polling.median / watched.median
        for (rowMode, durations) in [(Mode.watching, watched), (.polling, polling)] {
            var label = rowMode.label
            if rowMode == .watching, mode != .fileEvents { label = "polling (no file events)" }
            reporter.print(table.line([
                String(size), label, String(durations.samples.count), Format.milliseconds(durations.median),
                Format.milliseconds(durations.p95), Format.milliseconds(durations.percentile(0.99)),
                Format.milliseconds(durations.max), rowMode == .polling ? Format.ratio(ratio) : "",
            ]))
            reporter.record(.crossProcess, size: size, "\(rowMode.metric).commit_to_change", durations)
        }
        reporter.record(.crossProcess, size: size, "ratio.polling_over_watching", ratio, unit: "x")
        if mode != .fileEvents {
            reporter.print("  (file events were unavailable: the watching queue fell back to polling)")
        }
    }

    /// Runs the writer for `commits` commits on the store at `path` (a file, or a
    /// PostgreSQL URL) and returns each commit's latency; mismatches go to `scenario`.
    static func measure(
        _ mode: Mode, commits: Int, live: LiveResults, writer: String, path: String, seed: UInt64, size: Int, reporter: BenchmarkReporter,
        scenario: BenchmarkScenario = .crossProcess
    ) throws -> Durations {
        try measure(mode, commits: commits, lives: [live], writer: writer, path: path, seed: seed, size: size, reporter: reporter, scenario: scenario)
    }

    /// The same for several live results, each on a store of its own: a commit's latency
    /// is until the last of them has its change.
    static func measure(
        _ mode: Mode, commits: Int, lives: [LiveResults], writer: String, path: String, seed: UInt64, size: Int, reporter: BenchmarkReporter,
        scenario: BenchmarkScenario
    ) throws -> Durations {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: writer)
        process.arguments = [
            "bench-writer", "--store", path, "--commits", String(commits), "--key-prefix", mode.keyPrefix,
            "--max-pause-us", String(mode.maximumPause.components.seconds * 1_000_000 + mode.maximumPause.components.attoseconds / 1_000_000_000_000),
            "--seed", String(seed),
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        // An acknowledgement to a writer that died must be an error here, not a SIGPIPE.
        let previousHandler = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousHandler) }
        // A writer that fails ends the consumer's wait at once.
        process.terminationHandler = { writer in
            if writer.terminationStatus != 0 { lives.forEach { $0.close() } }
        }
        try process.run()

        let consumer = Consumer(lives: lives, commits: commits, keyPrefix: mode.keyPrefix, acknowledgements: input.fileHandleForWriting)
        consumer.start()
        // The writer's commit stamps, read on a thread of their own while the consumer runs.
        let stampReader = Consumer.Reader(output.fileHandleForReading)
        // Each commit arrives within the safety poll (1 s) at worst.
        let outcome = consumer.wait(timeout: .seconds(10 + commits))
        if outcome == nil { process.terminate() }
        try? input.fileHandleForWriting.close()  // the writer stops at the end of its input
        process.waitUntilExit()
        let stamps = stampReader.wait()
        guard let outcome else {
            throw BenchmarkError("cross-process: the changes did not arrive within \(10 + commits) s")
        }
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("cross-process: bench-writer exited with status \(process.terminationStatus)")
        }
        let ready = try outcome.get()

        var committed: [Int: UInt64] = [:]
        for line in String(decoding: stamps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let index = Int(fields[0]), let stamp = UInt64(fields[1]) else {
                throw BenchmarkError("cross-process: unreadable line from bench-writer: \(line)")
            }
            committed[index] = stamp
        }
        var durations = Durations()
        for (index, readyStamp) in ready.enumerated() {
            guard let stamp = committed[index] else {
                reporter.mismatch(scenario, size: size, "\(mode.metric) commit #\(index): the writer printed no stamp")
                continue
            }
            durations.append(MonotonicClock.elapsed(from: stamp, to: readyStamp))
        }
        if ready.count < commits {
            reporter.mismatch(scenario, size: size, "\(mode.metric): \(ready.count) of \(commits) commits arrived")
        }
        return durations
    }

    /// The consumer: a task that takes changes as an app would, stamps each, checks that
    /// it is the writer's next insert, and acknowledges it.
    private final class Consumer: Sendable {
        let lives: [LiveResults]
        let commits: Int
        let keyPrefix: String
        let acknowledgements: FileHandle
        private let result = Mutex<Result<[UInt64], any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(lives: [LiveResults], commits: Int, keyPrefix: String, acknowledgements: FileHandle) {
            self.lives = lives
            self.commits = commits
            self.keyPrefix = keyPrefix
            self.acknowledgements = acknowledgements
        }

        func start() {
            Task.detached {
                let outcome: Result<[UInt64], any Error>
                do {
                    outcome = .success(try await self.consume())
                } catch {
                    outcome = .failure(error)
                    try? self.acknowledgements.close()  // the writer stops waiting for one
                }
                self.result.withLock { $0 = outcome }
                self.done.signal()
            }
        }

        /// The consumer's outcome, or nil when it did not end within `timeout` (it is then
        /// stopped by closing the live results).
        func wait(timeout: Duration) -> Result<[UInt64], any Error>? {
            let (seconds, attoseconds) = timeout.components
            if done.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) == .timedOut {
                lives.forEach { $0.close() }
                return nil
            }
            return result.withLock { $0 }
        }

        /// Reads a pipe to its end on a thread of its own.
        final class Reader: Sendable {
            private let data = Mutex<Data>(Data())
            private let done = DispatchSemaphore(value: 0)

            init(_ handle: FileHandle) {
                Thread { [self] in
                    let read = handle.readDataToEndOfFile()
                    data.withLock { $0 = read }
                    done.signal()
                }.start()
            }

            /// Everything the pipe held, once it ended.
            func wait() -> Data {
                done.wait()
                return data.withLock { $0 }
            }
        }

        private func consume() async throws -> [UInt64] {
            var ready: [UInt64] = []
            for index in 0..<commits {
                let changes: [ResultsChange]
                if lives.count == 1 {
                    guard let change = try await lives[0].nextChange() else { return ready }
                    ready.append(MonotonicClock.now())
                    changes = [change]
                } else {
                    let (taken, last) = try await takeFromEach()
                    guard taken.count == lives.count else { return ready }
                    ready.append(last)
                    changes = taken
                }
                let expected = Value.string(CrossProcessWriter.key(prefix: keyPrefix, index))
                for change in changes {
                    let inserted = change.group.objectChanges.filter { $0.type == .insert }.map(\.item)
                    guard inserted == [expected] else {
                        throw BenchmarkError("cross-process: change #\(index) inserted \(inserted); expected \(expected) alone")
                    }
                }
                if index < commits - 1 { try acknowledgements.write(contentsOf: Data("ack\n".utf8)) }
            }
            return ready

            /// Each live results' next change, each awaited on a task of its own as each
            /// client would take its changes in its own isolation; the commit's stamp is when
            /// the last of them had it.
            func takeFromEach() async throws -> (changes: [ResultsChange], last: UInt64) {
                let taken = try await withThrowingTaskGroup(of: (ResultsChange?, UInt64).self) { group in
                    for live in lives {
                        group.addTask { (try await live.nextChange(), MonotonicClock.now()) }
                    }
                    var taken: [(ResultsChange?, UInt64)] = []
                    for try await result in group { taken.append(result) }
                    return taken
                }
                return (taken.compactMap(\.0), taken.map(\.1).max() ?? 0)
            }
        }
    }
}
