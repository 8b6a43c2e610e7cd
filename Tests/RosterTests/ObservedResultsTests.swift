import Foundation
import Observation
import RosterTestSupport
import Testing
@testable import Roster

/// ``ObservedResults``: which properties notify, and when, through `withObservationTracking`
/// as SwiftUI observes them, on the main actor.
@MainActor
@Suite("Observed results")
struct ObservedResultsTests {
    /// The properties a view reads, by name.
    static let properties: [(String, (ObservedResults) -> Void)] = [
        ("sections", { _ = $0.sections }), ("objects", { _ = $0.objects }), ("counts", { _ = $0.counts }),
        ("aggregates", { _ = $0.aggregates }), ("lastChange", { _ = $0.lastChange }), ("error", { _ = $0.error }),
        ("window", { _ = $0.window }), ("request", { _ = $0.request }),
    ]

    /// Which properties notified while `step` ran: each observed on its own, as a view
    /// that reads only it would be.
    func notified(_ results: ObservedResults, by step: () throws -> Void) rethrows -> Set<String> {
        let fired = Fired()
        for (name, read) in Self.properties {
            withObservationTracking { read(results) } onChange: { fired.add(name) }
        }
        try step()
        return fired.names
    }

    final class Fired: @unchecked Sendable {
        private let lock = NSLock()
        private var set: Set<String> = []
        func add(_ name: String) { lock.withLock { _ = set.insert(name) } }
        var names: Set<String> { lock.withLock { set } }
    }

