import Foundation
import Roster
import RosterScript
import Testing
import RosterTestSupport

/// Runs the built `roster` executable, as a user would, and checks output and exit codes.
@Suite("roster command line")
struct CommandLineTests {
    func run(_ arguments: [String], input: String? = nil) throws -> ProgramRun {
        try ProgramRun(program: "roster", arguments: arguments, input: input)
    }

    let script = """
        {"op":"entity","name":"Post","key":"id","attributes":{"id":"string","rank":"integer"}}
        {"op":"query","name":"q1","entity":"Post","sort":[["rank","asc"]]}
        {"op":"insert","entity":"Post","values":{"id":"p1","rank":1}}
        {"op":"delete","entity":"Post","key":"p9"}
        """

    @Test func runReadsStandardInputAndPrintsTheTrace() throws {
        let result = try run(["run", "-"], input: script)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == #"{"line":2,"query":"q1","event":"snapshot","sections":[]}"#)
        #expect(lines.last == #"{"line":4,"event":"error","message":"delete: no Post with key 'p9'"}"#)
        #expect(lines.count == 8)
    }

    @Test(.needsPostgreSQL) func runSQLAndWatchTakeAPostgreSQLURL() throws {
        guard let server = try PostgresTestServer.url() else { return }
        // The same trace as on SQLite, in a schema of the run's own, kept with --keep.
        let sqlite = try run(["run", "-"], input: script)
        let kept = try run(["run", "-", "--store", server, "--keep"], input: script)
        #expect(kept.status == 0, "\(kept.error)")
        #expect(kept.output == sqlite.output)
        let schema = try #require(kept.error.split(separator: " ").first { $0.hasPrefix("roster_") }.map(String.init), "\(kept.error)")
        defer { try? PostgresSchema.drop(schema, at: server) }
        let url = PostgresSchema.url(server, searchPath: schema)
        // roster sql writes there as another client; roster watch on it prints the snapshot.
        let sql = try run(["sql", url, #"UPDATE "Post" SET rank = 5"#])
        #expect(sql.status == 0, "\(sql.error)")
        let read = try run(["sql", url, #"SELECT count(*), min(rank), NULL FROM "Post""#])
        #expect(read.status == 0 && read.output.hasSuffix("|5|\n"), "\(read.output) \(read.error)")
        let refused = try run(["sql", url, "COMMIT"])
        #expect(refused.status == 1 && refused.error.contains("COMMIT"))
        let output = Pipe()
        let watch = Programs.process("roster", ["watch", "--store", url, "--query", #"{"entity":"Post","sort":[["rank","asc"]]}"#], output: output, separateErrors: true)
        try watch.run()
        Thread.sleep(forTimeInterval: 1)
        watch.terminate()
        watch.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains(#""event":"snapshot""#) && printed.contains("p1"), "\(printed)")
    }

    @Test(.needsPostgreSQL) func aRunOnAPostgreSQLURLThatEndsInsideATransactionExits() throws {
        guard let server = try PostgresTestServer.url() else { return }
        // Its open transaction held locks the schema's drop at exit waited for, for ever.
        let script = Data("""
            {"op":"entity","name":"Item","key":"id","attributes":{"id":"string","rank":"integer"}}
            {"op":"begin"}
            {"op":"insert","entity":"Item","values":{"id":"i1","rank":1}}
            """.utf8)
        let input = Pipe()
        let process = Programs.process("roster", ["run", "-", "--store", server], output: Pipe(), separateErrors: true)
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(script)
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let exited = !process.isRunning
        if !exited { process.terminate() }
        process.waitUntilExit()
        #expect(exited, "roster run did not exit in 2 minutes")
        #expect(process.terminationStatus == 0)
    }

    @Test func prettyWritesEachGroupForAPersonToRead() throws {
        let result = try run(["run", "-", "--pretty"], input: script)
        #expect(result.status == 0)
        #expect(result.output == """
            line 2 · q1 · snapshot: no sections

            line 3 · q1
              section insert 0
              insert 'p1' at [0,0]
              batch: insertSections [0]
              now: 'p1'

            line 4 · error: delete: no Post with key 'p9'

            """)
        // Moves, updates and sections by name, as the examples print them.
        let moves = """
            {"op":"entity","name":"Task","key":"id","attributes":{"id":"string","list":"string","rank":"integer"}}
            {"op":"query","name":"t","entity":"Task","sort":[["list","asc"],["rank","asc"]],"section":"list"}
            {"op":"insert","entity":"Task","values":{"id":"a","list":"home","rank":1}}
            {"op":"insert","entity":"Task","values":{"id":"b","list":"home","rank":2}}
            {"op":"update","entity":"Task","key":"a","values":{"rank":3}}
            """
        let moved = try run(["run", "-", "--pretty", "--keep-moves"], input: moves)
        #expect(moved.output.hasSuffix("""
            line 5 · t
              move 'a' from [0,0] to [0,1]
              batch: moveItems [0,0]→[0,1]
              now: 'home': 'b' 'a'

            """), "\(moved.output)")
    }

    @Test func anUnreadableScriptExitsWithOne() throws {
        let result = try run(["run", "/nonexistent/script.jsonl"])
        #expect(result.status == 1)
        #expect(result.error.contains("cannot read script '/nonexistent/script.jsonl'"))
    }

    @Test func badFlagsExitWithTwo() throws {
        #expect(try run(["run"]).status == 2)
        #expect(try run(["run", "x.jsonl", "--no-such-flag"]).status == 2)
    }

    @Test func strictExitsWithThreeWhenTheTraceHoldsAnError() throws {
        let lenient = try run(["run", "-"], input: script)
        #expect(lenient.status == 0)
        let strict = try run(["run", "-", "--strict"], input: script)
        #expect(strict.status == 3)
        #expect(strict.output == lenient.output, "--strict changes the exit status only")
        let clean = script.split(separator: "\n").dropLast().joined(separator: "\n")
        #expect(try run(["run", "-", "--strict"], input: clean).status == 0)
    }

    @Test func traceLinesAreWrittenAsTheyAreMade() throws {
        // The last line keeps SQLite busy for seconds: the snapshot must be readable before.
        let slow = """
            {"op":"entity","name":"Post","key":"id","attributes":{"id":"string","rank":"integer"}}
            {"op":"query","name":"q1","entity":"Post","sort":[["rank","asc"]]}
            {"op":"sql","sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000000) SELECT count(*) FROM c"}
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("roster-slow-\(UUID().uuidString).jsonl")
        try slow.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = Programs.productsDirectory.appendingPathComponent("roster")
        process.arguments = ["run", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var received = Data()
        let deadline = Date().addingTimeInterval(10)
        let reader = output.fileHandleForReading
        while !received.contains(0x0A), Date() < deadline, process.isRunning {
            received.append(reader.availableData)
        }
        #expect(String(decoding: received, as: UTF8.self).hasPrefix(#"{"line":2,"query":"q1","event":"snapshot""#))
        #expect(process.isRunning, "the slow line was still running when the first event arrived")
    }

    @Test func sqlOnAMistypedPathIsAnErrorAndCreatesNothing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roster-missing-\(UUID().uuidString).sqlite").path
        let result = try run(["sql", path, "CREATE TABLE t(x)"])
        #expect(result.status == 1)
        #expect(result.error.contains("no database at '\(path)'"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func keepWithoutADatabaseKeepsTheTemporaryStore() throws {
        let result = try run(["run", "-", "--keep"], input: script)
        #expect(result.status == 0)
        let marker = "database kept at "
        let line = try #require(result.error.split(separator: "\n").first { $0.contains(marker) }, "\(result.error)")
        let path = String(line[try #require(line.range(of: marker)).upperBound...])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(FileManager.default.fileExists(atPath: path), "\(path) is gone")
        #expect(try run(["sql", path, "UPDATE Post SET rank = 2"]).status == 0)
    }

    @Test func keepLeavesTheDatabaseWhereAskedAndAnotherProcessCanWriteIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("kept.sqlite").path
        let result = try run(["run", "-", "--database", path, "--keep"], input: script)
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try run(["sql", path, "UPDATE Post SET rank = 2"]).status == 0)
        // Rows read are printed as sqlite3 prints them: one a line, `|` between, NULL empty.
        let read = try run(["sql", path, "SELECT 'a', 1, 2.5, NULL; SELECT count(*) FROM Post WHERE rank = 2"])
        #expect(read.status == 0 && read.output.hasPrefix("a|1|2.5|\n"), "\(read.output) \(read.error)")
        #expect(read.output.split(separator: "\n").count == 2)
        let help = try run(["sql", "--help"])
        #expect(help.output.contains("PostgreSQL URL"))
        #expect(try run(["run", "-", "--database", path], input: script).status == 1)
        let removed = directory.appendingPathComponent("removed.sqlite").path
        #expect(try run(["run", "-", "--database", removed], input: script).status == 0)
        #expect(!FileManager.default.fileExists(atPath: removed))
    }
}
