import Roster

/// The floors under the `writes` targets: what SQLite charges any change capture before it
/// logs a byte, measured on the file without a change log through the other connection.
///
/// - hook: a preupdate hook that reads the least a capture must read of each row — an
///   insert's key, an update's old and new value of the one column it changes (to know that
///   it changed and what it was) — and logs nothing. The store's own hook reads that and
///   more (every column's old and new value, to skip writes that change nothing).
/// - trigger: a `TEMP` trigger for inserts and one for updates whose `WHEN` is false, so
///   their bodies (one insert each) never run. SQLite still gives up the one-pass update
///   and opens a statement journal for each statement, as it does for the change log's
///   triggers.
///
/// The ratios say how close a tracked write can come to the same write untracked: a
/// target below a floor cannot be met by a capture of that kind.
extension WritesScenario {
    static let floorTable = TextTable([
        ("N", 9), ("operation", 22), ("without", 30), ("hook", 30), ("ratio", 7), ("trigger", 30), ("ratio", 7),
    ])

    /// Measures the floors for the largest insert and the one-statement update of the
    /// `writes` table, on `store`'s file (which has no change log) through `other`.
    static func runFloors(size: Int, rounds: Int, on store: Store, through other: RawDatabase, reporter: BenchmarkReporter) throws {
        let count = min(size, 100_000)
        reporter.print("")
        reporter.print("writes, floors: another connection, the file without a change log, ms as median / p95 / p99 / max of \(rounds) rounds;")
        reporter.print("  hook = a preupdate hook reading what any capture must (an insert's key; an update's old and new")
        reporter.print("  value of the column it changes), logging nothing; trigger = triggers whose WHEN is false; ratios of medians")
        floorTable.header.forEach(reporter.print)
        // Column 3 is `score`, the column both updates change.
        guard other.setFloorHook(column: 3) else {
            reporter.print("  (this SQLite has no preupdate hook: no floors)")
            return
        }
        _ = other.setFloorHook(column: nil)
        try other.execute("CREATE TEMP TABLE IF NOT EXISTS floor_sink(x)")
        let ways = ["without", "hook", "trigger"]
        var samples: [String: Durations] = [:]
        for round in 0..<rounds {
            reporter.progress("writes N=\(size): floors, round \(round + 1) of \(rounds)")
            for offset in 0..<ways.count {
                let way = ways[(round + offset) % ways.count]
                // Keys no round of the table used.
                let keys = 1_000 + round * ways.count + offset
                try tidy(store, other)
                let insert = try measure(under: way, on: other) {
                    try write("insert", keys: 0..<count, round: keys, to: other)
                }
                samples["insert \(way)", default: Durations()].append(insert)
                try write("delete", keys: 0..<count, round: keys, to: other)
                try tidy(store, other)
                let update = try measure(under: way, on: other) {
                    try other.execute("UPDATE Post SET score = score + 1")
                }
                samples["update all \(way)", default: Durations()].append(update)
            }
        }
        for (operation, label) in [("insert", "insert \(count)"), ("update all", "update all (1 stmt)")] {
            let without = samples["\(operation) without"] ?? Durations()
            var cells = [String(size), label, Format.summary(without)]
            let metric = "floor.\(operation.replacingOccurrences(of: " ", with: "_"))"
            reporter.record(.writes, size: size, "\(metric).without", without)
            for way in ["hook", "trigger"] {
                let with = samples["\(operation) \(way)"] ?? Durations()
                let ratio = with.median / without.median
                cells += [Format.summary(with), Format.ratio(ratio)]
                reporter.record(.writes, size: size, "\(metric).\(way)", with)
                reporter.record(.writes, size: size, "\(metric).\(way).ratio", ratio, unit: "x")
            }
            reporter.print(floorTable.line(cells))
        }
        try other.execute("DROP TABLE IF EXISTS temp.floor_sink")
    }

    /// Times `body` with the floor `way` in place on `other` (nothing, the hook, or the
    /// triggers), which is taken away after.
    private static func measure(under way: String, on other: RawDatabase, _ body: () throws -> Void) throws -> UInt64 {
        switch way {
        case "hook":
            _ = other.setFloorHook(column: 3)
        case "trigger":
            try other.execute("""
                CREATE TEMP TRIGGER floor_insert AFTER INSERT ON main.Post WHEN 0 BEGIN INSERT INTO floor_sink VALUES (NEW.id); END;
                CREATE TEMP TRIGGER floor_update AFTER UPDATE ON main.Post WHEN 0 BEGIN INSERT INTO floor_sink VALUES (OLD.id); END;
                """)
        default:
            break
        }
        defer {
            _ = other.setFloorHook(column: nil)
            try? other.execute("DROP TRIGGER IF EXISTS temp.floor_insert; DROP TRIGGER IF EXISTS temp.floor_update")
        }
        return try measure(body)
    }
}
