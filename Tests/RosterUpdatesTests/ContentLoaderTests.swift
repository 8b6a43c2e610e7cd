import Foundation
import Testing
import RosterTestSupport
import RosterUpdates

private typealias Loader = ContentLoader<String, String>

/// Where a finished load went: the object, its content and the row that got it.
private struct Delivery: Hashable, CustomStringConvertible {
    var id: String
    var content: String
    var path: IndexPath

    var description: String { "\(id)=\(content)@\(path)" }
}

/// Loads that wait until the test opens their gate; each produces "id@version", the
/// object's version when the load entered.
///
/// Gates ignore cancellation on purpose: a cancelled load then returns content later, and
/// the loader must still never deliver it.
@MainActor
private final class Gates {
    /// The content version of each object; an update bumps it.
    var versions: [String: Int] = [:]
    /// Loads waiting at their gates, by object, oldest first.
    private var waiting: [String: [CheckedContinuation<Bool, Never>]] = [:]
    /// Hears each load that arrives at its gate.
    var onArrival: (() -> Void)?

    /// How many loads of an object wait at their gates.
    func waitingCount(_ id: String) -> Int { waiting[id]?.count ?? 0 }

    /// The objects with a load waiting at a gate.
    var waitingIDs: [String] { waiting.filter { !$0.value.isEmpty }.keys.sorted() }

    /// The load: waits at the object's gate, then succeeds or fails as the test says.
    func pass(_ id: String) async throws -> String {
        let content = "\(id)@\(versions[id, default: 0])"
        let succeeds = await withCheckedContinuation { continuation in
            waiting[id, default: []].append(continuation)
            onArrival?()
        }
        guard succeeds else { throw GateFailure(id: id) }
        return content
    }

    /// Lets the oldest waiting load of an object finish.
    func open(_ id: String, succeeding: Bool) {
        guard var queue = waiting[id], !queue.isEmpty else { return }
        let continuation = queue.removeFirst()
        waiting[id] = queue
        continuation.resume(returning: succeeding)
    }

    isolated deinit {
        for continuation in waiting.values.joined() {
            continuation.resume(returning: false)
        }
    }
}

/// The error a failing gate throws.
private struct GateFailure: Error, Hashable {
    var id: String
}

