import Roster

/// `crossover`: commits that change 1 % to 100 % of the rows, handled by the incremental
/// engine row by row, by re-fetching the results and diffing them by ids, by re-sorting
/// them in memory and diffing by ids, and by the path the controller chooses by estimated
/// cost (`CommitPath.cheaper`): commit → batch ready for each. `chosen / cheaper` is the
/// chosen path's time over the cheapest forced one's.
enum CrossoverScenario {
    /// Shares of the rows changed, as the modulus of `rowid % m = r`: 1, 5, 10, 20, 33, 50
    /// and 100 %.
    static let moduli: [Int64] = [100, 20, 10, 5, 3, 2, 1]

    static let table = TextTable([
        ("N", 9), ("share", 7), ("rows changed", 12), ("row by row ms", 30), ("re-fetch ms", 30), ("re-sort ms", 30),
        ("chosen ms", 30), ("chosen path", 12), ("chosen / cheaper", 17), ("floor ms", 30), ("re-fetch / floor", 17), ("re-sort / floor", 16),
    ])

    /// Rounds for results of up to 100,000 rows, at least: their commits take a few
    /// milliseconds, where five rounds left the same path's medians 10–30 % apart.
    static let minimumRounds = 11

    static func rounds(_ size: Int, _ configuration: BenchmarkConfiguration) -> Int {
        size <= 100_000 ? max(configuration.rounds, minimumRounds) : configuration.rounds
    }

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("crossover: UPDATE a share of the rows (rank = rank + 1), one live query handling it")
        reporter.print("  row by row, by re-fetch and diff, by re-sort in memory and diff, and by the path chosen by estimated cost;")
        reporter.print("  commit→batch, ms as median / p95 / p99 / max of \(max(configuration.rounds, minimumRounds)) rounds up to 100,000 rows (their times are small), of \(configuration.rounds) above;")
        reporter.print("  the ratios compare medians")
        reporter.print("  floor: raw sqlite3 stepping the query's ORDER BY (key and sort columns), in the same rounds")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            reporter.progress("crossover N=\(size): filling the table")
            let fixture = try PostFixture(size: size)
            let database = try RawDatabase(path: fixture.store.path)
            for modulus in moduli {
                let share = Int((100 / Double(modulus)).rounded())
                let paths: [CommitPath?] = [.rowByRow, .refetch, .resort, nil]
                var times = [Durations](repeating: Durations(), count: paths.count)
                var floor = Durations()
                var changed = 0
                // The paths take turns within each round, each round starting with the next
                // one, so that the machine's drifts and the order touch all four alike; each
                // gets a fresh live query, and its own rows.
                for round in 0..<rounds(size, configuration) {
                    for turn in 0..<paths.count {
                        let index = (round + turn) % paths.count
                        let path = paths[index]
                        let (controller, probe) = try fixture.liveQuery()
                        controller.forcedCommitPath = path
                        let residue = Int64(round * paths.count + index) % modulus
                        let stamps = try WriteStamps.measure(probe: probe) {
                            try fixture.store.execute("UPDATE Post SET rank = rank + 1 WHERE rowid % ? = ?",
                                                      arguments: [.integer(modulus), .integer(residue)])
                        }
                        if let ready = stamps.commitToBatch { times[index].append(ready) }
                        changed = probe.group?.objectChanges.count ?? changed
                        withExtendedLifetime(controller) {}
                    }
                    floor.append(try MonotonicClock.measure { try FetchScenario.FloorRows.read(database) }.nanoseconds)
                }
                for (index, name) in ["row_by_row", "refetch", "resort", "chosen"].enumerated() {
                    reporter.record(.crossover, size: size, "\(name).share_\(share)", times[index])
                }
                reporter.record(.crossover, size: size, "floor.share_\(share)", floor)
                let medians = times.map(\.median)
                let chosen = CommitPath.cheaper(touched: changed, results: size)
                let cheaper = medians[0..<3].min() ?? .nan
                reporter.record(.crossover, size: size, "chosen_over_cheaper.share_\(share)", medians[3] / cheaper, unit: "ratio")
                reporter.record(.crossover, size: size, "refetch_over_floor.share_\(share)", medians[1] / floor.median, unit: "ratio")
                reporter.record(.crossover, size: size, "resort_over_floor.share_\(share)", medians[2] / floor.median, unit: "ratio")
                reporter.print(table.line([String(size), "\(share) %", String(changed),
                                           Format.summary(times[0]), Format.summary(times[1]),
                                           Format.summary(times[2]), Format.summary(times[3]), chosen.name,
                                           Format.ratio(medians[3] / cheaper), Format.summary(floor),
                                           Format.ratio(medians[1] / floor.median), Format.ratio(medians[2] / floor.median)]))
            }
        }
    }
}
