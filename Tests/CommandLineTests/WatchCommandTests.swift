import Foundation
import Roster
import RosterJSON
import RosterScript
import RosterTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `roster watch` run as a process, with other processes (`roster sql`) committing to its
/// store; `--store` on run and sql; the cross-process bench scenario.
@Suite("roster watch and --store")
struct WatchCommandTests {
    /// A store made by `roster run --store … --keep`, in a folder removed by the test.
    struct TemporaryStore {
        let directory: URL
        let path: String

        init(script: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-watch-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("store.sqlite").path
            let made = try ProgramRun(program: "roster", arguments: ["run", "-", "--store", path, "--keep"], input: script)
            guard made.status == 0 else { throw ProgramFailure("roster run --store failed: \(made.error)") }
        }

        func remove() {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    let script = """
        {"op":"entity","name":"Post","key":"id","attributes":{"id":"string","day":"string","rank":"integer"}}
        {"op":"insert","entity":"Post","values":{"id":"p1","day":"2026-11-20","rank":1}}
        """
    let query = #"{"entity":"Post","sort":[["day","desc"]],"section":"day"}"#

    @Test func watchPrintsTheSnapshotThenAnotherProcesssCommitsAndExitsCleanlyOnSIGINT() throws {
        let store = try TemporaryStore(script: script)
        defer { store.remove() }
        // No safety poll within the test: what arrives, arrives through file events.
        let watch = try RunningProgram("roster", ["watch", "--store", store.path, "--query", query, "--safety-poll", "30"])
        defer { watch.kill() }
        let snapshot = #"{"line":0,"query":"watch","event":"snapshot","sections":[{"name":"2026-11-20","keys":["p1"]}]}"#
        #expect(watch.waitForOutput(lines: 1, timeout: .seconds(10)), "no snapshot: \(watch.error)")
        #expect(watch.outputLines == [snapshot])
        // Past the polls that follow any file event of the watch's own start (300 ms).
        Thread.sleep(forTimeInterval: 0.4)

        // Another process commits; the watch prints the group within a bounded time.
        let commit = try ProgramRun(program: "roster", arguments: ["sql", "--store", store.path, "INSERT INTO Post(id, day, rank) VALUES ('p2', '2026-11-21', 1)"])
        #expect(commit.status == 0, "\(commit.error)")
        #expect(watch.waitForOutput(lines: 7, timeout: .seconds(2)), "no group within 2 s: \(watch.outputLines)")
        #expect(watch.outputLines.dropFirst().map { try? JSONParser().parse($0)["event"]?.stringValue } == [
            "willChange", "section", "object", "didChange", "batch", "snapshot",
        ])
        #expect(watch.outputLines.last == #"{"line":0,"query":"watch","event":"snapshot","sections":[{"name":"2026-11-21","keys":["p2"]},{"name":"2026-11-20","keys":["p1"]}]}"#)

        // A commit that does not change the results prints nothing; the next one does.
        #expect(try ProgramRun(program: "roster", arguments: ["sql", store.path, "UPDATE Post SET rank = 1 WHERE id = 'p1'"]).status == 0)
        #expect(try ProgramRun(program: "roster", arguments: ["sql", "--database", store.path, "DELETE FROM Post WHERE id = 'p1'"]).status == 0)
        #expect(watch.waitForOutput(lines: 13, timeout: .seconds(2)), "\(watch.outputLines)")
        #expect(watch.outputLines.count == 13)
        #expect(watch.outputLines.last == #"{"line":0,"query":"watch","event":"snapshot","sections":[{"name":"2026-11-21","keys":["p2"]}]}"#)

        watch.interrupt()
        let status = watch.waitForExit(timeout: .seconds(5))
        #expect(status == 0, "\(watch.error)")
        #expect(watch.exitedNormally)
        #expect(!watch.error.contains("polling"), "file events were unavailable: \(watch.error)")
    }