/// Drives a loader whose loads wait at ``Gates``, keeps the layout the list shows, and
/// checks every delivery against it: the row must show the delivered object at that moment,
/// the object must be visible, its load must not have been cancelled since it started, and
/// its content must be of the object's current version.
@MainActor
private final class LoaderHarness {
    let loader: Loader
    let gates: Gates
    private(set) var layout: Snapshot
    private(set) var activities: [Loader.Activity] = []
    private(set) var deliveries: [Delivery] = []
    private(set) var failures: [Delivery] = []
    private(set) var misdeliveries: [String] = []
    /// Whether each object's last start or cancellation was a start.
    private var isLoading: [String: Bool] = [:]
    private var waiters: [(condition: () -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []

    init(_ layout: Snapshot, maxConcurrentLoads: Int = 8, cacheCapacity: Int = 100, load: Loader.Load? = nil) {
        let gates = Gates()
        self.gates = gates
        self.layout = layout
        loader = Loader(maxConcurrentLoads: maxConcurrentLoads, cacheCapacity: cacheCapacity, load: load ?? { @MainActor [weak gates] id in
            guard let gates else { throw CancellationError() }
            return try await gates.pass(id)
        })
        gates.onArrival = { [unowned self] in wake() }
        loader.onActivity = { [unowned self] activity in record(activity) }
        loader.onLoaded = { [unowned self] id, content, path in
            check(id, content: content, at: path)
            deliveries.append(Delivery(id: id, content: content, path: path))
        }
        loader.onFailed = { [unowned self] id, error, path in
            check(id, content: nil, at: path)
            failures.append(Delivery(id: id, content: "\(error)", path: path))
        }
        loader.setLayout(layout)
    }

    private func record(_ activity: Loader.Activity) {
        activities.append(activity)
        switch activity {
        case .started(let id): isLoading[id] = true
        case .cancelled(let id, _): isLoading[id] = false
        default: break
        }
        wake()
    }

    private func check(_ id: String, content: String?, at path: IndexPath) {
        let shown = layout.indices.contains(path.section) && layout[path.section].items.indices.contains(path.item)
            ? layout[path.section].items[path.item] : nil
        if shown != id { misdeliveries.append("\(id) delivered to \(path), which shows \(shown ?? "nothing")") }
        if !loader.visibleIDs.contains(id) { misdeliveries.append("\(id) delivered while not visible") }
        if isLoading[id] != true { misdeliveries.append("\(id) delivered after its load was cancelled") }
        if let content, content != "\(id)@\(gates.versions[id, default: 0])" {
            misdeliveries.append("\(id) delivered stale content \(content)")
        }
    }

    /// Shows rows `[section, item]`.
    func scroll(to rows: [IndexPath]) {
        loader.setVisible(rows)
    }

    /// Changes the list to `newLayout`, bumping the versions of `updated` objects, and tells the loader.
    func change(to newLayout: Snapshot, updating updated: Set<String> = [], visible: [IndexPath]? = nil) {
        for id in updated { gates.versions[id, default: 0] += 1 }
        let group = SnapshotDiff.changes(from: layout, to: newLayout) { updated.contains($0) }
        layout = newLayout
        loader.apply(group, newLayout: newLayout, visible: visible)
    }

    /// Lets the oldest load of `id` finish, then waits until the loader has dealt with it.
    func finish(_ id: String, succeeding: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async {
        await waitUntil("a load of \(id) at its gate", sourceLocation: sourceLocation) { [unowned self] in gates.waitingCount(id) > 0 }
        let before = outcomes(of: id)
        gates.open(id, succeeding: succeeding)
        await waitUntil("the loader to handle \(id)'s result", sourceLocation: sourceLocation) { [unowned self] in outcomes(of: id) > before }
    }

    /// Waits until every object the loader is loading has a load at its gate.
    func waitForLoadsAtTheirGates(sourceLocation: SourceLocation = #_sourceLocation) async {
        await waitUntil("loads at their gates", sourceLocation: sourceLocation) { [unowned self] in
            loader.loadingIDs.allSatisfy { gates.waitingCount($0) > 0 }
        }
    }

    /// How many loads of `id` the loader delivered, reported as failed or discarded.
    func outcomes(of id: String) -> Int {
        activities.count { activity in
            switch activity {
            case .delivered(id, _), .failed(id, _), .discarded(id): true
            default: false
            }
        }
    }

    /// Waits until the condition holds, checking it after every activity and gate arrival;
    /// records an issue after two minutes. The wait ends as soon as the condition holds, so
    /// the limit only bounds a failing run: it is long because on a 2-core machine other
    /// suites (the kill tests) can hold the cooperative pool's threads for a minute or more.
    func waitUntil(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping () -> Bool) async {
        if condition() { return }
        let met = await withCheckedContinuation { continuation in
            waiters.append((condition, continuation))
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(120))
                self?.expireWaiters()
            }
        }
        if !met { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    }

    private func wake() {
        let ready = waiters.indices.filter { waiters[$0].condition() }
        for index in ready.reversed() {
            waiters.remove(at: index).continuation.resume(returning: true)
        }
    }

    private func expireWaiters() {
        let expired = waiters
        waiters.removeAll()
        for waiter in expired { waiter.continuation.resume(returning: waiter.condition()) }
    }
}

/// `[0,first]`, `[0,first+1]`, ... for `count` rows of section 0.
private func rows(_ first: Int, count: Int, section: Int = 0) -> [IndexPath] {
    (first..<(first + count)).map { path(section, $0) }
}

private func letters(_ count: Int) -> [String] {
    (0..<count).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))) }
}

