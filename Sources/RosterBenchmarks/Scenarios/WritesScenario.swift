import Roster

/// `writes`: what change tracking costs the writes themselves.
///
/// Two stores of N posts: one whose `Post` has a change log (a live query watched it once;
/// none is open while writing, so the time is the write's alone) and one without. Each is
/// written to two ways: through the store (`Store.insert`/`update`/`delete` in one
/// `write`; tracked by the preupdate hook, one log entry per transaction) and through
/// another plain SQLite connection (prepared statements in one `BEGIN IMMEDIATE`; tracked
/// by the triggers). A round inserts k new posts, updates their score, deletes them, and
/// finally updates every row's score in one statement; the four ways take turns. A round
/// writes one row ``singleRowRepeats`` times (a transaction each), so that the median of a
/// write that takes a fraction of a millisecond is not one sample's noise.
///
/// Each write starts after housekeeping that is not timed: the store reads what the other
/// connection wrote and prunes the log (`pollExternalChanges`; otherwise the store's next
/// commit would prune the other connection's 100,000-row writes), and the write-ahead log
/// is emptied (`PRAGMA wal_checkpoint(TRUNCATE)`), so a write pays the checkpoint its own
/// pages make due (SQLite checkpoints at 1,000 pages), not one an earlier write left.
enum WritesScenario {
    static let table = TextTable([
        ("N", 9), ("operation", 22), ("store", 30), ("store tracked", 30), ("ratio", 7),
        ("other conn.", 30), ("other tracked", 30), ("ratio", 7),
    ])

