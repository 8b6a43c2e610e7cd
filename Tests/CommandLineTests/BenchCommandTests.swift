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
        for row in ["cold open, offset", "cold open, anchored", "one-row, window", "its thread's CPU", "move one screen", "resume, 1,000 edits",
                    "vs relaunched re-fetch", "resume, 1,000 re-sorts", "its reads: log + 1,000 rows", "its reads: log + shown rows", "its reads: log + re-sorted", "floor: SQLite alone", "heap held after the fetch"] {
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

    /// `fetch`, `crossover`, `predicate` and `writes` print and record median, p95, p99
    /// and max of every timed figure, as the other scenarios do (issue 37).
    @Test(arguments: [
        ("fetch", "2000", ["2000 "], ["roster.perform_fetch", "floor.fetch"]),
        ("crossover", "2000", ["2000 "], ["row_by_row.share_1", "refetch.share_100", "chosen.share_50", "floor.share_10"]),
        ("predicate", "65536", ["LIKE", "CONTAINS", "IN with"], ["like_longest.swift", "like_longest.sqlite", "nots.swift", "in_values.sqlite"]),
        ("writes", "1000", ["1000 "], ["insert.1.store", "update.1000.other.tracked", "floor.insert.trigger", "memory_journal.update_all.other"]),
    ])
    func everyScenarioPrintsAndRecordsP99AndMax(scenario: String, size: String, rowPrefixes: [String], metrics: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("bench.jsonl").path
        // The predicate scenario has one size of its own: the value's length.
        let sizeArguments = scenario == "predicate" ? [] : ["--sizes", size]
        let result = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", scenario, "--iterations", "3", "--json", json] + sizeArguments)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("mismatches: 0"))
        #expect(result.output.contains("ms as median / p95 / p99 / max"), "no statistics named in \(result.output)")
        // Every row of the scenario's tables shows four figures a timed cell.
        let rows = result.output.split(separator: "\n").filter { line in rowPrefixes.contains { line.hasPrefix($0) } }
        #expect(!rows.isEmpty, "no rows in \(result.output)")
        for row in rows {
            #expect(row.components(separatedBy: " / ").count >= 1 + 3 * 2, "not four figures a cell: \(row)")
        }
        var recorded: [String: Double] = [:]
        for record in try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
            #expect(object["scenario"] as? String == scenario)
            #expect((object["N"] as? Int).map(String.init) == size, "\(record)")
            if let metric = object["metric"] as? String, let value = object["value"] as? Double { recorded[metric] = value }
        }
        for metric in metrics {
            let statistics = ["median", "p99", "max"].map { recorded["\(metric).\($0)"] }
            #expect(statistics.allSatisfy { $0 != nil }, "\(metric): median, p99 and max not all recorded (\(recorded.keys.sorted()))")
            if let median = statistics[0], let p99 = statistics[1], let max = statistics[2] {
                #expect(median <= p99 && p99 <= max, "\(metric): median \(median), p99 \(p99), max \(max)")
            }
        }
    }

    /// `entities`: its sizes are numbers of entities; it prints and records Roster's
    /// time, the floor's and their ratio, and checks that the live queries hear a commit
    /// and that the file holds one table and three triggers an entity.
    @Test func theEntitiesScenarioMeasuresRosterAgainstTheSameSchemaInOneTransaction() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("bench.jsonl").path
        let result = try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "entities", "--sizes", "10,40", "--iterations", "3", "--json", json])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("mismatches: 0"))
        #expect(result.output.contains("entities 10, 40"))
        for size in ["10", "40"] {
            let row = result.output.split(separator: "\n").first { $0.hasPrefix(size + " ") } ?? ""
            #expect(row.components(separatedBy: " / ").count == 4 * 3 + 1, "not four figures in each of four cells: \(row)")
            #expect(row.hasSuffix("x"), "no ratio: \(row)")
        }
        var recorded: Set<String> = []
        for record in try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
            if let metric = object["metric"] as? String, let size = object["N"] as? Int { recorded.insert("\(size) \(metric)") }
        }
        for size in [10, 40] {
            for metric in ["roster.define_and_watch.median", "roster.define_and_watch.p99", "roster.define_and_watch.max",
                           "floor.ddl.median", "floor.ddl.max", "ratio.roster_over_floor", "floor.statements"] {
                #expect(recorded.contains("\(size) \(metric)"), "no \(metric) at \(size)")
            }
        }
        // Numbers of entities: at least one, and no more than 100,000.
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "entities", "--sizes", "0"]).status == 2)
    }

    @Test func anUnknownScenarioOrATooSmallSizeExitsWithTwo() throws {
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--scenario", "nope"]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--sizes", "10"]).status == 2)
        #expect(try ProgramRun(program: "roster", arguments: ["bench", "--baseline-iterations", "0"]).status == 2)
    }
}
