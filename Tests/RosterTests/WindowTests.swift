import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Windows over a live query's results: the edge cases the property test meets only by
/// chance, and bad windows refused with nothing changed.
@Suite("Windows")
struct WindowTests {
    /// Posts p01…p20 with rank 1…20, in day d1 (ranks 1–10) and d2 (11–20), sorted by
    /// rank and sectioned by day; the controller shows `window`.
    func makeFeed(window: ResultsWindow?) throws -> (Store, ResultsController, GroupRecorder) {
        let store = try postStore()
        try store.write {
            for rank in 1...20 {
                try store.insert("Post", ["id": .string(key(rank)), "day": rank <= 10 ? "d1" : "d2", "rank": .integer(Int64(rank))])
            }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")], sectionAttribute: "day"))
        try controller.setWindow(window)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (store, controller, recorder)
    }

    func key(_ rank: Int) -> String { rank < 10 ? "p0\(rank)" : "p\(rank)" }
    func keys(_ ranks: ClosedRange<Int>) -> [Value] { ranks.map { .string(key($0)) } }

    @Test func aSectionLargerThanTheWindowShowsOnlyItsRowsInTheWindow() throws {
        let (_, controller, _) = try makeFeed(window: .offset(8, length: 4))
        #expect(controller.snapshot == sections([("d1", keys(9...10)), ("d2", keys(11...12))]))
        // Opened cold: the counts come with the whole results.
        #expect(controller.counts == nil)
        try controller.loadResults()
        #expect(controller.snapshot == sections([("d1", keys(9...10)), ("d2", keys(11...12))]))
        #expect(controller.counts == ResultsCounts(total: 20, sections: [SectionInfo(name: "d1", numberOfObjects: 10), SectionInfo(name: "d2", numberOfObjects: 10)]))
        #expect(controller.numberOfObjects(inSection: 1) == 2)
        #expect(try controller.sections.map { $0.objects.map(\.key) } == [keys(9...10), keys(11...12)])
    }

    @Test func aWindowPastTheEndShowsNothingUntilRowsReachIt() throws {
        let (store, controller, recorder) = try makeFeed(window: .offset(25, length: 5))
        #expect(controller.snapshot.isEmpty && controller.numberOfObjects == 0)
        try store.write {
            for rank in 21...26 { try store.insert("Post", ["id": .string(key(rank)), "day": "d3", "rank": .integer(Int64(rank))]) }
        }
        #expect(controller.snapshot == sections([("d3", keys(26...26))]))
        let group = try #require(recorder.takeGroups().first)
        #expect(group.sectionChanges == [SectionChange(type: .insert, index: 0, section: "d3")])
        // Opened cold, it stays cold through commits: the counts come with loadResults().
        #expect(recorder.takeCounts().isEmpty && controller.counts == nil)
        try controller.loadResults()
        #expect(recorder.takeCounts().map(\.total) == [26])
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test func emptyResultsGiveAnEmptyWindowAndCounts() throws {
        let store = try postStore()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try controller.setWindow(.offset(0, length: 3))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot.isEmpty && controller.counts == nil)
        try controller.loadResults()
        #expect(controller.counts == ResultsCounts(total: 0, sections: []) && recorder.takeCounts() == [ResultsCounts(total: 0, sections: [])])
        try store.insert("Post", ["id": "a", "rank": 1])
        #expect(controller.snapshot == sections([(.null, ["a"])]))
        #expect(recorder.takeGroups().count == 1 && recorder.takeCounts().map(\.total) == [1])
    }

    @Test func rowsAddedAboveAnOffsetWindowSlideThroughIt() throws {
        let (store, controller, recorder) = try makeFeed(window: .offset(2, length: 3))
        try store.insert("Post", ["id": "p00", "day": "d1", "rank": 0])
        #expect(controller.snapshot == sections([("d1", keys(2...4))]))
        let group = try #require(recorder.takeGroups().first)
        #expect(group.objectChanges == [
            ObjectChange(type: .insert, item: "p02", from: nil, to: IndexPath(item: 0, section: 0)),
            ObjectChange(type: .delete, item: "p05", from: IndexPath(item: 2, section: 0), to: nil),
        ])
    }

    @Test func editsThatMoveNoRowUpdateAColdWindowInPlaceAndAnEditThatMovesARowMovesIt() throws {
        let (store, controller, recorder) = try makeFeed(window: .offset(2, length: 4))
        try store.write {
            try store.update("Post", key: "p04", ["title": "edited"])
            try store.update("Post", key: "p15", ["title": "far below"])
        }
        #expect(controller.snapshot == sections([("d1", keys(3...6))]))
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "edited")
        #expect(recorder.takeGroups().map(\.objectChanges) == [[
            ObjectChange(type: .update, item: "p04", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ]])

        // A new rank ties p07's; the key puts p04 first: it moves to the window's end.
        try store.update("Post", key: "p04", ["rank": 7])
        #expect(controller.snapshot == sections([("d1", ["p03", "p05", "p06", "p04"])]))
        #expect(controller.object(at: IndexPath(item: 3, section: 0))?["title"] == "edited")
        #expect(recorder.takeGroups().map(\.objectChanges) == [[
            ObjectChange(type: .move, item: "p04", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 3, section: 0)),
        ]])
        #expect(controller.counts == nil, "still cold")
    }

    @Test func rowsAddedAboveAnAnchoredWindowLeaveItAsItWas() throws {
        let (store, controller, recorder) = try makeFeed(window: .anchored(key: "p05", before: 1, after: 1))
        try store.insert("Post", ["id": "p00", "day": "d1", "rank": 0])
        #expect(controller.snapshot == sections([("d1", keys(4...6))]))
        #expect(recorder.takeGroups().isEmpty)
        #expect(recorder.takeCounts().isEmpty && controller.counts == nil)
        try controller.loadResults()
        #expect(recorder.takeGroups().isEmpty)
        #expect(recorder.takeCounts() == [ResultsCounts(total: 21, sections: [SectionInfo(name: "d1", numberOfObjects: 11), SectionInfo(name: "d2", numberOfObjects: 10)])])
    }

    @Test func aCommitOutsideTheWindowThatKeepsTheCountsSendsNothing() throws {
        let (store, controller, recorder) = try makeFeed(window: .offset(0, length: 3))
        // Opened cold; loading the whole results reports the counts once.
        try controller.loadResults()
        #expect(recorder.takeCounts().count == 1)
        try store.update("Post", key: "p15", ["title": "new"])
        try store.update("Post", key: "p16", ["rank": 17, "title": "x"])
        #expect(recorder.takeGroups().isEmpty && recorder.takeCounts().isEmpty)
        #expect(controller.snapshot == sections([("d1", keys(1...3))]))
    }

    @Test func aDeletedAnchorPassesToItsNearestNeighbourBelowThenAbove() throws {
        let (store, controller, recorder) = try makeFeed(window: .anchored(key: "p05", before: 1, after: 1))
        try store.delete("Post", key: "p05")
        #expect(controller.window == .anchored(key: "p06", before: 1, after: 1))
        #expect(controller.snapshot == sections([("d1", keys(4...4) + keys(6...7))]))
        _ = recorder.takeGroups()
        // With every row shown below it gone, the nearest above.
        try store.write {
            try store.delete("Post", key: "p06")
            try store.delete("Post", key: "p07")
        }
        #expect(controller.window == .anchored(key: "p04", before: 1, after: 1))
        #expect(controller.snapshot == sections([("d1", keys(3...4) + keys(8...8))]))
    }

    @Test func resizingToZeroDeletesEveryRowAndGrowingBackInsertsThem() throws {
        let (_, controller, recorder) = try makeFeed(window: .offset(9, length: 2))
        // Opened cold; loading the whole results reports the counts once.
        try controller.loadResults()
        #expect(recorder.takeCounts().count == 1)
        try controller.setWindow(.offset(9, length: 0))
        #expect(controller.snapshot.isEmpty)
        let group = try #require(recorder.takeGroups().first)
        #expect(group.sectionChanges.map(\.type) == [.delete, .delete])
        try controller.setWindow(.offset(9, length: 2))
        #expect(controller.snapshot == sections([("d1", keys(10...10)), ("d2", keys(11...11))]))
        #expect(recorder.takeGroups().first?.sectionChanges.map(\.type) == [.insert, .insert])
        #expect(recorder.takeCounts().isEmpty)
    }

    @Test func movingTheWindowReportsOnlyRowsThatEnterAndLeave() throws {
        let (_, controller, recorder) = try makeFeed(window: .offset(0, length: 4))
        try controller.setWindow(.offset(2, length: 4))
        let group = try #require(recorder.takeGroups().first)
        #expect(group.objectChanges.filter { $0.type == .delete }.map(\.item) == keys(1...2))
        #expect(group.objectChanges.filter { $0.type == .insert }.map(\.item) == keys(5...6))
        #expect(group.objectChanges.allSatisfy { $0.type == .insert || $0.type == .delete })
    }

    @Test func aSortChangeKeepsTheAnchorAndReportsTheWindowsChange() throws {
        let (_, controller, recorder) = try makeFeed(window: .anchored(key: "p05", before: 1, after: 1))
        try controller.setSortKeys([SortKey("rank", ascending: false)])
        #expect(controller.window == .anchored(key: "p05", before: 1, after: 1))
        #expect(controller.snapshot == sections([("d1", [.string(key(6)), .string(key(5)), .string(key(4))])]))
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: sections([("d1", keys(4...6))])) == controller.snapshot)
    }

    @Test func badWindowsAreRefusedAndChangeNothing() throws {
        let (_, controller, recorder) = try makeFeed(window: .offset(0, length: 2))
        let windows: [ResultsWindow] = [
            .offset(-1, length: 2), .offset(0, length: -2), .anchored(key: "p99", before: 1, after: 1),
            .anchored(key: "p05", before: -1, after: 0), .anchored(key: .null, before: 0, after: 0),
        ]
        for window in windows {
            let error = #expect(throws: StoreError.self) { try controller.setWindow(window) }
            #expect(error?.code == .invalidWindow, "\(window): \(String(describing: error))")
            #expect(controller.window == .offset(0, length: 2))
            #expect(controller.snapshot == sections([("d1", keys(1...2))]))
        }
        #expect(recorder.takeGroups().isEmpty)
        // An unknown anchor set before the fetch is refused by the fetch, which then loads nothing.
        let store = controller.store
        let later = try ResultsController(store: store, request: controller.request)
        try later.setWindow(.anchored(key: "p99", before: 1, after: 1))
        let error = #expect(throws: StoreError.self) { try later.performFetch() }
        #expect(error?.code == .invalidWindow && error?.key == "p99")
        #expect(!later.hasFetched)
    }

    @Test func removingTheWindowShowsEveryRowAgain() throws {
        let (_, controller, recorder) = try makeFeed(window: .offset(5, length: 2))
        try controller.setWindow(nil)
        #expect(controller.window == nil && controller.numberOfObjects == 20)
        let group = try #require(recorder.takeGroups().first)
        #expect(group.objectChanges.count == 18 && group.objectChanges.allSatisfy { $0.type == .insert })
    }
}