    func makeQueue(posts: Int = 6) throws -> StoreQueue {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in
            for index in 0..<posts {
                try store.insert("Post", ["id": .string("p\(index)"), "title": .string("t\(index)"), "day": .string("d\(index % 2)"),
                                          "rank": .integer(Int64(index)), "pinned": .bool(index == 0)])
            }
        }
        return queue
    }

    let byDay = FetchRequest(entity: "Post", predicate: try! QueryPredicate("pinned == NO"),
                             sortKeys: [SortKey("day"), SortKey("rank")], sectionAttribute: "day")

    /// Waits, giving the main actor away, until `condition` holds. The bound is loose: other
    /// suites' main-actor tests may hold the main actor for a minute and more.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "timed out")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    func shownKeys(_ results: ObservedResults) -> [[Value]] { results.sections.map { Array($0.keys) } }

    @Test func itShowsWhatAControllerFetches() throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        #expect(shownKeys(results) == [["p2", "p4"], ["p1", "p3", "p5"]])
        #expect(results.sections.map(\.title) == ["d0", "d1"])
        #expect(results.objects.map(\.key) == ["p2", "p4", "p1", "p3", "p5"])
        #expect(results.objects[2]["title"] == "t1")
        #expect(results.sections[1].objects[0].key == "p1")
        #expect(results.counts?.total == 5)
        #expect(results.lastChange == nil && results.error == nil && results.window == nil)
    }

    @Test func aCommitToAShownRowNotifiesTheRowsAndTheChangeOnly() throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        let fired = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p3", ["title": "new"]) }
            results.refresh()
        }
        #expect(fired == ["sections", "objects", "lastChange"])
        #expect(results.lastChange?.group.objectChanges.map(\.item) == ["p3"])
        #expect(results.objects.first { $0.key == "p3" }?["title"] == "new")
    }

    @Test func aCommitThatTouchesNothingShownNotifiesNothing() throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        let fired = try notified(results) {
            // p0 is pinned: outside the predicate, before and after.
            try queue.write { store in try store.update("Post", key: "p0", ["title": "unseen"]) }
            results.refresh()
        }
        #expect(fired.isEmpty)
        #expect(shownKeys(results) == [["p2", "p4"], ["p1", "p3", "p5"]])
    }

    @Test func rowsArrivingOutsideAWindowNotifyCountsAlone() throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay, window: .offset(0, length: 2))
        #expect(shownKeys(results) == [["p2", "p4"]])
        let fired = try notified(results) {
            try queue.write { store in try store.insert("Post", ["id": "p9", "day": "d1", "rank": 9, "pinned": false]) }
            results.refresh()
        }
        #expect(fired == ["counts"])
        #expect(results.counts?.total == 6)
        #expect(shownKeys(results) == [["p2", "p4"]])
    }

    @Test func anAggregateChangeOutsideTheDisplayedAttributesNotifiesAggregatesAlone() throws {
        let queue = try makeQueue()
        var request = FetchRequest(entity: "Post", sortKeys: [SortKey("title")], displayedAttributes: ["title"])
        request.aggregates = [.sum("ranks", of: "rank")]
        let results = try ObservedResults(queue: queue, request: request)
        #expect(results.aggregates?["ranks"] == .integer(15))
        let fired = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p1", ["rank": 11]) }
            results.refresh()
        }
        #expect(fired == ["aggregates"])
        #expect(results.aggregates?["ranks"] == .integer(25))
    }

    @Test func anAnchoredWindowKeepsTheUsersPlaceWhenRowsArriveAbove() throws {
        let queue = try makeQueue()
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
        let results = try ObservedResults(queue: queue, request: request, window: .anchored(key: "p3", before: 1, after: 1))
        #expect(shownKeys(results) == [["p2", "p3", "p4"]])
        let fired = try notified(results) {
            try queue.write { store in
                try store.insert("Post", ["id": "a1", "rank": -2])
                try store.insert("Post", ["id": "a2", "rank": -1])
            }
            results.refresh()
        }
        #expect(fired == ["counts"], "the rows shown did not change")
        #expect(shownKeys(results) == [["p2", "p3", "p4"]])
        #expect(results.counts?.total == 8)
        // The view moves the window: its rows arrive at once.
        results.window = .offset(0, length: 2)
        #expect(shownKeys(results) == [["a1", "a2"]])
        #expect(results.error == nil)
    }

    @Test func aWindowThatDoesNotFitSetsTheErrorAndKeepsTheRows() throws {
        let queue = try makeQueue()
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
        let results = try ObservedResults(queue: queue, request: request, window: .offset(0, length: 2))
        let fired = notified(results) { results.window = .anchored(key: "nobody", before: 1, after: 1) }
        #expect(fired == ["error"])
        #expect(results.error?.code == .invalidWindow)
        #expect(shownKeys(results) == [["p0", "p1"]])
        results.window = .offset(1, length: 2)
        #expect(results.error == nil)
        #expect(shownKeys(results) == [["p1", "p2"]])
    }

    @Test func aRequestSetByTheViewIsAppliedOffTheMainActorAndArrivesAsAChange() async throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        let fired = notified(results) { results.setSortKeys([SortKey("day"), SortKey("rank", ascending: false)]) }
        #expect(fired == ["request"], "the request is the view's at once; the rows follow")
        try await eventually { shownKeys(results) == [["p4", "p2"], ["p5", "p3", "p1"]] }
        #expect(results.lastChange?.group.objectChanges.contains { $0.type == .move } == true)
        #expect(results.error == nil)
    }

    @Test func aHalfTypedPredicateSetsTheErrorAndLeavesTheResults() async throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        let before = results.request
        let fired = notified(results) { results.setPredicate(format: "title BEGINSWITH") }
        #expect(fired == ["error"])
        #expect(results.error?.code == .predicate)
        #expect(results.request == before)
        // Parses, but names no attribute of Post: the store refuses it, off the main actor.
        results.setPredicate(format: "titel == 'a'")
        try await eventually { !results.isApplyingRequest }
        let refused = try #require(results.error)
        #expect(refused.description.contains("titel"), "\(refused)")
        #expect(shownKeys(results) == [["p2", "p4"], ["p1", "p3", "p5"]])
        // The next request that fits clears it.
        results.setPredicate(format: "title BEGINSWITH %@", "t1")
        try await eventually { shownKeys(results) == [["p1"]] }
        #expect(results.error == nil)
    }

    @Test func fastTypingAppliesTheLatestRequestAndDropsTheStaleOnes() async throws {
        let queue = try makeQueue(posts: 40)
        let results = try ObservedResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        for length in 1...30 {
            results.setPredicate(format: "rank < %@", .integer(Int64(length)))
        }
        try await eventually { results.objects.count == 30 }
        try await eventually { !results.isApplyingRequest }
        #expect(results.appliedRequestCount == 1, "all were set before the first could run: only the last is applied")
        #expect(results.objects.map(\.key) == (0..<30).map { Value.string("p\($0)") })
    }

    @Test func aFailedDeliverySetsTheErrorKeepsTheRowsAndTheResyncComesBackToTheTruth() throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in try store.insert("Post", ["id": "p1", "rank": 1]) }
        let results = try ObservedResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let other = try ExternalConnection(path: queue.path)
        try other.execute("ALTER TABLE Post RENAME TO Hidden; INSERT INTO Hidden(id, rank) VALUES ('p0', 0)")
        try queue.pollExternalChanges()
        let fired = notified(results) { results.refresh() }
        #expect(fired == ["error"])
        #expect(shownKeys(results) == [["p1"]])

        try other.execute("ALTER TABLE Hidden RENAME TO Post")
        try queue.pollExternalChanges()
        let after = notified(results) { results.refresh() }
        #expect(after == ["sections", "objects", "lastChange", "counts", "error"])
        #expect(results.error == nil)
        #expect(results.lastChange?.resync != nil)
        #expect(shownKeys(results) == [["p0", "p1"]])
    }

    @Test func changesFromAnotherThreadArriveThroughTheDeliveryLoop() async throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        try await Task.detached {
            try queue.write { store in try store.insert("Post", ["id": "p7", "day": "d0", "rank": 7, "pinned": false]) }
        }.value
        try await eventually { results.counts?.total == 6 }
        #expect(shownKeys(results) == [["p2", "p4", "p7"], ["p1", "p3", "p5"]])
    }

    @Test func aSectionsValueKeptAcrossChangesListsItsOwnRows() throws {
        let queue = try makeQueue()
        let results = try ObservedResults(queue: queue, request: byDay)
        let kept = results.sections
        try queue.write { store in try store.delete("Post", key: "p2") }
        results.refresh()
        #expect(kept.map { Array($0.keys) } == [["p2", "p4"], ["p1", "p3", "p5"]])
        #expect(kept[0].objects[0].key == "p2")
        #expect(kept[0].objects[0]["title"] == .null, "a row that left reads as its key with nulls")
        #expect(shownKeys(results) == [["p4"], ["p1", "p3", "p5"]])
    }

    @Test func releasedWhileChangesArriveItStopsItsLiveResults() async throws {
        let queue = try makeQueue()
        weak var released: ObservedResults?
        var live: LiveResults?
        do {
            let results = try ObservedResults(queue: queue, request: byDay)
            released = results
            live = results.liveResults
        }
        let writer = Task.detached {
            for index in 0..<200 {
                try? queue.write { store in try store.insert("Post", ["id": .string("w\(index)"), "day": "d0", "rank": .integer(Int64(index))]) }
            }
        }
        await writer.value
        #expect(released == nil)
        let change = try await live?.nextChange()
        #expect(change == nil, "closed: no change is taken once the observed results are gone")
    }

    // MARK: A window opened cold

    @Test func aColdWindowShowsItsRowsAndFollowsCommitsToThem() throws {
        let queue = try makeQueue(posts: 40)
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
        let results = try ObservedResults(queue: queue, request: request, coldWindow: .anchored(key: "p20", before: 1, after: 1))
        #expect(shownKeys(results) == [["p19", "p20", "p21"]])
        #expect(results.counts == nil, "a cold window does not count the results")
        #expect(results.liveResults == nil)

        let edited = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p21", ["title": "edited"]) }
            results.refresh()
        }
        #expect(edited == ["sections", "objects", "lastChange"])
        #expect(results.objects[2]["title"] == "edited")
        #expect(results.lastChange?.group.objectChanges.map(\.type) == [.update])

        let below = try notified(results) {
            try queue.write { store in try store.insert("Post", ["id": "z", "rank": 1_000]) }
            results.refresh()
        }
        #expect(below.isEmpty, "a row far below the window changes nothing shown")

        let above = try notified(results) {
            try queue.write { store in try store.insert("Post", ["id": "a", "rank": -5]) }
            results.refresh()
        }
        #expect(above.isEmpty, "the anchored window keeps its rows when one arrives above")

        let moved = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p5", ["rank": 20]) }  // ties p20 on rank; "p5" sorts after "p20"
            results.refresh()
        }
        #expect(moved == ["sections", "objects", "lastChange"])
        #expect(shownKeys(results) == [["p19", "p20", "p5"]])
        #expect(results.lastChange?.batch.insertItems == [IndexPath(item: 2, section: 0)])
    }

    @Test func aColdWindowReadsTheCurrentValueOfAnAttributeItDoesNotDisplay() throws {
        let queue = try makeQueue(posts: 10)
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")], displayedAttributes: ["title"])
        let results = try ObservedResults(queue: queue, request: request, coldWindow: .offset(0, length: 3))
        let changed = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p1", ["pinned": true]) }
            results.refresh()
        }
        #expect(!changed.contains("lastChange"), "no displayed value changed: no change")
        #expect(results.objects[1]["pinned"] == true, "the object reads the value committed, as a live query's do")
        let retitled = try notified(results) {
            try queue.write { store in try store.update("Post", key: "p1", ["title": "new"]) }
            results.refresh()
        }
        #expect(retitled.contains("lastChange"))
        #expect(results.lastChange?.group.objectChanges.map(\.type) == [.update])
    }

    @Test func aWindowThatShowsTheSameRowsIsStillTheWindowShown() throws {
        let queue = try makeQueue(posts: 6)
        let all = FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])
        let live = try ObservedResults(queue: queue, request: all, window: .offset(4, length: 5))
        live.window = .offset(4, length: 9)
        #expect(live.window == .offset(4, length: 9))
        #expect(shownKeys(live) == [["p4", "p5"]])
        let cold = try ObservedResults(queue: queue, request: all, coldWindow: .offset(4, length: 5))
        cold.window = .offset(4, length: 9)
        #expect(cold.window == .offset(4, length: 9))
    }

    @Test func aColdWindowMovesAndTakesANewRequestStillCold() async throws {
        let queue = try makeQueue(posts: 40)
        let results = try ObservedResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]),
                                          coldWindow: .offset(10, length: 3))
        #expect(shownKeys(results) == [["p10", "p11", "p12"]])
        results.window = .offset(30, length: 3)
        #expect(shownKeys(results) == [["p30", "p31", "p32"]])
        #expect(results.window == .offset(30, length: 3))
        results.setSortKeys([SortKey("rank", ascending: false)])
        try await eventually { shownKeys(results) == [["p9", "p8", "p7"]] }
        #expect(results.counts == nil, "still cold: the new request opened the window again")
        results.setPredicate(format: "titel == 1")
        try await eventually { results.error != nil }
        #expect(shownKeys(results) == [["p9", "p8", "p7"]])
    }

    @Test func aColdWindowHearsCommitsFromAnotherThreadAndStopsWhenReleased() async throws {
        let queue = try makeQueue(posts: 10)
        var results: ObservedResults? = try ObservedResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]),
                                                            coldWindow: .offset(0, length: 3))
        try await Task.detached {
            try queue.write { store in try store.insert("Post", ["id": "first", "rank": -1]) }
        }.value
        try await eventually { results.map { shownKeys($0) } == [["first", "p0", "p1"]] }
        weak let released = results
        results = nil
        let writer = Task.detached {
            for index in 0..<50 { try? queue.write { store in try store.insert("Post", ["id": .string("w\(index)"), "rank": .integer(Int64(-10 - index))]) } }
        }
        await writer.value
        try await eventually { released == nil }
    }
}
