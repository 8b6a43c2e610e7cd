import Roster

/// `memory`: the bytes a row that a live query's results hold, for a ``ResultsController``
/// (the incremental engine: keys and sort values only), for a ``LiveResults`` (every
/// whole row, so that its objects never come from a newer commit) and for an
/// ``ObservedResults`` (its own live results, and what it publishes), against the floor:
/// raw sqlite3 reading the key and sort columns into typed Swift arrays.
///
/// The query is the scenarios' one, sorted on two attributes (day, rank) and the key. Each
/// figure is taken twice: the bytes the allocator has handed out and not taken back (what
/// the structure holds), and the growth of the resident size (what the process pays, with
/// the freed memory the allocator keeps). All stay alive until all are measured, so
/// none reuses memory another freed.
enum MemoryScenario {
    static let table = TextTable([
        ("N", 9), ("floor held", 20), ("controller held", 20), ("resident", 20), ("LiveResults held", 20), ("resident", 20),
        ("ObservedResults held", 22), ("resident", 20), ("cold window of 100 held", 24),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("memory: bytes a row held by a live query's results (sorted on day, rank, then the key)")
        reporter.print("  held: the allocator's bytes in use; resident: growth of the resident size")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, reporter: reporter)
        }
    }

    /// Heap in use and resident size, before and after one allocation.
    struct Growth {
        var held: Double?
        var resident: Double?

        static func of<T>(_ make: () throws -> T) rethrows -> (T, Growth) {
            let (heapBefore, residentBefore) = (HeapMemory.bytesInUse(), ResidentMemory.bytes())
            let result = try make()
            let (heapAfter, residentAfter) = (HeapMemory.bytesInUse(), ResidentMemory.bytes())
            func difference(_ before: Int?, _ after: Int?) -> Double? {
                guard let before, let after else { return nil }
                return Double(after - before)
            }
            return (result, Growth(held: difference(heapBefore, heapAfter), resident: difference(residentBefore, residentAfter)))
        }
    }

    private static func run(size: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("memory N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let database = try RawDatabase(path: fixture.store.path)
        let queue = try StoreQueue(path: fixture.store.path)
        reporter.progress("memory N=\(size): measuring")

        let (floor, floorGrowth) = try Growth.of { try FetchScenario.FloorRows.read(database) }
        let (controller, controllerGrowth) = try Growth.of {
            let controller = try ResultsController(store: fixture.store, request: PostFixture.request)
            try controller.performFetch()
            return controller
        }
        let (live, liveGrowth) = try Growth.of { try LiveResults(queue: queue, request: PostFixture.request) }
        // ObservedResults over LiveResults of its own: what the view's object holds in all.
        // `roster bench` runs on the main thread: the main actor's.
        let (observed, observedGrowth) = try MainActor.assumeIsolated {
            try Growth.of { try ObservedResults(queue: queue, request: PostFixture.request) }
        }
        let observedCount = MainActor.assumeIsolated { observed.objects.count }
        // A window of 100 in the middle, opened cold: O(window), whatever the size.
        let (cold, coldGrowth) = try MainActor.assumeIsolated {
            try Growth.of { try ObservedResults(queue: queue, request: PostFixture.request, coldWindow: .offset(size / 2, length: 100)) }
        }
        let coldCount = MainActor.assumeIsolated { cold.objects.count }
        if coldCount != min(100, size) {
            reporter.mismatch(.memory, size: size, "the cold window shows \(coldCount) rows; expected \(min(100, size))")
        }
        let liveCount = live.snapshot.numberOfItems
        if floor.ids.count != size || controller.numberOfObjects != size || liveCount != size || observedCount != size {
            reporter.mismatch(.memory, size: size, "floor read \(floor.ids.count) rows, the controller holds \(controller.numberOfObjects), LiveResults \(liveCount), ObservedResults \(observedCount); expected \(size)")
        }
        withExtendedLifetime((floor, controller, live, observed, cold, queue)) {}

        func perRow(_ bytes: Double?) -> String {
            guard let bytes else { return "-" }
            return "\(Format.bytes(bytes)) (\(Format.fixed(bytes / Double(size), decimals: 0)) B/row)"
        }
        reporter.print(table.line([
            String(size), perRow(floorGrowth.held), perRow(controllerGrowth.held), perRow(controllerGrowth.resident),
            perRow(liveGrowth.held), perRow(liveGrowth.resident), perRow(observedGrowth.held), perRow(observedGrowth.resident),
            coldGrowth.held.map(Format.bytes) ?? "-",
        ]))
        reporter.record(.memory, size: size, "observed_results_cold_window.held", coldGrowth.held ?? .nan, unit: "bytes")
        for (name, growth) in [("floor", floorGrowth), ("results_controller", controllerGrowth), ("live_results", liveGrowth),
                               ("observed_results", observedGrowth)] {
            reporter.record(.memory, size: size, "\(name).held_per_row", (growth.held ?? .nan) / Double(size), unit: "bytes/row")
            reporter.record(.memory, size: size, "\(name).resident_growth_per_row", (growth.resident ?? .nan) / Double(size), unit: "bytes/row")
        }
    }
}
