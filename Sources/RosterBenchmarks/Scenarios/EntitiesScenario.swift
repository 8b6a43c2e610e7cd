import Foundation
import Roster

/// `entities`: defining N entities and watching each with a live query, in a new file,
/// against SQLite's own cost of the same schema (issue 37).
///
/// - Roster: `Store.define(_:)` with the N entities (one transaction), then
///   `Store.startTracking(_:)` with their names (their change logs, one more), then a
///   `ResultsController` on each entity, fetched: from the store opened to the N-th
///   `performFetch()` returned (the store's own tables, made when it opens, are not in it).
/// - The floor: raw sqlite3 on another new file running, in one transaction, the very
///   `CREATE` statements that Roster's run left in `sqlite_schema` (the entities' tables
///   and their change logs' triggers, in the order Roster made them): what any library
///   that makes these objects pays SQLite.
///
/// Each round makes both in new files, taking turns at going first; after Roster's, one
/// commit to the last entity must reach its live query, and the file must hold one table
/// and three triggers an entity (their keys are strings, so one trigger logs inserts and
/// replaces alike; else a mismatch is reported).
enum EntitiesScenario {
    static let table = TextTable([
        ("N", 9), ("define ms", 30), ("watch ms", 30), ("Roster ms", 30), ("floor ms", 30), ("Roster/floor", 12),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("entities: define N entities (one batch) and watch each with a live query, in a new file; ms as median / p95 / p99 / max")
        reporter.print("  define = Store.define([Entity]); watch = Store.startTracking(names) + a ResultsController on each, fetched;")
        reporter.print("  Roster = both; floor = raw sqlite3 running the same CREATE statements (tables, triggers) in one transaction;")
        reporter.print("  the ratio compares medians")
        table.header.forEach(reporter.print)
        for count in configuration.entityCounts {
            try run(count: count, rounds: rounds(count, configuration), directory: configuration.storeDirectory, reporter: reporter)
        }
    }

    /// Rounds at each count: fewer where one round takes many seconds.
    static func rounds(_ count: Int, _ configuration: BenchmarkConfiguration) -> Int {
        count >= 3_000 ? 3 : configuration.rounds
    }

    /// The entity number `index`: a small one, as an app with many kinds of records defines.
    static func entity(_ index: Int) throws -> Entity {
        try Entity("E\(index)", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer)])
    }

    private static func run(count: Int, rounds: Int, directory: String?, reporter: BenchmarkReporter) throws {
        let entities = try (0..<count).map(entity)
        var define = Durations()
        var watch = Durations()
        var roster = Durations()
        var floor = Durations()
        var statements: [String] = []
        for round in 0..<rounds {
            reporter.progress("entities N=\(count): round \(round + 1) of \(rounds)")
            // Roster goes first in the first round: its file gives the floor its statements;
            // then they take turns at going first.
            for turn in 0..<2 {
                let folder = try newFolder(in: directory)
                defer { try? FileManager.default.removeItem(at: folder) }
                let path = folder.appendingPathComponent("store.sqlite").path
                if (round + turn) % 2 == 0 {
                    let (defined, watched) = try measureRoster(entities, at: path, count: count, reporter: reporter)
                    define.append(defined)
                    watch.append(watched)
                    roster.append(defined + watched)
                    if statements.isEmpty { statements = try creations(in: path) }
                } else {
                    floor.append(try measureFloor(statements, at: path))
                }
            }
        }
        let ratio = roster.median / floor.median
        reporter.print(table.line([String(count), Format.summary(define), Format.summary(watch), Format.summary(roster),
                                   Format.summary(floor), Format.ratio(ratio)]))
        reporter.record(.entities, size: count, "roster.define", define)
        reporter.record(.entities, size: count, "roster.watch", watch)
        reporter.record(.entities, size: count, "roster.define_and_watch", roster)
        reporter.record(.entities, size: count, "floor.ddl", floor)
        reporter.record(.entities, size: count, "ratio.roster_over_floor", ratio, unit: "x")
        reporter.record(.entities, size: count, "floor.statements", Double(statements.count), unit: "count")
    }

    /// Defines and watches the entities in a new store at `path`.
    ///
    /// - Returns: the nanoseconds the definitions took and those the watching took.
    private static func measureRoster(_ entities: [Entity], at path: String, count: Int, reporter: BenchmarkReporter) throws -> (UInt64, UInt64) {
        let store = try Store(path: path)
        let start = MonotonicClock.now()
        try store.define(entities)
        let defined = MonotonicClock.now()
        try store.startTracking(entities.map(\.name))
        var controllers: [ResultsController] = []
        controllers.reserveCapacity(entities.count)
        for entity in entities {
            let controller = try ResultsController(store: store, request: FetchRequest(entity: entity.name, sortKeys: [SortKey("rank")]))
            try controller.performFetch()
            controllers.append(controller)
        }
        let watched = MonotonicClock.now()
        // Not timed: the live queries hear a commit, and the file holds what the floor makes.
        let last = entities[entities.count - 1].name
        try store.insert(last, ["id": "a", "title": "A", "rank": 1])
        if controllers[controllers.count - 1].numberOfObjects != 1 {
            reporter.mismatch(.entities, size: count, "the live query on \(last) did not hear an insert")
        }
        let objects = try RawDatabase(path: path).text("SELECT count(*) FILTER (WHERE type = 'table' AND name NOT LIKE '\\_roster%' ESCAPE '\\') || ' ' || count(*) FILTER (WHERE type = 'trigger' AND name NOT LIKE '\\_roster\\_changes%' ESCAPE '\\') FROM sqlite_schema")
        if objects != "\(count) \(3 * count)" {
            reporter.mismatch(.entities, size: count, "the file holds \(objects ?? "?") tables and triggers, not \(count) and \(3 * count)")
        }
        withExtendedLifetime(controllers) {}
        return (MonotonicClock.elapsed(from: start, to: defined), MonotonicClock.elapsed(from: defined, to: watched))
    }

    /// The `CREATE` statements of the entities' tables, indexes and triggers in a file
    /// Roster made, in the order it made them: every object a new store does not have.
    private static func creations(in path: String) throws -> [String] {
        let database = try RawDatabase(path: path)
        let statement = try database.prepare("""
            SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT IN
                ('_roster_entities', '_roster_changes', '_roster_meta', '_roster_log_marks', '_roster_changes_removed')
            ORDER BY rowid
            """)
        var statements: [String] = []
        while try statement.step() { statements.append(statement.text(0)) }
        return statements
    }

    /// Runs the statements in one transaction on a new file, with the store's settings.
    private static func measureFloor(_ statements: [String], at path: String) throws -> UInt64 {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let database = try RawDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        let start = MonotonicClock.now()
        try database.execute("BEGIN IMMEDIATE")
        for statement in statements { try database.execute(statement) }
        try database.execute("COMMIT")
        return MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
    }

    private static func newFolder(in directory: String?) throws -> URL {
        let base = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("roster-bench-entities-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
