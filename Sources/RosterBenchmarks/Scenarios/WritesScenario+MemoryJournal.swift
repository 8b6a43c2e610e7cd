import Roster

/// The triggers' cost when the writing connection keeps its temporary files in memory.
///
/// A trigger makes SQLite open a statement journal for each statement that fires it (the
/// statement may fail after the trigger wrote). In a transaction that writes more pages
/// than the page cache holds, SQLite spills pages to the write-ahead log mid-transaction,
/// and in WAL mode copies each spilled page to that statement journal first; past 64 KB the
/// journal goes to a temporary file, so each spilled page is written twice. The change log
/// cannot decide where another program keeps its temporary files: this measures the same
/// writes through connections that set `PRAGMA temp_store = MEMORY`, on both files, to show
/// how much of the triggers' cost is that journal.
extension WritesScenario {
    static let memoryJournalTable = TextTable([
        ("N", 9), ("operation", 22), ("other conn.", 30), ("other tracked", 30), ("ratio", 7),
    ])

    /// Measures the largest insert and the one-statement update of the `writes` table
    /// through new connections with `temp_store = MEMORY` on `plain` (no change log) and
    /// `tracked` (its triggers).
    static func runMemoryJournal(size: Int, rounds: Int, plain: Store, tracked: Store, reporter: BenchmarkReporter) throws {
        let count = min(size, 100_000)
        reporter.print("")
        reporter.print("writes, another connection with PRAGMA temp_store = MEMORY (the writer's setting), ms as median / p95 / p99 / max of \(rounds) rounds")
        memoryJournalTable.header.forEach(reporter.print)
        let connections = [try RawDatabase(path: plain.path), try RawDatabase(path: tracked.path)]
        for connection in connections { try connection.execute("PRAGMA temp_store = MEMORY") }
        var samples: [String: Durations] = [:]
        for round in 0..<rounds {
            reporter.progress("writes N=\(size): temp_store = MEMORY, round \(round + 1) of \(rounds)")
            for offset in 0..<2 {
                let isTracked = (round + offset) % 2 == 1
                let (store, other) = (isTracked ? tracked : plain, connections[isTracked ? 1 : 0])
                let way = isTracked ? "tracked" : "plain"
                // Keys no other round of the table used.
                let keys = 2_000 + round
                try tidy(store, other)
                samples["insert \(way)", default: Durations()].append(try measure {
                    try write("insert", keys: 0..<count, round: keys, to: other)
                })
                try write("delete", keys: 0..<count, round: keys, to: other)
                try tidy(store, other)
                samples["update all \(way)", default: Durations()].append(try measure {
                    try other.execute("UPDATE Post SET score = score + 1")
                })
            }
        }
        for (operation, label) in [("insert", "insert \(count)"), ("update all", "update all (1 stmt)")] {
            let without = samples["\(operation) plain"] ?? Durations()
            let with = samples["\(operation) tracked"] ?? Durations()
            let ratio = with.median / without.median
            let metric = "memory_journal.\(operation.replacingOccurrences(of: " ", with: "_"))"
            reporter.record(.writes, size: size, "\(metric).other", without)
            reporter.record(.writes, size: size, "\(metric).other.tracked", with)
            reporter.record(.writes, size: size, "\(metric).other.ratio", ratio, unit: "x")
            reporter.print(memoryJournalTable.line([String(size), label, Format.summary(without),
                                                    Format.summary(with), Format.ratio(ratio)]))
        }
    }
}