    @Test func sigtermAlsoEndsTheWatchWithZeroAndPrettyWritesTheGroupsForAPerson() throws {
        let store = try TemporaryStore(script: script)
        defer { store.remove() }
        let watch = try RunningProgram("roster", ["watch", "--store", store.path, "--query", query, "--name", "feed", "--pretty", "--safety-poll", "30"])
        defer { watch.kill() }
        #expect(watch.waitForOutput(lines: 1, timeout: .seconds(10)))
        Thread.sleep(forTimeInterval: 0.4)
        #expect(try ProgramRun(program: "roster", arguments: ["sql", store.path, "UPDATE Post SET rank = 2"]).status == 0)
        #expect(watch.waitForOutput(lines: 6, timeout: .seconds(2)), "\(watch.outputLines)")
        // The snapshot, a blank line, then the group under its header, as `roster run --pretty`.
        #expect(Array(watch.outputLines.prefix(6)) == [
            "line 0 · feed · snapshot: '2026-11-20': 'p1'", "", "line 0 · feed",
            "  update 'p1' at [0,0]", "  batch: reloadItems [0,0]", "  now: '2026-11-20': 'p1'",
        ])
        watch.terminate()
        #expect(watch.waitForExit(timeout: .seconds(5)) == 0)
        #expect(watch.exitedNormally)
    }

    @Test func aQueryThatDoesNotParseOrFitExitsWithOne() throws {
        let store = try TemporaryStore(script: script)
        defer { store.remove() }
        let badJSON = try ProgramRun(program: "roster", arguments: ["watch", "--store", store.path, "--query", #"{"entity":"Post",}"#])
        #expect(badJSON.status == 1)
        #expect(badJSON.output.isEmpty)
        #expect(badJSON.error.contains("roster watch: the query is not valid JSON: invalid JSON at column 17"), "\(badJSON.error)")

        let notAnObject = try ProgramRun(program: "roster", arguments: ["watch", "--store", store.path, "--query", "[]"])
        #expect(notAnObject.status == 1)
        #expect(notAnObject.error.contains("must be a JSON object"), "\(notAnObject.error)")

        let unknownEntity = try ProgramRun(program: "roster", arguments: ["watch", "--store", store.path, "--query", #"{"entity":"Nope"}"#])
        #expect(unknownEntity.status == 1)
        #expect(unknownEntity.error.contains("'Nope'"), "\(unknownEntity.error)")

        let badPredicate = try ProgramRun(program: "roster", arguments: ["watch", "--store", store.path, "--query", #"{"entity":"Post","predicate":"rank >"}"#])
        #expect(badPredicate.status == 1)
        #expect(badPredicate.error.contains("expected a value after '>'"), "\(badPredicate.error)")
    }

    @Test func aRefusedWatchOnSomeoneElsesDatabaseChangesNothingInIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-foreign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("theirs.sqlite").path
        try ExternalConnection(path: path).execute("CREATE TABLE Item(id TEXT PRIMARY KEY, rank INTEGER); INSERT INTO Item VALUES ('a', 1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for entity in ["Item", "Nope"] {
            let result = try ProgramRun(program: "roster", arguments: ["watch", "--store", path, "--query", #"{"entity":"\#(entity)"}"#])
            #expect(result.status == 1)
            #expect(result.output.isEmpty)
            #expect(result.error.contains("is not a Roster store (it has no _roster_entities table), so it has no entity '\(entity)'; nothing was changed"), "\(result.error)")
        }
        // A Roster store without the entity: refused before the store is opened too.
        let store = try TemporaryStore(script: script)
        defer { store.remove() }
        let unknown = try ProgramRun(program: "roster", arguments: ["watch", "--store", store.path, "--query", #"{"entity":"Item"}"#])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("the store has no entity 'Item'; nothing was changed"), "\(unknown.error)")
        // The same bytes, no WAL file, no journal left: the file is as it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == ["theirs.sqlite"])
        #expect(try ExternalConnection(path: path).run("PRAGMA journal_mode") == [["delete"]])
    }

    @Test func aWatchedFileDeletedIsReportedOnceNotAtEveryWakeUp() throws {
        let store = try TemporaryStore(script: script)
        defer { store.remove() }
        let watch = try RunningProgram("roster", ["watch", "--store", store.path, "--query", query, "--safety-poll", "0.05"])
        defer { watch.kill() }
        #expect(watch.waitForOutput(lines: 1, timeout: .seconds(10)), "no snapshot: \(watch.error)")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
        #expect(watch.waitForOutput(lines: 2, timeout: .seconds(5)), "the deletion was not reported: \(watch.outputLines)")
        // Forty safety polls later: still the one error.
        Thread.sleep(forTimeInterval: 2)
        let errors = watch.outputLines.dropFirst()
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains("deleted or replaced") == true, "\(errors)")
        watch.interrupt()
        #expect(watch.waitForExit(timeout: .seconds(5)) == 0, "\(watch.error)")
    }

    @Test func aMissingStoreExitsWithOneAndBadFlagsWithTwo() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("roster-missing-\(UUID().uuidString).sqlite").path
        let result = try ProgramRun(program: "roster", arguments: ["watch", "--store", missing, "--query", query])
        #expect(result.status == 1)
        #expect(result.error.contains("no store at '\(missing)'"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: missing))

        #expect(try ProgramRun(program: "roster", arguments: ["watch", "--query", query]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["watch", "--store", missing]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["watch", "--store", missing, "--query", query, "--nope"]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["watch", "--store", missing, "--query", query, "--safety-poll", "0"]).status == 2)
    }

    @Test func storeAndDatabaseNameTheSameFileForRunAndSQL() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-alias-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let viaStore = directory.appendingPathComponent("a.sqlite").path
        let viaDatabase = directory.appendingPathComponent("b.sqlite").path
        #expect(try ProgramRun(program: "roster", arguments: ["run", "-", "--store", viaStore, "--keep"], input: script).status == 0)
        #expect(try ProgramRun(program: "roster", arguments: ["run", "-", "--database", viaDatabase, "--keep"], input: script).status == 0)
        #expect(FileManager.default.fileExists(atPath: viaStore))
        #expect(FileManager.default.fileExists(atPath: viaDatabase))
        // Either name refuses a store that exists, as run always starts from a new one.
        #expect(try ProgramRun(program: "roster", arguments: ["run", "-", "--store", viaDatabase], input: script).status == 1)

        for arguments in [["sql", "--store", viaStore], ["sql", "--database", viaStore], ["sql", viaStore]] {
            let result = try ProgramRun(program: "roster", arguments: arguments + ["UPDATE Post SET rank = rank + 1"])
            #expect(result.status == 0, "\(arguments): \(result.error)")
        }
        #expect(try ProgramRun(program: "roster", arguments: ["sql", "--store", viaStore]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["sql", "--store", viaStore, viaStore, "SELECT 1"]).status == 2)
        let missing = directory.appendingPathComponent("missing.sqlite").path
        #expect(try ProgramRun(program: "roster", arguments: ["sql", "--store", missing, "SELECT 1"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func crossProcessBenchMeasuresWatchingAgainstPolling() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-xbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("bench.jsonl").path
        let result = try ProgramRun(program: "roster", arguments: [
            "bench", "--scenario", "cross-process", "--sizes", "2000", "--iterations", "20", "--baseline-iterations", "4",
            "--store", directory.path, "--json", json,
        ])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("2000 ") && $0.contains("file events") && $0.contains(" 20 ") }, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("2000 ") && $0.contains("polling every 100 ms") && $0.contains(" 4 ") }, "\(result.output)")
        #expect(result.output.contains("mismatches: 0"))
        let records = try String(contentsOfFile: json, encoding: .utf8)
        #expect(records.contains(#""metric":"watching.commit_to_change.median""#))
        #expect(records.contains(#""metric":"polling.commit_to_change.p99""#))
        // The bench's stores were made in --store's folder and removed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bench.jsonl"])
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--store", directory.appendingPathComponent("nope").path]).status == 2)
    }
}

struct ProgramFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A built executable running in the background, its output read as it comes.
final class RunningProgram: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var outputData = Data()
    private var errorData = Data()

    init(_ program: String, _ arguments: [String]) throws {
        process.executableURL = Programs.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOutput) in [(output, true), (error, false)] {
            Thread { [self] in
                while true {
                    let data = pipe.fileHandleForReading.availableData
                    if data.isEmpty { return }
                    lock.lock()
                    if isOutput { outputData.append(data) } else { errorData.append(data) }
                    lock.unlock()
                }
            }.start()
        }
    }

    /// Complete lines of standard output so far (blank ones included).
    var outputLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        var lines = String(decoding: outputData, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // what follows the last line feed: an unfinished line, or ""
        return lines
    }

    var error: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorData, as: UTF8.self)
    }

    /// Waits until standard output holds at least `lines` complete lines.
    func waitForOutput(lines: Int, timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if outputLines.count >= lines { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return outputLines.count >= lines
    }

    func interrupt() { process.interrupt() }
    func terminate() { process.terminate() }

    /// Its exit status, or nil when it is still running after `timeout`.
    func waitForExit(timeout: Duration) -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning, clock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Whether it exited (rather than being killed by a signal).
    var exitedNormally: Bool { !process.isRunning && process.terminationReason == .exit }

    /// Kills it if it still runs (a failed test must not leave it behind).
    func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}
