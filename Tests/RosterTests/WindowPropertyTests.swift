import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Random stores, random windowed live queries, random transactions, random moves and
/// resizes of the windows: after every step each window must be exactly the slice of a
/// fresh fetch that it stands for, its callbacks must turn the window as last seen into
/// the new one with as few moves as possible, its batch must pass UIKit's rules, updates
/// must be exactly the rows that stay, do not move and changed, and the counts heard must
/// be the whole results' counts, heard exactly when they changed. A `LiveResults` with the
/// same request and window, on another connection, must report the same changes and counts.
@Suite("Window properties")
struct WindowPropertyTests {
    /// 24 seeds by default; `ROSTER_PROPERTY_SEEDS=500 swift test --filter WindowProperties`
    /// for a longer soak.
    /// `ROSTER_PROPERTY_SEEDS`: a count (from seed 0), or `first-last` to replay a few.
    static let seeds: [Int] = {
        let setting = ProcessInfo.processInfo.environment["ROSTER_PROPERTY_SEEDS"] ?? "24"
        let bounds = setting.split(separator: "-").compactMap { Int($0) }
        if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
        return Array(0..<(bounds.first ?? 24))
    }()

    @Test("random mutations keep every window exact", arguments: WindowPropertyTests.seeds)
    func randomMutations(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 6_113 &+ 5)
        let world = try RandomWorld(random: &random)
        var windows: [WindowWatcher] = []
        for _ in 0..<3 {
            let controller = try ResultsController(store: world.store, request: try world.randomRequest(&random))
            controller.forcedCommitPath = [nil, nil, CommitPath.refetch, .resort].randomElement(using: &random)!
            let watcher = WindowWatcher(controller: controller, live: try LiveResults(queue: world.queue, request: controller.request))
            controller.delegate = watcher.recorder
            let window = randomWindow(&random, controller: controller, world: world)
            // Half the windows open cold: set before the fetch, which reads their rows alone.
            let cold = Bool.random(using: &random)
            if cold { try controller.setWindow(window) }
            try controller.performFetch()
            if !cold { try controller.setWindow(window) }
            try watcher.live.setWindow(window)
            _ = try watcher.live.takeChange()
            _ = watcher.recorder.takeGroups()
            watcher.seen = controller.snapshot
            watcher.countsHeard = controller.window == nil ? nil : controller.counts
            watcher.countsKnown = controller.counts != nil
            try check(watcher, world: world, oldTable: world.table, newTable: world.table, context: "seed \(seed), set up")
            windows.append(watcher)
        }
        for step in 0..<60 {
            let context = "seed \(seed), step \(step)"
            let oldTable = world.table
            let action = Int.random(in: 0..<10, using: &random)
            switch action {
            case 0:
                let watcher = windows.randomElement(using: &random)!
                let window = randomWindow(&random, controller: watcher.controller, world: world)
                try watcher.controller.setWindow(window)
                try watcher.live.setWindow(window)
            case 1:
                let watcher = windows.randomElement(using: &random)!
                try watcher.controller.setSortKeys(world.randomSort(&random, section: watcher.controller.request.sectionAttribute))
                try watcher.live.setRequest(watcher.controller.request)
            case 2:
                let watcher = windows.randomElement(using: &random)!
                try watcher.controller.setPredicate(QueryPredicate(format: world.randomPredicate(&random), arguments: []))
                try watcher.live.setRequest(watcher.controller.request)
            case 3 where Int.random(in: 0..<4, using: &random) == 0:
                // A window opened cold stays cold through commits until the app loads it.
                try windows.randomElement(using: &random)!.controller.loadResults()
            default:
                try world.step(&random, step: step)
            }
            let newTable = try world.readTable()
            world.table = newTable
            try world.queue.pollExternalChanges()
            for watcher in windows {
                try check(watcher, world: world, oldTable: oldTable, newTable: newTable, context: context)
            }
        }
    }

    final class WindowWatcher {
        let controller: ResultsController
        let recorder = GroupRecorder()
        /// The same query and window as `LiveResults`, on the world's queue.
        let live: LiveResults
        var seen: [ListSection<Value, Value>] = []
        var countsHeard: ResultsCounts?
        /// Whether the controller knew its counts at the last check (a window opened cold
        /// does not until it loads the whole results).
        var countsKnown = true
        init(controller: ResultsController, live: LiveResults) {
            self.controller = controller
            self.live = live
        }
    }

    private func randomWindow(_ random: inout SplitMix64, controller: ResultsController, world: RandomWorld) -> ResultsWindow? {
        let total = world.table.count
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return nil
        case 1, 2, 3:
            return .offset(Int.random(in: 0...(total + 3), using: &random), length: Int.random(in: 0...12, using: &random))
        default:
            let rows = (try? fullSnapshot(controller, world: world).flatMap(\.items)) ?? []
            guard let anchor = rows.randomElement(using: &random) else { return .offset(0, length: 5) }
            return .anchored(key: anchor, before: Int.random(in: 0...6, using: &random), after: Int.random(in: 0...6, using: &random))
        }
    }

    private func fullSnapshot(_ controller: ResultsController, world: RandomWorld) throws -> [ListSection<Value, Value>] {
        world.expectedSnapshot(controller, table: try world.readTable())
    }

    /// The slice of `full` that `window` stands for, as sections.
    private func slice(_ full: [ListSection<Value, Value>], window: ResultsWindow?) -> (ListSectionSlice, anchorMissing: Bool) {
        let rows = full.flatMap { section in section.items.map { (key: $0, section: section.id) } }
        guard let window else { return (full, false) }
        let ranks: Range<Int>
        switch window {
        case let .offset(offset, length):
            let lower = min(offset, rows.count)
            ranks = lower..<min(rows.count, lower + length)
        case let .anchored(key, before, after):
            guard let rank = rows.firstIndex(where: { $0.key == key }) else { return ([], !rows.isEmpty) }
            ranks = max(0, rank - before)..<min(rows.count, rank + after + 1)
        }
        return (ListSection.grouping(rows[ranks]), false)
    }

    typealias ListSectionSlice = [ListSection<Value, Value>]

    private func check(_ watcher: WindowWatcher, world: RandomWorld, oldTable: [Value: [Value]], newTable: [Value: [Value]], context: String) throws {
        let controller = watcher.controller
        let full = try fullSnapshot(controller, world: world)
        let (expected, anchorMissing) = slice(full, window: controller.window)
        let new = controller.snapshot
        #expect(!anchorMissing, "\(context): the anchor \(String(describing: controller.window)) is not in the results")
        #expect(new == expected, "\(context): window \(String(describing: controller.window)) shows \(new), a fresh fetch gives \(expected)")
        #expect(controller.numberOfObjects == expected.reduce(0) { $0 + $1.items.count })
        #expect(controller.numberOfSections == expected.count)
        for (section, rows) in expected.enumerated() {
            for (item, key) in rows.items.enumerated() {
                #expect(controller.object(at: IndexPath(item: item, section: section))?.key == key, "\(context): object(at:) in the window")
                #expect(controller.indexPath(for: key) == IndexPath(item: item, section: section), "\(context): indexPath(for:) in the window")
            }
        }
        let counts = ResultsCounts(total: full.reduce(0) { $0 + $1.items.count },
                                   sections: full.map { SectionInfo(name: $0.id, numberOfObjects: $0.items.count) })
        let countsNow = controller.counts
        #expect(countsNow == nil || countsNow == counts, "\(context): counts \(String(describing: countsNow)), expected \(counts)")
        #expect(countsNow != nil || controller.window != nil, "\(context): no counts without a window")
        let heard = watcher.recorder.takeCounts()
        let loaded = !watcher.countsKnown && countsNow != nil
        if loaded {
            // A window opened cold loaded the whole results: the counts arrive.
            // (When loading came from a new request, the new request's counts follow it.)
            #expect(heard.last == counts && heard.count <= 2, "\(context): the whole results were loaded, but the counts heard are \(heard)")
        } else if let before = watcher.countsHeard, controller.window != nil {
            // Heard once exactly when they changed, and then as they are.
            #expect(heard == (before == counts ? [] : [counts]), "\(context): counts went from \(before) to \(counts); heard \(heard)")
        } else {
            #expect(heard.isEmpty, "\(context): counts heard without a window before and after")
        }
        watcher.countsHeard = controller.window == nil || countsNow == nil ? nil : counts
        watcher.countsKnown = countsNow != nil
        #expect(watcher.recorder.callbackOrderProblems.isEmpty, "\(context): \(watcher.recorder.callbackOrderProblems)")
        let groups = watcher.recorder.takeGroups()
        #expect(groups.count <= 1, "\(context): one step gave \(groups.count) groups")
        let liveChange = try watcher.live.takeChange()
        #expect(watcher.live.window == controller.window, "\(context): LiveResults' window \(String(describing: watcher.live.window))")
        #expect(watcher.live.snapshot.sections == controller.snapshot, "\(context): LiveResults shows \(watcher.live.snapshot.sections)")
        #expect(liveChange.map { $0.group.isEmpty ? nil : $0.group } ?? nil == groups.first, "\(context): LiveResults reported \(String(describing: liveChange?.group)), the controller \(String(describing: groups.first))")
        // A window still cold knows no counts; LiveResults, which holds the whole results, does.
        if !loaded && countsNow != nil {
            #expect(liveChange?.counts == heard.last, "\(context): LiveResults' counts \(String(describing: liveChange?.counts)), the controller's \(heard)")
        }
        #expect(watcher.live.counts == counts)
        let old = watcher.seen
        if let group = groups.first {
            #expect(try group.apply(to: old) == new, "\(context): callbacks applied to the window as seen do not give the new window")
            let batch = BatchAdapter().batch(for: group)
            do {
                try batch.validate(old: old, new: new)
            } catch {
                Issue.record("\(context): batch \(batch) is invalid: \(error)")
            }
            let fewest = fewestMoves(from: old, to: new)
            #expect(fewest == nil || moveCount(group) == fewest?.moves, "\(context): \(moveCount(group)) moves, but \(fewest?.moves ?? 0) suffice")
            let moved = Set(group.objectChanges.filter { $0.type == .move }.map(\.item))
            let updated = Set(group.objectChanges.filter { $0.type == .update }.map(\.item))
            let staying = Set(old.flatMap(\.items)).intersection(new.flatMap(\.items))
            let expectedUpdates = staying.subtracting(moved).filter { oldTable[$0] != newTable[$0] }
            #expect(updated == expectedUpdates, "\(context): updates \(updated) but changed values \(expectedUpdates)")
        } else {
            #expect(old == new, "\(context): the window changed but nothing was reported")
        }
        watcher.seen = new
    }
}