    /// One of the four ways to write.
    private struct Way {
        let name: String
        let isTracked: Bool
        let throughStore: Bool
    }

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("writes: the write alone (begin → commit returned), ms as median / p95 / p99 / max of \(configuration.rounds) rounds")
        reporter.print("  (one-row writes: of \(singleRowRepeats) transactions a round, each one sample);")
        reporter.print("  ratio = with a change log / without, of the medians (store: preupdate hook; other connection: triggers)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, rounds: configuration.rounds, reporter: reporter)
        }
    }

    /// How many one-row writes each round times, each in its own transaction.
    static let singleRowRepeats = 25

    private static func run(size: Int, rounds: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("writes N=\(size): filling two tables")
        let plain = try PostFixture(size: size)
        let tracked = try PostFixture(size: size)
        // Watching the entity once creates its change log; closing the query leaves it.
        do {
            let (controller, _) = try tracked.liveQuery()
            withExtendedLifetime(controller) {}
        }
        let others = [try RawDatabase(path: plain.store.path), try RawDatabase(path: tracked.store.path)]
        let ways = [
            Way(name: "store", isTracked: false, throughStore: true),
            Way(name: "store.tracked", isTracked: true, throughStore: true),
            Way(name: "other", isTracked: false, throughStore: false),
            Way(name: "other.tracked", isTracked: true, throughStore: false),
        ]
        let counts = [1, 1_000, 100_000].filter { $0 == 1 || $0 <= max(size, 1_000) }
        let operations = counts.flatMap { count in ["insert", "update", "delete"].map { ($0, count) } } + [("update all", size)]
        var samples: [String: Durations] = [:]
        for round in 0..<rounds {
            reporter.progress("writes N=\(size): round \(round + 1) of \(rounds)")
            for offset in 0..<ways.count {
                let way = ways[(round + offset) % ways.count]
                let fixture = way.isTracked ? tracked : plain
                let other = others[way.isTracked ? 1 : 0]
                for count in counts {
                    // A one-row write takes a fraction of a millisecond, where the machine's
                    // noise is as large: it is timed on `singleRowRepeats` rows, a
                    // transaction each, rather than once a round.
                    let batches = count == 1 ? (0..<singleRowRepeats).map { $0..<($0 + 1) } : [0..<count]
                    for operation in ["insert", "update", "delete"] {
                        for keys in batches {
                            try tidy(fixture.store, other)
                            let nanoseconds = try measure {
                                if way.throughStore {
                                    try write(operation, keys: keys, round: round, to: fixture.store)
                                } else {
                                    try write(operation, keys: keys, round: round, to: other)
                                }
                            }
                            samples["\(operation) \(count) \(way.name)", default: Durations()].append(nanoseconds)
                        }
                    }
                }
                try tidy(fixture.store, other)
                let nanoseconds = try measure {
                    if way.throughStore {
                        try fixture.store.execute("UPDATE Post SET score = score + 1")
                    } else {
                        try other.execute("UPDATE Post SET score = score + 1")
                    }
                }
                samples["update all \(size) \(way.name)", default: Durations()].append(nanoseconds)
            }
        }
        for (operation, count) in operations {
            let label = operation == "update all" ? "update all (1 stmt)" : "\(operation) \(count)"
            var cells = [String(size), label]
            for pair in [("store", "store.tracked"), ("other", "other.tracked")] {
                let without = samples["\(operation) \(count) \(pair.0)"] ?? Durations()
                let with = samples["\(operation) \(count) \(pair.1)"] ?? Durations()
                let ratio = with.median / without.median
                cells += [Format.summary(without), Format.summary(with), Format.ratio(ratio)]
                let metric = "\(operation.replacingOccurrences(of: " ", with: "_")).\(count)"
                reporter.record(.writes, size: size, "\(metric).\(pair.0)", without)
                reporter.record(.writes, size: size, "\(metric).\(pair.1)", with)
                reporter.record(.writes, size: size, "\(metric).\(pair.0).ratio", ratio, unit: "x")
            }
            reporter.print(table.line(cells))
        }
        try runFloors(size: size, rounds: rounds, on: plain.store, through: others[0], reporter: reporter)
        try runMemoryJournal(size: size, rounds: rounds, plain: plain.store, tracked: tracked.store, reporter: reporter)
    }

    /// The housekeeping before each write, not timed.
    static func tidy(_ store: Store, _ other: RawDatabase) throws {
        _ = try store.pollExternalChanges()
        try other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    static func measure(_ body: () throws -> Void) throws -> UInt64 {
        let start = MonotonicClock.now()
        try body()
        return MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
    }

    static func key(_ index: Int, round: Int) -> String { "w\(round)-\(index)" }

    /// The rows `keys` through the store's API, in one transaction.
    private static func write(_ operation: String, keys: Range<Int>, round: Int, to store: Store) throws {
        try store.write {
            for index in keys {
                let key = Value.string(key(index, round: round))
                switch operation {
                case "insert":
                    try store.insert("Post", ["id": key, "day": "2026-10-15", "rank": .integer(Int64(index)),
                                              "score": .double(1), "title": .string("Written \(index)"), "pinned": .bool(false)])
                case "update":
                    try store.update("Post", key: key, ["score": .double(Double(index) + 0.5)])
                default:
                    try store.delete("Post", key: key)
                }
            }
        }
    }

    /// The same rows through prepared statements of another connection, in one transaction.
    static func write(_ operation: String, keys: Range<Int>, round: Int, to database: RawDatabase) throws {
        let sql = switch operation {
        case "insert": "INSERT INTO Post(id, day, rank, score, title, pinned) VALUES (?, '2026-10-15', ?, 1.0, ?, 0)"
        case "update": "UPDATE Post SET score = ? WHERE id = ?"
        default: "DELETE FROM Post WHERE id = ?"
        }
        let statement = try database.prepare(sql)
        try database.execute("BEGIN IMMEDIATE")
        for index in keys {
            let key = key(index, round: round)
            switch operation {
            case "insert":
                statement.bind(key, at: 1)
                statement.bind(Int64(index), at: 2)
                statement.bind("Written \(index)", at: 3)
            case "update":
                statement.bind(Double(index) + 0.5, at: 1)
                statement.bind(key, at: 2)
            default:
                statement.bind(key, at: 1)
            }
            _ = try statement.step()
        }
        try database.execute("COMMIT")
    }
}
