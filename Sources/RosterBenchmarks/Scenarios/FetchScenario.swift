import Roster

/// `fetch`: how long `ResultsController.performFetch()` takes and how much resident memory
/// its results hold, against the floor: raw sqlite3 stepping the same ordered query and
/// reading only the key and sort columns into Swift arrays.
///
/// Each side runs ``runs`` times; the table and the JSON give median, p95, p99 and max of
/// the runs (with five runs p95, p99 and max are the slowest run). Memory is the growth of the
/// process's resident size over the first run of each, with the floor's arrays still alive
/// while Roster fetches, so neither reuses memory the other freed.
enum FetchScenario {
    static let runs = 5
    static let floorSelect = "SELECT id, day, rank FROM Post ORDER BY day DESC, rank, id"

    static let table = TextTable([
        ("N", 9), ("performFetch ms", 30), ("floor ms", 30), ("ratio", 7),
        ("Roster memory", 22), ("floor memory", 20), ("ratio", 7),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("fetch: performFetch() against raw sqlite3 reading id, day, rank into Swift arrays")
        reporter.print("  time: ms as median / p95 / p99 / max of \(runs) runs (ratio of medians); memory: resident growth over the first run (ratios: Roster / floor)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, reporter: reporter)
        }
    }

    /// The floor's result: the key and sort columns, nothing else.
    struct FloorRows {
        var ids: [String] = []
        var days: [String] = []
        var ranks: [Int64] = []

        static func read(_ database: RawDatabase) throws(BenchmarkError) -> FloorRows {
            let statement = try database.prepare(floorSelect)
            var rows = FloorRows()
            while try statement.step() {
                rows.ids.append(statement.text(0))
                rows.days.append(statement.text(1))
                rows.ranks.append(statement.int64(2))
            }
            return rows
        }
    }

    private static func run(size: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("fetch N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let database = try RawDatabase(path: fixture.store.path)
        reporter.progress("fetch N=\(size): measuring")

        var floorTimes = Durations()
        var rosterTimes = Durations()
        // First runs, for memory too: both results stay alive until both are measured.
        let floorBefore = ResidentMemory.bytes()
        let (floor, floorTime) = try MonotonicClock.measure { try FloorRows.read(database) }
        let floorAfter = ResidentMemory.bytes()
        floorTimes.append(floorTime)

        let rosterBefore = ResidentMemory.bytes()
        let controller = try ResultsController(store: fixture.store, request: PostFixture.request)
        rosterTimes.append(try MonotonicClock.measure { try controller.performFetch() }.nanoseconds)
        let rosterAfter = ResidentMemory.bytes()

        if floor.ids.count != size || controller.numberOfObjects != size || controller.numberOfSections != PostFixture.days.count {
            reporter.mismatch(.fetch, size: size, "floor read \(floor.ids.count) rows, performFetch \(controller.numberOfObjects) in \(controller.numberOfSections) sections; expected \(size) in \(PostFixture.days.count)")
        }
        for _ in 1..<runs {
            floorTimes.append(try MonotonicClock.measure { try FloorRows.read(database) }.nanoseconds)
            let again = try ResultsController(store: fixture.store, request: PostFixture.request)
            rosterTimes.append(try MonotonicClock.measure { try again.performFetch() }.nanoseconds)
        }
        withExtendedLifetime((floor, controller)) {}

        func growth(_ before: Int?, _ after: Int?) -> Double? {
            guard let before, let after else { return nil }
            return Double(after - before)
        }
        let floorGrowth = growth(floorBefore, floorAfter)
        let rosterGrowth = growth(rosterBefore, rosterAfter)
        let timeRatio = rosterTimes.median / floorTimes.median
        let memoryRatio = (rosterGrowth ?? .nan) / (floorGrowth ?? .nan)
        func memory(_ growth: Double?) -> String {
            guard let growth else { return "-" }
            return "\(Format.bytes(growth)) (\(Format.fixed(growth / Double(size), decimals: 0)) B/row)"
        }
        reporter.print(table.line([
            String(size), Format.summary(rosterTimes), Format.summary(floorTimes), Format.ratio(timeRatio),
            memory(rosterGrowth), memory(floorGrowth), Format.ratio(memoryRatio),
        ]))

        reporter.record(.fetch, size: size, "populate", Double(fixture.populateNanoseconds) / 1_000_000, unit: "ms")
        reporter.record(.fetch, size: size, "roster.perform_fetch", rosterTimes)
        reporter.record(.fetch, size: size, "floor.fetch", floorTimes)
        reporter.record(.fetch, size: size, "ratio.time.roster_over_floor", timeRatio, unit: "x")
        reporter.record(.fetch, size: size, "roster.resident_growth", rosterGrowth ?? .nan, unit: "bytes")
        reporter.record(.fetch, size: size, "roster.resident_growth_per_row", (rosterGrowth ?? .nan) / Double(size), unit: "bytes/row")
        reporter.record(.fetch, size: size, "floor.resident_growth", floorGrowth ?? .nan, unit: "bytes")
        reporter.record(.fetch, size: size, "floor.resident_growth_per_row", (floorGrowth ?? .nan) / Double(size), unit: "bytes/row")
        reporter.record(.fetch, size: size, "ratio.memory.roster_over_floor", memoryRatio, unit: "x")
    }
}
