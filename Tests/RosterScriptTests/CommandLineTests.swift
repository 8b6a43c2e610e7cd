import Foundation
import RosterScript
import Testing

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

    @Test func prettyPrintsTheSameEventsSpacedAndGroupedByLine() throws {
        let compact = try run(["run", "-"], input: script).output.split(separator: "\n")
        let result = try run(["run", "-", "--pretty"], input: script)
        #expect(result.status == 0)
        #expect(result.output.contains("\n\n{\"line\": 3, \"query\": \"q1\", \"event\": \"willChange\"}\n"))
        let pretty = result.output.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(try pretty.map { try JSONParser().parse($0) } == compact.map { try JSONParser().parse($0) })
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

    @Test func keepLeavesTheDatabaseWhereAskedAndAnotherProcessCanWriteIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("kept.sqlite").path
        let result = try run(["run", "-", "--database", path, "--keep"], input: script)
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try run(["sql", path, "UPDATE Post SET rank = 2"]).status == 0)
        #expect(try run(["run", "-", "--database", path], input: script).status == 1)
        let removed = directory.appendingPathComponent("removed.sqlite").path
        #expect(try run(["run", "-", "--database", removed], input: script).status == 0)
        #expect(!FileManager.default.fileExists(atPath: removed))
    }
}
