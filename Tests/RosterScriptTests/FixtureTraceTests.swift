import Foundation
import Testing
import Roster
@testable import RosterScript

/// Runs every script in `Tests/Fixtures` and compares its trace with the expected trace
/// beside it (`NAME.trace.jsonl`), line by line.
///
/// Expected traces were checked by hand against the spec when they were written. After an
/// intended change, `ROSTER_RECORD_FIXTURES=1 swift test --filter FixtureTraceTests`
/// rewrites them; read the diff before committing it.
@Suite("Fixture traces")
struct FixtureTraceTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var scripts: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") && !$0.hasSuffix(".trace.jsonl") }.sorted()
    }

    @Test func everyFixtureHasAnExpectedTrace() {
        #expect(!Self.scripts.isEmpty)
        for script in Self.scripts {
            let trace = script.replacingOccurrences(of: ".jsonl", with: ".trace.jsonl")
            #expect(FileManager.default.fileExists(atPath: Self.directory.appendingPathComponent(trace).path), "\(script) has no \(trace)")
        }
    }

    @Test(arguments: FixtureTraceTests.scripts)
    func traceMatches(script: String) throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent(script), encoding: .utf8)
        let runner = ScriptRunner(store: try Store.temporary())
        var lines: [String] = []
        runner.run(script: text) { lines.append($0.serialized()) }
        let traceURL = Self.directory.appendingPathComponent(script.replacingOccurrences(of: ".jsonl", with: ".trace.jsonl"))
        if ProcessInfo.processInfo.environment["ROSTER_RECORD_FIXTURES"] == "1" {
            try (lines.joined(separator: "\n") + "\n").write(to: traceURL, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: traceURL, encoding: .utf8).split(separator: "\n").map(String.init)
        for (index, pair) in zip(lines, expected).enumerated() where pair.0 != pair.1 {
            Issue.record("\(script): trace line \(index + 1) differs\n  got:      \(pair.0)\n  expected: \(pair.1)")
            break
        }
        #expect(lines.count == expected.count, "\(script): \(lines.count) trace lines, expected \(expected.count)")
    }
}
