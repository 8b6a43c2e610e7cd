import Roster

/// `bulk`: one commit that changes a tenth of the rows, `UPDATE Post SET rank = rank + 1
/// WHERE rank % 10 = r` in raw SQL: the live query's commit → batch ready against the
/// baseline's. Each round takes another residue, so each changes a fresh tenth.
enum BulkScenario {
    static let table = TextTable([
        ("N", 9), ("rows changed", 12), ("write", 32), ("Roster commit→batch", 32), ("baseline commit→batch", 32), ("base/Roster", 11),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("bulk: UPDATE Post SET rank = rank + 1 WHERE rank % 10 = r (a tenth of the rows), \(configuration.rounds) rounds;")
        reporter.print("  ms as median / p95 / p99 / max (ratio of medians: baseline / Roster)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, rounds: configuration.rounds, reporter: reporter)
        }
    }

    private static func run(size: Int, rounds: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("bulk N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let (controller, probe) = try fixture.liveQuery()
        let baseline = try RefetchDiffObserver(path: fixture.store.path)
        var write = Durations()
        var roster = Durations()
        var base = Durations()
        var changedRows: [Int] = []
        reporter.progress("bulk N=\(size): \(rounds) rounds")
        for round in 0..<rounds {
            // Even residues only: a round never takes the rows the one before it shifted.
            let residue = Int64(2 * round % 10)
            let stamps = try WriteStamps.measure(probe: probe) {
                try fixture.store.execute("UPDATE Post SET rank = rank + 1 WHERE rank % 10 = ?", arguments: [.integer(residue)])
            }
            let refresh = try baseline.refresh()
            if let difference = ChangeCheck.difference(roster: probe.group, baseline: refresh.group) {
                reporter.mismatch(.bulk, size: size, "round \(round): \(difference)")
            }
            guard let written = stamps.write, let ready = stamps.commitToBatch else {
                reporter.mismatch(.bulk, size: size, "round \(round): no commit or no callbacks were seen")
                continue
            }
            write.append(written)
            roster.append(ready)
            base.append(refresh.nanoseconds)
            changedRows.append(probe.group?.objectChanges.count ?? 0)
        }
        withExtendedLifetime(controller) {}

        let ratio = base.median / roster.median
        let changed = changedRows.isEmpty ? 0 : changedRows.reduce(0, +) / changedRows.count
        reporter.print(table.line([String(size), String(changed), Format.summary(write), Format.summary(roster),
                                   Format.summary(base), Format.ratio(ratio)]))
        reporter.record(.bulk, size: size, "rows_changed", Double(changed), unit: "count")
        reporter.record(.bulk, size: size, "write", write)
        reporter.record(.bulk, size: size, "roster.commit_to_batch", roster)
        reporter.record(.bulk, size: size, "baseline.commit_to_batch", base)
        reporter.record(.bulk, size: size, "ratio.baseline_over_roster", ratio, unit: "x")
    }
}
