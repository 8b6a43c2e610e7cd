import Roster

/// `crossover`: commits that change 1 % to 40 % of the rows, handled by the incremental
/// engine row by row (`bulkFraction = 1`) and by re-fetching the results and diffing them
/// whole (`bulkFraction = 0`): commit → batch ready for each. Where the second gets
/// cheaper is where `ResultsController.bulkFraction` should be.
enum CrossoverScenario {
    static let shares = [0.01, 0.05, 0.10, 0.20, 0.40]

    static let table = TextTable([
        ("N", 9), ("share", 7), ("rows changed", 12), ("row by row ms", 14), ("re-fetch ms", 14), ("re-fetch / row by row", 22),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("crossover: UPDATE a share of the rows (rank = rank + 1), one live query handling it")
        reporter.print("  row by row (bulkFraction 1) or by re-fetch and diff (bulkFraction 0); commit→batch ms, median of \(configuration.rounds)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            reporter.progress("crossover N=\(size): filling the table")
            let fixture = try PostFixture(size: size)
            for share in shares {
                var medians: [Double] = []
                var changed = 0
                for fraction in [1.0, 0.0] {
                    let (controller, probe) = try fixture.liveQuery()
                    controller.bulkFraction = fraction
                    var times = Durations()
                    for round in 0..<configuration.rounds {
                        let modulus = Int64((1 / share).rounded())
                        let stamps = try WriteStamps.measure(probe: probe) {
                            try fixture.store.execute("UPDATE Post SET rank = rank + 1 WHERE rowid % ? = ?",
                                                      arguments: [.integer(modulus), .integer(Int64(round) % modulus)])
                        }
                        if let ready = stamps.commitToBatch { times.append(ready) }
                        changed = probe.group?.objectChanges.count ?? changed
                    }
                    withExtendedLifetime(controller) {}
                    medians.append(times.median)
                    reporter.record(.crossover, size: size, "\(fraction == 1 ? "row_by_row" : "refetch").share_\(Int(share * 100))", times)
                }
                reporter.print(table.line([String(size), "\(Int(share * 100)) %", String(changed),
                                           Format.fixed(medians[0], decimals: 2), Format.fixed(medians[1], decimals: 2),
                                           Format.ratio(medians[1] / medians[0])]))
            }
        }
    }
}
