import ArgumentParser
import Foundation
import Roster
import RosterBenchmarks

/// `roster bench`: measures live queries against re-fetch and diff, and performFetch
/// against raw sqlite3; prints a table and optionally writes JSON Lines.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Roster's live queries against re-fetch and diff.",
        discussion: """
            Run it from a release build: swift build -c release && .build/release/roster bench. \
            Scenarios: \(BenchmarkScenario.allCases.map(\.rawValue).joined(separator: ", ")). \
            Exit status: 0 when every change matched re-fetch and diff, 1 on a mismatch or an \
            error, 2 for bad flags.
            """
    )

    @Option(help: "Table sizes, comma-separated, each at least 1000 (default 10000,100000,1000000; --quick: 2000,20000). With --scenario entities: numbers of entities, each at least 1 (default 100,1000,3000; --quick: 100,300).")
    var sizes: String?

    @Option(help: "Single-row commits per kind (default 200; --quick: 30).")
    var iterations: Int?

    @Option(help: "How many of the commits per kind the baseline re-fetches and checks too (the first ones; default: all). The live query's results are then checked whole at the end. In cross-process: the polling baseline's commits (default 50).")
    var baselineIterations: Int?

    @Flag(help: "A short run for CI and tests: sizes 2000,20000 and 30 commits per kind.")
    var quick = false

    @Option(help: "Run only this scenario.")
    var scenario: String?

    @Option(help: "Also write one JSON object per measurement (scenario, N, metric, value, unit) to this file.")
    var json: String?

    @Option(help: "Make the benchmark's stores in this existing folder (each in a new folder of its own, removed when done) instead of the temporary folder: to measure on a particular disk. Or a PostgreSQL URL: the server scenario runs there, each size in a schema of its own.")
    var store: String?

    @Option(help: "In the server scenario: how long the concurrent writers write, in seconds (default 30).")
    var writeSeconds: Double?

    func validate() throws {
        _ = try benchmarkConfiguration()
    }

    func run() throws {
        let configuration = try benchmarkConfiguration()
        let reporter: BenchmarkReporter
        do {
            reporter = try BenchmarkReporter(jsonPath: json)
        } catch {
            FileHandle.standardError.write(Data("roster bench: \(error)\n".utf8))
            throw ExitCode(1)
        }
        defer { reporter.close() }
        do {
            try BenchmarkRunner(configuration: configuration, reporter: reporter).run()
        } catch {
            FileHandle.standardError.write(Data("roster bench: \(error)\n".utf8))
            throw ExitCode(1)
        }
        if reporter.mismatchCount > 0 { throw ExitCode(1) }
    }

    /// The configuration the flags describe: `--quick` or the standard one, then
    /// `--sizes`, `--iterations` and `--scenario` over it.
    private func benchmarkConfiguration() throws -> BenchmarkConfiguration {
        var configuration = quick ? BenchmarkConfiguration.quick : .standard
        if let sizes {
            let parsed = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            if scenario == BenchmarkScenario.entities.rawValue {
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 100_000 }) else {
                    throw ValidationError("--sizes takes numbers of entities from 1 to 100000 with --scenario entities, comma-separated, e.g. 100,1000,3000")
                }
                configuration.entityCounts = parsed.compactMap { $0 }
            } else {
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 1_000 }) else {
                    throw ValidationError("--sizes takes numbers of at least 1000, comma-separated, e.g. 10000,100000")
                }
                configuration.sizes = parsed.compactMap { $0 }
            }
        }
        if let iterations {
            guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
            configuration.iterations = iterations
        }
        if let baselineIterations {
            guard baselineIterations >= 1 else { throw ValidationError("--baseline-iterations must be at least 1") }
            configuration.baselineIterations = baselineIterations
        }
        if let store, PostgresSchema.isURL(store) {
            configuration.serverURL = store
        } else if let store {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--store must name an existing folder; '\(store)' is not one")
            }
            configuration.storeDirectory = store
        }
        if let writeSeconds {
            guard writeSeconds > 0, writeSeconds <= 3_600 else { throw ValidationError("--write-seconds takes seconds from 0 to 3600") }
            configuration.concurrentWriteSeconds = writeSeconds
        }
        configuration.writerExecutable = Self.executablePath
        if let scenario {
            guard let chosen = BenchmarkScenario(rawValue: scenario) else {
                throw ValidationError("unknown scenario '\(scenario)': choose one of \(BenchmarkScenario.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            configuration.scenarios = [chosen]
        }
        return configuration
    }

    /// This executable, which the `cross-process` scenario runs again as `bench-writer`.
    static var executablePath: String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return Bundle.main.executablePath
    }
}

/// `roster bench-writer`: the other process of `roster bench --scenario cross-process`
/// (``CrossProcessWriter``). Not for people: the bench starts it and talks to it over pipes.
struct BenchWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-writer",
        abstract: "The writing process of roster bench's cross-process scenario.",
        shouldDisplay: false
    )

    @Option(help: "The store the bench made.")
    var store: String

    @Option(help: "How many one-row commits to make.")
    var commits: Int

    @Option(help: "The inserted posts' keys start with this.")
    var keyPrefix = "w"

    @Option(help: "The longest random pause before each commit, in microseconds.")
    var maxPauseUs = 0

    @Option(help: "The seed of the random pauses.")
    var seed: UInt64 = 1

    func validate() throws {
        guard commits >= 1, maxPauseUs >= 0 else { throw ValidationError("--commits must be at least 1 and --max-pause-us at least 0") }
    }

    func run() throws {
        do {
            try CrossProcessWriter.run(
                storePath: store, commits: commits, keyPrefix: keyPrefix, maximumPause: .microseconds(maxPauseUs), seed: seed)
        } catch {
            FileHandle.standardError.write(Data("roster bench-writer: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