/// A queue with posts p1…p10 of ranks 1…10, and live results over them by rank.
private func makePosts() throws -> (StoreQueue, LiveResults) {
    let queue = try StoreQueue.temporary()
    try queue.read { store in try store.define(postEntity()) }
    try queue.write { store in
        for rank in 1...10 { try store.insert("Post", ["id": .string("p\(rank)"), "day": "d1", "rank": .integer(Int64(rank))]) }
    }
    return (queue, try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")])))
}

@Suite("Windows on LiveResults")
struct LiveResultsWindowTests {

    @Test func aCommitOutsideTheWindowArrivesAsCountsAlone() throws {
        let (queue, posts) = try makePosts()
        try posts.setWindow(.anchored(key: "p5", before: 1, after: 1))
        let opened = try #require(try posts.takeChange())
        #expect(opened.group.objectChanges.filter { $0.type == .delete }.count == 7 && opened.counts == nil)
        #expect(posts.snapshot.sections == sections([(.null, ["p4", "p5", "p6"])]))
        #expect(posts.indexPath(for: "p5") == IndexPath(item: 1, section: 0) && posts.object(at: IndexPath(item: 2, section: 0))?.key == "p6")

        try queue.write { store in try store.insert("Post", ["id": "p0", "day": "d1", "rank": 0]) }
        let change = try #require(try posts.takeChange())
        #expect(change.group.isEmpty && change.batch == BatchUpdate())
        #expect(change.counts == ResultsCounts(total: 11, sections: [SectionInfo(name: .null, numberOfObjects: 11)]))
        #expect(posts.counts.total == 11 && posts.window == .anchored(key: "p5", before: 1, after: 1))

        // A new window and a commit outside both, taken together: the counts still travel.
        try posts.setWindow(.offset(0, length: 2))
        try queue.write { store in try store.insert("Post", ["id": "q1", "day": "d1", "rank": 99]) }
        let both = try #require(try posts.takeChange())
        #expect(both.counts?.total == 12 && posts.snapshot.sections == sections([(.null, ["p0", "p1"])]))
        try posts.setWindow(.anchored(key: "p5", before: 1, after: 1))
        _ = try posts.takeChange()

        // A bad window is refused at once and changes nothing.
        let error = #expect(throws: StoreError.self) { try posts.setWindow(.anchored(key: "p99", before: 1, after: 1)) }
        #expect(error?.code == .invalidWindow)
        #expect(try posts.takeChange() == nil)
    }
}

@Suite("Scroll positions")
struct ScrollPositionTests {
    @Test func aRowKeepsItsPlaceWhenRowsArriveAboveAndItsNeighbourTakesItWhenItLeaves() throws {
        let store = try postStore()
        try store.write {
            for rank in 1...10 { try store.insert("Post", ["id": .string("p\(rank)"), "day": "d1", "rank": .integer(Int64(rank * 10))]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try controller.performFetch()
        let visible: [Value] = ["p4", "p5", "p6"]
        try store.write {
            try store.insert("Post", ["id": "a", "day": "d1", "rank": 1])
            try store.insert("Post", ["id": "b", "day": "d1", "rank": 2])
        }
        #expect(controller.scrollPosition(keeping: "p4", visibleBefore: visible) == ScrollPosition(key: "p4", indexPath: IndexPath(item: 5, section: 0), isSameRow: true))
        #expect(controller.rank(of: "p4") == 5)
        try store.write {
            try store.delete("Post", key: "p4")
            try store.delete("Post", key: "p5")
        }
        // Below first: p6.
        #expect(controller.scrollPosition(keeping: "p4", visibleBefore: visible) == ScrollPosition(key: "p6", indexPath: IndexPath(item: 5, section: 0), isSameRow: false))
        try store.delete("Post", key: "p6")
        // None below stayed: nothing in `visible` is left.
        #expect(controller.scrollPosition(keeping: "p4", visibleBefore: visible) == nil)
        #expect(controller.scrollPosition(keeping: "p4", visibleBefore: ["p3"] + visible)?.key == "p3")
    }

    @Test func aLiveResultsChangeSaysWhereAVisibleRowWent() throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in
            for rank in 1...5 { try store.insert("Post", ["id": .string("p\(rank)"), "day": "d1", "rank": .integer(Int64(rank * 10))]) }
        }
        let posts = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try queue.write { store in
            try store.insert("Post", ["id": "a", "day": "d1", "rank": 1])
            try store.delete("Post", key: "p3")
        }
        let change = try #require(try posts.takeChange())
        #expect(change.scrollPosition(keeping: "p2") == ScrollPosition(key: "p2", indexPath: IndexPath(item: 2, section: 0), isSameRow: true))
        #expect(change.scrollPosition(keeping: "p3") == ScrollPosition(key: "p4", indexPath: IndexPath(item: 3, section: 0), isSameRow: false))
        #expect(change.scrollPosition(keeping: "zz") == nil)
    }

    @Test func anAnchorThatPendingCommitsDeleteGoesToItsNeighbour() throws {
        let (queue, posts) = try makePosts()
        try posts.setWindow(.anchored(key: "p5", before: 1, after: 1))
        try queue.write { store in try store.delete("Post", key: "p5") }
        _ = try posts.takeChange()
        #expect(posts.window == .anchored(key: "p6", before: 1, after: 1))
        #expect(posts.snapshot.sections == sections([(.null, ["p4", "p6", "p7"])]))
    }
}

@Suite("Windows after the anchor left")
struct WindowRefetchTests {
    @Test func fetchingAgainAfterTheAnchorLeftKeepsItsNeighbour() throws {
        let store = try postStore()
        try store.write {
            for rank in 1...10 { try store.insert("Post", ["id": .string("p\(rank)"), "day": "d1", "rank": .integer(Int64(rank))]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try controller.setWindow(.anchored(key: "p5", before: 1, after: 1))
        try controller.performFetch()
        let other = try ExternalConnection(path: store.path)
        try other.execute("DELETE FROM Post WHERE id = 'p5'")
        // Not polled yet: the fetch reads the file as it is, and the anchor is gone.
        try controller.performFetch()
        #expect(controller.window == .anchored(key: "p6", before: 1, after: 1))
        #expect(controller.snapshot == sections([(.null, ["p4", "p6", "p7"])]))
    }
}

@Suite("Windows opened cold")
struct ColdWindowTests {
    func makeStore() throws -> Store {
        let store = try postStore()
        try store.write {
            for rank in 1...20 { try store.insert("Post", ["id": .string("p\(rank)"), "day": "d1", "rank": .integer(Int64(rank)), "title": "t"]) }
        }
        return store
    }

    @Test func fetchingAgainReportsWhatAnotherConnectionChangedMeanwhile() throws {
        let store = try makeStore()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.setWindow(.offset(4, length: 3))
        try controller.performFetch()
        #expect(controller.counts == nil && controller.snapshot == sections([(.null, ["p5", "p6", "p7"])]))
        let other = try ExternalConnection(path: store.path)
        try other.execute("UPDATE Post SET title = 'new' WHERE id = 'p6'")
        // Not polled: the second fetch reads the file, and the change is heard, not lost.
        try controller.performFetch()
        #expect(recorder.takeGroups().first?.objectChanges == [ObjectChange(type: .update, item: "p6", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0))])
        #expect(controller.counts?.total == 20 && recorder.takeCounts().count == 1)
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "new")
    }

    @Test func aColdWindowResumedFromATokenHoldsTheWholeResultsAfter() throws {
        let store = try makeStore()
        let first = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try first.setWindow(.anchored(key: "p10", before: 1, after: 1))
        try first.performFetch()
        let token = try first.resumeToken()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try controller.setWindow(.offset(0, length: 2))
        try controller.performFetch()
        try controller.performFetch(resumingFrom: token)
        #expect(controller.snapshot == sections([(.null, ["p9", "p10", "p11"])]))
        #expect(controller.rank(of: "p10") == 9 && controller.counts?.total == 20)
    }
}

@Suite("Indexes that serve a window")
struct SortIndexTests {
    @Test func theStoreSaysWhetherAnIndexServesTheOrderAndCreatesOneWhenAsked() throws {
        let store = try postStore()
        try store.write {
            for rank in 1...50 { try store.insert("Post", ["id": .string("p\(rank)"), "day": .string("d\(rank % 3)"), "rank": .integer(Int64(rank % 7))]) }
        }
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("day", ascending: false), SortKey("rank")], sectionAttribute: "day")
        #expect(try store.hasIndex(serving: request) == false)
        let before = try ResultsController(store: store, request: request)
        try before.setWindow(.offset(20, length: 10))
        try before.performFetch()
        try store.createIndex(serving: request)
        try store.createIndex(serving: request)
        #expect(try store.hasIndex(serving: request))
        let after = try ResultsController(store: store, request: request)
        try after.setWindow(.offset(20, length: 10))
        try after.performFetch()
        #expect(after.snapshot == before.snapshot && after.snapshot.flatMap(\.items).count == 10)
        // Ordered by key alone, the primary key serves it.
        #expect(try store.hasIndex(serving: FetchRequest(entity: "Post")))
        try store.beginTransaction()
        let error = #expect(throws: StoreError.self) { try store.createIndex(serving: FetchRequest(entity: "Post", sortKeys: [SortKey("title")])) }
        #expect(error?.code == .transaction)
        try store.rollback()
    }
}
