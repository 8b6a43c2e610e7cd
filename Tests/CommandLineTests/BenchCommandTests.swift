import Foundation
import Testing
import RosterTestSupport

/// Runs the built `roster bench` on small tables, as CI does: a smoke test of the harness,
/// not of Roster's speed. It checks that the bench runs, prints its table and finds no
/// mismatch between the live query and re-fetch and diff; it asserts nothing about timings.
@Suite("roster bench")
struct BenchCommandTests {
    @Test func quickCommitScenarioPrintsTheTableAndFindsNoMismatch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("bench.jsonl").path

        let result = try ProgramRun(program: "roster", arguments: ["bench", "--quick", "--scenario", "commit", "--json", json])

        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("journal_mode=wal"))
        #expect(result.output.contains("synchronous="))
        let lines = result.output.split(separator: "\n").map(String.init)
        for size in ["2000", "20000"] {
            for kind in ["insert", "delete", "move in section", "move to section", "update in place"] {
                #expect(lines.contains { $0.hasPrefix(size + " ") && $0.contains(kind) }, "no row for \(kind) at N=\(size)")
            }
        }
        #expect(!result.output.contains("MISMATCH"))
        #expect(!result.error.contains("MISMATCH"))
        #expect(result.output.contains("mismatches: 0"))

        let records = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        #expect(!records.isEmpty)
        for record in records {
            let object = try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any]
            #expect(object.map { Set($0.keys) } == ["scenario", "N", "metric", "value", "unit"], "\(record)")
            #expect(object?["scenario"] as? String == "commit")
        }
        // Each timed figure is summarized as median, p95, p99 and max, once each, in the
        // table and in the JSON lines (Docs/Performance.md quotes median, p99 and max).
        #expect(result.output.contains("ms as median / p95 / p99 / max"))
        let metrics = records.compactMap { record in
            (try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])?["metric"] as? String
        }
        for size in ["2000", "20000"] {
            let row = lines.first { $0.hasPrefix(size + " ") && $0.contains("insert") } ?? ""
            #expect(row.components(separatedBy: " / ").count == 3 * 4 - 2, "not four figures a cell: \(row)")
        }
        for statistic in ["median", "p95", "p99", "max"] {
            #expect(metrics.filter { $0 == "insert.roster.commit_to_batch.\(statistic)" }.count == 2, "insert \(statistic) not once a size")
        }
    }

    @Test func aSampledBaselineStillChecksEveryCommitAndLiveResultsReportEach() throws {
        let commit = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "commit", "--sizes", "2000", "--iterations", "12", "--baseline-iterations", "3"])
        #expect(commit.status == 0, "\(commit.error)")
        #expect(commit.output.contains("12 of each kind (the baseline runs the first 3)"))
        #expect(commit.output.contains("mismatches: 0"))

        let live = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "live", "--sizes", "2000", "--iterations", "10"])
        #expect(live.status == 0, "\(live.error)")
        #expect(live.output.split(separator: "\n").contains { $0.hasPrefix("2000 ") })
        #expect(live.output.contains("mismatches: 0"))
    }

    @Test func theWindowScenarioChecksEveryWindowAgainstARefetch() throws {
        let window = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "window", "--sizes", "2000", "--iterations", "6"])
        #expect(window.status == 0, "\(window.error)")
        for row in ["cold open, offset", "cold open, anchored", "one-row, window", "move one screen", "resume, 1,000 changes", "heap held after the fetch"] {
            #expect(window.output.contains(row), "no '\(row)' in \(window.output)")
        }
        #expect(window.output.contains("mismatches: 0"))
    }

    @Test func theDisplayedScenarioHearsNothingFromAnUndisplayedColumn() throws {
        let displayed = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "displayed", "--sizes", "2000", "--iterations", "6"])
        #expect(displayed.status == 0, "\(displayed.error)")
        for row in ["1 displaying", "100 displaying", "100 displaying all"] {
            #expect(displayed.output.contains(row), "no '\(row)' in \(displayed.output)")
        }
        #expect(displayed.output.contains("mismatches: 0"))
    }

    @Test func anUnknownScenarioOrATooSmallSizeExitsWithTwo() throws {
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "nope"]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--sizes", "10"]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--baseline-iterations", "0"]).status == 2)
    }
}