/// `ContentLoader` keys loads by object: results go to the object's current row, or nowhere.
@Suite("ContentLoader")
@MainActor
struct ContentLoaderTests {
    @Test func visibleRowsStartLoadsThatDeliverToTheirRows() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(6))])
        harness.scroll(to: rows(1, count: 2))
        #expect(harness.loader.loadingIDs == ["b", "c"])
        #expect(harness.activities == [.started("b"), .started("c")])

        await harness.finish("c")
        await harness.finish("b")
        #expect(harness.deliveries == [
            Delivery(id: "c", content: "c@0", path: path(0, 2)),
            Delivery(id: "b", content: "b@0", path: path(0, 1)),
        ])
        #expect(harness.loader.content(for: "b") == "b@0")
        #expect(harness.loader.loadingIDs.isEmpty)
        #expect(harness.misdeliveries.isEmpty)
        harness.loader._checkInvariants()
    }

    @Test func cachedContentNeedsNoSecondLoad() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(6))])
        harness.scroll(to: rows(0, count: 1))
        await harness.finish("a")
        harness.scroll(to: rows(3, count: 1))
        harness.scroll(to: rows(0, count: 1))
        #expect(harness.activities.filter { $0 == .started("a") }.count == 1)
        #expect(harness.loader.content(for: "a") == "a@0")
        #expect(harness.loader.loadingIDs == [])
    }

    @Test func rowThatScrollsAwayIsCancelledAndNeverDelivered() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(10))])
        harness.scroll(to: rows(0, count: 2))
        harness.scroll(to: rows(5, count: 2))
        #expect(harness.activities.contains(.cancelled("a", .scrolledAway)))
        #expect(harness.loader.loadingIDs == ["f", "g"])

        // The gate ignores cancellation: the load returns content, which must be dropped.
        await harness.finish("a")
        #expect(harness.activities.last == .discarded("a"))
        #expect(harness.deliveries.isEmpty)
        #expect(harness.loader.content(for: "a") == nil)

        harness.scroll(to: rows(0, count: 1))
        #expect(harness.activities.filter { $0 == .started("a") }.count == 2)
        await harness.finish("a")
        #expect(harness.deliveries == [Delivery(id: "a", content: "a@0", path: path(0, 0))])
        #expect(harness.misdeliveries.isEmpty)
    }

    @Test func loadCancelledThenRestartedDeliversOnlyTheNewLoad() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.waitUntil("a at its gate") { harness.gates.waitingCount("a") == 1 }
        harness.scroll(to: rows(1, count: 1))
        harness.scroll(to: rows(0, count: 1))
        #expect(harness.activities == [.started("a"), .cancelled("a", .scrolledAway), .started("b"), .cancelled("b", .scrolledAway), .started("a")])

        // The first load of a returns while the second runs: it must neither deliver nor end the second.
        await harness.finish("a")
        #expect(harness.activities.last == .discarded("a"))
        #expect(harness.deliveries.isEmpty)
        #expect(harness.loader.loadingIDs == ["a"])
        await harness.finish("a")
        #expect(harness.deliveries == [Delivery(id: "a", content: "a@0", path: path(0, 0))])
        harness.loader._checkInvariants()
    }

    @Test func cancellationReachesTheLoadTask() async {
        let observed = CancellationObserver()
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])], load: { id in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                await observed.note(id, wasCancelled: Task.isCancelled)
                throw error
            }
            return id
        })
        harness.scroll(to: rows(0, count: 1))
        harness.scroll(to: rows(1, count: 1))
        await harness.waitUntil("a's cancelled load to return") { harness.outcomes(of: "a") == 1 }
        #expect(await observed.cancelledIDs == ["a"])
        #expect(harness.activities.prefix(3) == [.started("a"), .cancelled("a", .scrolledAway), .started("b")])
        #expect(harness.failures.isEmpty && harness.deliveries.isEmpty)
    }

    @Test func itemMovedWhileLoadingIsDeliveredToItsNewRow() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b", "c", "d"])])
        harness.scroll(to: rows(0, count: 4))
        await harness.waitUntil("a at its gate") { harness.gates.waitingCount("a") == 1 }
        harness.change(to: [ListSection(id: "s", items: ["b", "c", "a", "d"])])
        #expect(harness.loader.indexPath(of: "a") == path(0, 2))
        await harness.finish("a")
        #expect(harness.deliveries == [Delivery(id: "a", content: "a@0", path: path(0, 2))])
        #expect(!harness.activities.contains { if case .cancelled = $0 { true } else { false } })
    }

    @Test func insertAboveTheViewportShiftsDeliveriesAndTheVisibleObjects() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(10))])
        harness.scroll(to: rows(4, count: 3))
        #expect(harness.loader.visibleIDs == ["e", "f", "g"])
        harness.change(to: [ListSection(id: "s", items: ["new"] + letters(10))])
        // The rows stay put, so each shows the object above the one it showed.
        #expect(harness.loader.visibleIDs == ["d", "e", "f"])
        #expect(harness.activities.suffix(2) == [.cancelled("g", .scrolledAway), .started("d")])
        await harness.finish("f")
        await harness.finish("g")
        #expect(harness.deliveries == [Delivery(id: "f", content: "f@0", path: path(0, 6))])
        #expect(harness.misdeliveries.isEmpty)
    }

    @Test func applyCanMoveTheVisibleRowsWithTheChange() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(10))])
        harness.scroll(to: rows(4, count: 3))
        harness.change(to: [ListSection(id: "s", items: ["new"] + letters(10))], visible: rows(5, count: 3))
        #expect(harness.loader.visibleIDs == ["e", "f", "g"])
        #expect(harness.activities == [.started("e"), .started("f"), .started("g")])
    }

    @Test func deletedItemIsCancelledAndNeverDelivered() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b", "c"])])
        harness.scroll(to: rows(0, count: 2))
        await harness.waitUntil("b at its gate") { harness.gates.waitingCount("b") == 1 }
        harness.change(to: [ListSection(id: "s", items: ["a", "c"])])
        #expect(harness.activities.contains(.cancelled("b", .deleted)))
        #expect(harness.loader.loadingIDs == ["a", "c"])
        await harness.finish("b")
        #expect(harness.activities.last == .discarded("b"))
        await harness.finish("c")
        #expect(harness.deliveries == [Delivery(id: "c", content: "c@0", path: path(0, 1))])
        #expect(harness.misdeliveries.isEmpty)
    }

    @Test func deletedObjectLosesItsCachedContent() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.finish("a")
        harness.change(to: [ListSection(id: "s", items: ["b"])])
        #expect(harness.loader.content(for: "a") == nil)
        #expect(harness.loader.indexPath(of: "a") == nil)
        // Back in the list (a delete may have hidden a change of values), it loads anew.
        harness.change(to: [ListSection(id: "s", items: ["a", "b"])])
        #expect(harness.loader.loadingIDs == ["a"])
    }

    @Test func reusedRowNeverGetsThePreviousObjectsResult() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b", "c", "d", "e"])])
        harness.scroll(to: rows(0, count: 2))
        await harness.waitUntil("a at its gate") { harness.gates.waitingCount("a") == 1 }
        // a moves off screen; row [0,0] is reused for b, row [0,1] for c.
        harness.change(to: [ListSection(id: "s", items: ["b", "c", "d", "e", "a"])])
        #expect(harness.loader.visibleIDs == ["b", "c"])
        await harness.finish("a")
        await harness.finish("b")
        await harness.finish("c")
        #expect(harness.deliveries == [
            Delivery(id: "b", content: "b@0", path: path(0, 0)),
            Delivery(id: "c", content: "c@0", path: path(0, 1)),
        ])
        #expect(harness.misdeliveries.isEmpty)
    }

    @Test func swappedRowsGetEachOthersPaths() async {
        let harness = LoaderHarness([ListSection(id: "x", items: ["a"]), ListSection(id: "y", items: ["b"])])
        harness.scroll(to: [path(0, 0), path(1, 0)])
        harness.change(to: [ListSection(id: "x", items: ["b"]), ListSection(id: "y", items: ["a"])])
        await harness.finish("a")
        await harness.finish("b")
        #expect(harness.deliveries == [
            Delivery(id: "a", content: "a@0", path: path(1, 0)),
            Delivery(id: "b", content: "b@0", path: path(0, 0)),
        ])
    }

    @Test func updateInvalidatesTheCacheAndReloadsWhenVisible() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b", "c"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.finish("a")
        harness.change(to: harness.layout, updating: ["a"])
        #expect(harness.loader.content(for: "a") == nil)
        #expect(harness.loader.loadingIDs == ["a"])
        await harness.finish("a")
        #expect(harness.deliveries.map(\.content) == ["a@0", "a@1"])
        #expect(harness.loader.content(for: "a") == "a@1")
    }

    @Test func updateWhileLoadingDiscardsTheStaleLoad() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.waitUntil("a at its gate") { harness.gates.waitingCount("a") == 1 }
        harness.change(to: harness.layout, updating: ["a"])
        #expect(harness.activities == [.started("a"), .cancelled("a", .invalidated), .started("a")])
        await harness.finish("a")
        #expect(harness.activities.last == .discarded("a"))
        await harness.finish("a")
        #expect(harness.deliveries == [Delivery(id: "a", content: "a@1", path: path(0, 0))])
        #expect(harness.misdeliveries.isEmpty)
    }

    @Test func updateOfAnInvisibleObjectOnlyDropsItsContent() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.finish("a")
        harness.scroll(to: rows(1, count: 1))
        harness.change(to: harness.layout, updating: ["a"])
        #expect(harness.loader.content(for: "a") == nil)
        #expect(harness.loader.loadingIDs == ["b"])
    }

    @Test func concurrencyBoundQueuesLoadsTopToBottom() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(8))], maxConcurrentLoads: 2)
        harness.scroll(to: rows(0, count: 5).reversed())
        #expect(harness.loader.loadingIDs == ["a", "b"])
        #expect(harness.loader.queuedIDs == ["c", "d", "e"])
        await harness.finish("b")
        #expect(harness.loader.loadingIDs == ["a", "c"])
        await harness.finish("a", succeeding: false)
        #expect(harness.loader.loadingIDs == ["c", "d"])
        harness.scroll(to: rows(2, count: 2))
        #expect(harness.loader.queuedIDs.isEmpty)
        await harness.finish("c")
        await harness.finish("d")
        let peak = harness.activities.reduce(into: (running: 0, peak: 0)) { state, activity in
            switch activity {
            case .started: state.running += 1
            case .cancelled, .delivered, .failed: state.running -= 1
            case .discarded: break
            }
            state.peak = max(state.peak, state.running)
        }.peak
        #expect(peak == 2)
        harness.loader._checkInvariants()
    }

    @Test func failureIsReportedOnceAndRetriedWhenTheRowComesBack() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b"])])
        harness.scroll(to: rows(0, count: 1))
        await harness.finish("a", succeeding: false)
        #expect(harness.failures == [Delivery(id: "a", content: "\(GateFailure(id: "a"))", path: path(0, 0))])
        #expect(harness.loader.loadingIDs.isEmpty)
        harness.scroll(to: rows(0, count: 2))
        #expect(harness.loader.loadingIDs == ["b"])
        harness.scroll(to: rows(1, count: 1))
        harness.scroll(to: rows(0, count: 1))
        #expect(harness.loader.loadingIDs == ["a"])
    }

    @Test func cacheKeepsTheMostRecentlyUsedWithinItsCapacity() async {
        let harness = LoaderHarness([ListSection(id: "s", items: letters(4))], cacheCapacity: 2)
        for (index, id) in letters(3).enumerated() {
            harness.scroll(to: rows(index, count: 1))
            await harness.finish(id)
            if id == "b" { _ = harness.loader.content(for: "a") }
        }
        #expect(harness.loader.content(for: "a") == "a@0")
        #expect(harness.loader.content(for: "b") == nil)
        #expect(harness.loader.content(for: "c") == "c@0")
        harness.loader._checkInvariants()
    }

    @Test func callbacksMayCallBackIntoTheLoader() async {
        let harness = LoaderHarness([ListSection(id: "s", items: ["a", "b", "c"])], maxConcurrentLoads: 1)
        harness.scroll(to: rows(0, count: 2))
        // When a's content lands, the screen scrolls to c. The loader started b, next in line,
        // before it called back (callbacks see a consistent state), so b is cancelled again.
        harness.loader.onLoaded = { [loader = harness.loader] _, _, _ in
            loader._checkInvariants()
            loader.setVisible([path(0, 2)])
        }
        await harness.finish("a")
        #expect(harness.loader.loadingIDs == ["c"])
        #expect(harness.activities == [.started("a"), .delivered("a", path(0, 0)), .started("b"), .cancelled("b", .scrolledAway), .started("c")])
        await harness.finish("b")
        #expect(harness.activities.last == .discarded("b"))
        harness.loader._checkInvariants()
    }

    /// Seeded random scrolling, inserts, deletes, moves, updates, successes and failures;
    /// every delivery is checked against the layout, and the invariants after every step.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomChangesNeverMisdeliver(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        var nextName = 0
        func newName() -> String {
            nextName += 1
            return "n\(nextName)"
        }
        let start: Snapshot = [ListSection(id: "x", items: (0..<8).map { _ in newName() }),
                               ListSection(id: "y", items: (0..<8).map { _ in newName() })]
        let harness = LoaderHarness(start, maxConcurrentLoads: 3, cacheCapacity: 6)
        for _ in 0..<300 {
            var layout = harness.layout
            let section = Int.random(in: 0..<layout.count, using: &random)
            switch Int.random(in: 0..<14, using: &random) {
            case 0:
                layout[section].items.insert(newName(), at: Int.random(in: 0...layout[section].items.count, using: &random))
                harness.change(to: layout)
            case 1 where layout[section].items.count > 1:
                layout[section].items.remove(at: Int.random(in: layout[section].items.indices, using: &random))
                harness.change(to: layout)
            case 2:
                let moved = layout[section].items.remove(at: Int.random(in: layout[section].items.indices, using: &random))
                let target = Int.random(in: 0..<layout.count, using: &random)
                layout[target].items.insert(moved, at: Int.random(in: 0...layout[target].items.count, using: &random))
                if layout[section].items.isEmpty { layout[section].items.append(newName()) }
                harness.change(to: layout)
            case 3:
                harness.change(to: layout, updating: [layout[section].items.randomElement(using: &random)!])
            case 4, 5:
                let first = Int.random(in: 0..<layout[section].items.count, using: &random)
                harness.scroll(to: rows(first, count: 4, section: section))
            default:
                await harness.waitForLoadsAtTheirGates()
                if let id = harness.gates.waitingIDs.randomElement(using: &random) {
                    await harness.finish(id, succeeding: Int.random(in: 0..<5, using: &random) > 0)
                }
            }
            harness.loader._checkInvariants()
        }
        await harness.waitForLoadsAtTheirGates()
        while let id = harness.gates.waitingIDs.first {
            await harness.finish(id)
            await harness.waitForLoadsAtTheirGates()
        }
        #expect(harness.loader.loadingIDs.isEmpty)
        #expect(harness.misdeliveries == [])
        #expect(harness.deliveries.count > 10)
        #expect(harness.activities.contains { if case .discarded = $0 { true } else { false } })
        harness.loader._checkInvariants()
    }
}

/// Records which loads saw their task cancelled.
private actor CancellationObserver {
    private(set) var cancelledIDs: [String] = []

    func note(_ id: String, wasCancelled: Bool) {
        if wasCancelled { cancelledIDs.append(id) }
    }
}
