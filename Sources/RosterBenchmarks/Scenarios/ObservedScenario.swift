import Roster

/// `observed`: a one-row commit until an ``ObservedResults`` has published it (its
/// `refresh()`: the change taken and each property that changed set), against the same
/// commit taken by a ``LiveResults`` with the same window in the same run — what the
/// observable layer adds.
///
/// Both show a window of 100 rows in the middle of the results. Each commit changes a row
/// the window shows: its title (an update in place) or its rank (a move, within the window
/// or out of it, another row sliding in). The two take the commit in turns, first one then
/// the other, so neither always finds the caches warm; each must name the row written, and
/// their windows must agree.
enum ObservedScenario {
    static let table = TextTable([("N", 9), ("LiveResults takeChange()", 32), ("ObservedResults refresh()", 32), ("added (p50)", 12)])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("observed: a one-row commit to a window of 100, until ObservedResults has published it,")
        reporter.print("  against LiveResults taking the same commit; ms as median / p95 / p99 / max")
        table.header.forEach(reporter.print)
        // `roster bench` runs on the main thread, synchronously: the main actor's own thread,
        // so the reporter never leaves it (it is not Sendable, hence the unchecked handover).
        nonisolated(unsafe) let reporter = reporter
        for size in configuration.sizes {
            try MainActor.assumeIsolated {
                try run(size: size, iterations: configuration.iterations, reporter: reporter)
            }
        }
    }

    @MainActor
    private static func run(size: Int, iterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("observed N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let queue = try StoreQueue(path: fixture.store.path)
        let window = ResultsWindow.offset(size / 2, length: 100)
        let live = try LiveResults(queue: queue, request: PostFixture.request)
        try live.setWindow(window)
        _ = try live.takeChange()
        let observed = try ObservedResults(queue: queue, request: PostFixture.request, window: window)
        var random = SeededGenerator(seed: UInt64(size) &+ 11)
        var liveTimes = Durations()
        var observedTimes = Durations()
        reporter.progress("observed N=\(size): \(iterations) commits")
        for iteration in 0..<iterations {
            let shown = live.snapshot.itemIdentifiers
            guard let key = shown.randomElement(using: &random) else { break }
            let values: [String: Value] = iteration % 2 == 0
                ? ["rank": .integer(Int64.random(in: 0..<PostFixture.rankRange, using: &random))]
                : ["title": .string("Observed \(iteration)")]
            try queue.write { store in try store.update("Post", key: key, values) }

            func takeLive() throws -> Bool {
                let start = MonotonicClock.now()
                let change = try live.takeChange()
                liveTimes.append(MonotonicClock.elapsed(from: start, to: MonotonicClock.now()))
                return change?.group.objectChanges.contains { $0.item == key } == true
            }
            func takeObserved() -> Bool {
                let before = observed.lastChange
                let start = MonotonicClock.now()
                observed.refresh()
                observedTimes.append(MonotonicClock.elapsed(from: start, to: MonotonicClock.now()))
                guard let change = observed.lastChange, before.map({ $0.snapshot != change.snapshot || $0.group != change.group }) ?? true else { return false }
                return change.group.objectChanges.contains { $0.item == key }
            }
            let liveSaw: Bool, observedSaw: Bool
            if iteration % 2 == 0 {
                liveSaw = try takeLive()
                observedSaw = takeObserved()
            } else {
                observedSaw = takeObserved()
                liveSaw = try takeLive()
            }
            // A move out of the window is a delete there; a rank change that leaves the row in
            // place is an update; either way the row written is named.
            if !liveSaw || !observedSaw {
                reporter.mismatch(.observed, size: size, "commit #\(iteration) to \(key): LiveResults \(liveSaw ? "named" : "missed") it, ObservedResults \(observedSaw ? "named" : "missed") it")
            }
            if observed.sections.map({ Array($0.keys) }) != live.snapshot.sections.map(\.items) {
                reporter.mismatch(.observed, size: size, "commit #\(iteration): the two windows differ")
            }
        }
        withExtendedLifetime((live, observed)) {}
        try measureRequests(size: size, queue: queue, reporter: reporter)
        let added = observedTimes.median - liveTimes.median
        reporter.print(table.line([String(size), Format.summary(liveTimes), Format.summary(observedTimes), Format.milliseconds(added)]))
        reporter.record(.observed, size: size, "live_results.take_change", liveTimes)
        reporter.record(.observed, size: size, "observed_results.refresh", observedTimes)
        reporter.record(.observed, size: size, "observed_results.added_median", added, unit: "ms")
    }

    /// A search typed into whole results: `LiveResults.setRequest` with a new predicate and
    /// `takeChange()`, until the change is in hand, against a `ResultsController` fetching
    /// the new request alone (what any request change must at least read).
    private static func measureRequests(size: Int, queue: StoreQueue, reporter: BenchmarkReporter) throws {
        let live = try LiveResults(queue: queue, request: PostFixture.request)
        var requests = Durations()
        var refetches = Durations()
        for round in 0..<6 {
            var request = PostFixture.request
            // Every tenth post, then all of them again.
            request.predicate = round % 2 == 0 ? try QueryPredicate("pinned == YES") : .all
            let start = MonotonicClock.now()
            try live.setRequest(request)
            let change = try live.takeChange()
            requests.append(MonotonicClock.elapsed(from: start, to: MonotonicClock.now()))
            if change == nil { reporter.mismatch(.observed, size: size, "request change #\(round): no change") }
            let refetchStart = MonotonicClock.now()
            let fetched = request
            let rows = try queue.read { store in
                let controller = try ResultsController(store: store, request: fetched)
                try controller.performFetch()
                return controller.numberOfObjects
            }
            refetches.append(MonotonicClock.elapsed(from: refetchStart, to: MonotonicClock.now()))
            if rows != live.snapshot.numberOfItems { reporter.mismatch(.observed, size: size, "request change #\(round): \(live.snapshot.numberOfItems) rows, the re-fetch \(rows)") }
        }
        reporter.print("  request change (whole results, every tenth post and back), N=\(size): \(Format.summary(requests)) ms; a controller's fetch alone \(Format.summary(refetches)) ms")
        reporter.record(.observed, size: size, "live_results.request_change", requests)
        reporter.record(.observed, size: size, "request_refetch", refetches)
    }
}
