import Foundation
import RosterTestSupport
import Testing
@testable import Roster

@Suite("Live results across threads")
struct LiveResultsTests {
    func makeQueue() throws -> StoreQueue {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        return queue
    }

    func feedRequest() -> FetchRequest {
        FetchRequest(entity: "Post", sortKeys: [SortKey("day", ascending: false), SortKey("rank")], sectionAttribute: "day")
    }

    func freshSnapshot(_ queue: StoreQueue, _ request: FetchRequest) throws -> [ListSection<Value, Value>] {
        try queue.read { store in
            let controller = try ResultsController(store: store, request: request)
            try controller.performFetch()
            return controller.snapshot
        }
    }

    @Test func aWriteOnAnotherThreadArrivesAsOneChange() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        try await Task.detached {
            try queue.write { store in
                try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1])
                try store.insert("Post", ["id": "p2", "day": "d2", "rank": 1])
            }
        }.value
        let change = try #require(await posts.nextChange())
        #expect(change.commitCount == 1)
        #expect(change.group.sectionChanges.count == 2)
        #expect(change.batch == BatchUpdate(insertSections: [0, 1]))
        #expect(change.snapshot.sections == sections([("d2", ["p2"]), ("d1", ["p1"])]))
        #expect(posts.snapshot == change.snapshot.withoutReloads)
        #expect(posts.object(at: IndexPath(item: 0, section: 1))?.key == "p1")
    }

    @Test func manyCommitsUnderAnUnreadyConsumerBecomeOneExactChange() async throws {
        let queue = try makeQueue()
        let request = feedRequest()
        let posts = try LiveResults(queue: queue, request: request)
        try queue.write { store in
            for index in 0..<20 { try store.insert("Post", ["id": .string("p\(index)"), "day": .string("d\(index % 4)"), "rank": .integer(Int64(index))]) }
        }
        let first = try #require(await posts.nextChange())
        // The writer does 200 commits while the consumer takes nothing: it is never waited for.
        let writer = Task.detached {
            var random = SplitMix64(seed: 5)
            for step in 0..<200 {
                let key = Value.string("p\(Int.random(in: 0..<30, using: &random))")
                // Drawn out here: the closure is @Sendable and cannot mutate `random`.
                let day: Value = step % 4 == 0 ? .string("d\(Int.random(in: 0..<6, using: &random))") : .null
                let rank: Value = step % 4 == 2 ? .integer(Int64(Int.random(in: 0..<50, using: &random))) : .null
                try? queue.write { store in
                    switch step % 4 {
                    case 0: try store.insert("Post", ["id": key, "day": day, "rank": .integer(Int64(step))])
                    case 1: try store.delete("Post", key: key)
                    case 2: try store.update("Post", key: key, ["rank": rank])
                    default: try store.update("Post", key: key, ["title": .string("t\(step)")])
                    }
                }
            }
        }
        await writer.value
        let change = try #require(try posts.takeChange())
        #expect(change.commitCount > 100)
        #expect(try posts.takeChange() == nil)
        // One change from what the consumer last saw to the current results, exactly.
        #expect(change.previousSnapshot.sections == first.snapshot.sections)
        #expect(change.snapshot.sections == (try freshSnapshot(queue, request)))
        #expect(try change.group.apply(to: change.previousSnapshot.sections) == change.snapshot.sections)
        try change.batch.validate(old: change.previousSnapshot.sections, new: change.snapshot.sections)
    }

    /// A commit that touches a third of the rows is re-sorted in memory (``CommitPath``):
    /// the change is exact, its objects are the rows now, and it leads to the fresh results.
    @Test func aBulkCommitIsExact() throws {
        let queue = try makeQueue()
        let request = feedRequest()
        try queue.write { store in
            for index in 0..<600 {
                try store.insert("Post", ["id": .string("p\(index)"), "day": .string("d\(index % 7)"), "rank": .integer(Int64(index * 37 % 600))])
            }
        }
        let posts = try LiveResults(queue: queue, request: request)
        #expect(CommitPath.cheaper(touched: 300, results: 600) != .rowByRow)
        try queue.write { store in
            try store.execute("UPDATE Post SET rank = (rank * 13) % 601, day = CASE WHEN rank % 9 = 0 THEN 'd9' ELSE day END WHERE rowid % 3 = 0")
            try store.execute("DELETE FROM Post WHERE rowid % 7 = 1")
            for index in 600..<650 { try store.insert("Post", ["id": .string("p\(index)"), "day": "d3", "rank": .integer(Int64(index))]) }
        }
        let change = try #require(try posts.takeChange())
        #expect(change.snapshot.sections == (try freshSnapshot(queue, request)))
        #expect(try change.group.apply(to: change.previousSnapshot.sections) == change.snapshot.sections)
        try change.batch.validate(old: change.previousSnapshot.sections, new: change.snapshot.sections)
        for object in change.group.objectChanges where object.type != .delete {
            #expect(change.objects[object.item] == (try queue.read { store in try store.fetch("Post", key: object.item) }))
        }
        #expect(change.group.objectChanges.contains { $0.type == .move })
    }

    @Test func coalescedCommitsCompareTheRowBeforeTheFirstWithTheRowAfterTheLast() throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        try queue.write { store in try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1, "title": "a"]) }
        _ = try #require(try posts.takeChange())
        // Changed in one commit, changed back in the next, before the consumer looks: nothing.
        try queue.write { store in try store.update("Post", key: "p1", ["title": "b"]) }
        try queue.write { store in try store.update("Post", key: "p1", ["title": "a"]) }
        #expect(try posts.takeChange() == nil)
        // Changed twice: one update, with the object as it is now.
        try queue.write { store in try store.update("Post", key: "p1", ["title": "b"]) }
        try queue.write { store in try store.update("Post", key: "p1", ["title": "c"]) }
        let change = try #require(try posts.takeChange())
        #expect(change.commitCount == 2)
        #expect(change.group == ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p1", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0)),
        ]))
        #expect(change.objects["p1"]?["title"] == "c")
        // Deleted, then inserted again as it was: nothing.
        try queue.write { store in try store.delete("Post", key: "p1") }
        try queue.write { store in try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1, "title": "c"]) }
        #expect(try posts.takeChange() == nil)
    }

    @Test func anAttributeAddedLaterIsNotShownUntilTheRequestIsSetAgain() throws {
        let queue = try makeQueue()
        let request = feedRequest()
        let posts = try LiveResults(queue: queue, request: request)
        try queue.write { store in try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1]) }
        _ = try #require(try posts.takeChange())
        var attributes = try postEntity().attributes
        attributes.append(Attribute("likes", .integer))
        let widened = try Entity("Post", key: "id", attributes: attributes)
        try queue.read { store in try store.define(widened) }
        try queue.write { store in try store.update("Post", key: "p1", ["likes": 3]) }
        #expect(try posts.takeChange() == nil)
        try queue.write { store in try store.update("Post", key: "p1", ["title": "seen"]) }
        let change = try #require(try posts.takeChange())
        #expect(change.objects["p1"]?.values.count == attributes.count - 1)
        try posts.setRequest(request)
        _ = try posts.takeChange()
        #expect(posts.object(at: IndexPath(item: 0, section: 0))?["likes"] == 3)
    }

    @Test func everyCommitPolicyDeliversEachCommitInOrder() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest(), policy: .everyCommit)
        for index in 0..<5 {
            try queue.write { store in try store.insert("Post", ["id": .string("p\(index)"), "day": "d1", "rank": .integer(Int64(index))]) }
        }
        try queue.write { store in try store.update("Post", key: "p0", ["title": "unrelated to the order"]) }
        var changes: [ResultsChange] = []
        while let change = try posts.takeChange() { changes.append(change) }
        #expect(changes.count == 6)
        #expect(changes.allSatisfy { $0.commitCount == 1 })
        for (previous, next) in zip(changes, changes.dropFirst()) {
            #expect(previous.snapshot.sections == next.previousSnapshot.sections)
        }
        #expect(changes.last?.group.objectChanges == [ObjectChange(type: .update, item: "p0", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0))])
        #expect(changes.last?.snapshot.reloadedItemIdentifiers == ["p0"])
    }

    @Test func aSlowConsumerGetsFewerChangesAndTheSameFinalResults() async throws {
        let queue = try makeQueue()
        let request = feedRequest()
        let posts = try LiveResults(queue: queue, request: request)
        let consumer = Task { @MainActor () throws -> [ResultsChange] in
            var taken: [ResultsChange] = []
            for try await change in posts.changes {
                taken.append(change)
                try? await Task.sleep(for: .milliseconds(15))   // a 15 ms animation
                if posts.snapshot.numberOfItems == 40 && !posts.hasPendingChanges { break }
            }
            return taken
        }
        for index in 0..<40 {
            try queue.write { store in try store.insert("Post", ["id": .string("p\(index)"), "day": .string("d\(index % 3)"), "rank": .integer(Int64(index))]) }
            try await Task.sleep(for: .milliseconds(1))
        }
        let taken = try await consumer.value
        #expect(taken.count < 40)
        #expect(taken.reduce(0) { $0 + $1.commitCount } == 40)
        #expect(taken.last?.snapshot.sections == (try freshSnapshot(queue, request)))
        for change in taken {
            try change.batch.validate(old: change.previousSnapshot.sections, new: change.snapshot.sections)
        }
    }

    @Test func aSortChangeArrivesThroughTheSameChanges() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        try queue.write { store in
            try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1])
            try store.insert("Post", ["id": "p2", "day": "d1", "rank": 2])
        }
        _ = try posts.takeChange()
        try posts.setSortKeys([SortKey("day"), SortKey("rank", ascending: false)])
        let change = try #require(try posts.takeChange())
        #expect(change.snapshot.sections == sections([("d1", ["p2", "p1"])]))
        #expect(change.group.objectChanges.count == 1)
        #expect(posts.request.sortKeys == [SortKey("day"), SortKey("rank", ascending: false)])
    }

    @Test func aUserDrivenMoveIsNotReportedBack() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        try queue.write { store in
            for index in 1...3 { try store.insert("Post", ["id": .string("p\(index)"), "day": "d1", "rank": .integer(Int64(index))]) }
        }
        _ = try posts.takeChange()
        try posts.performUserDrivenChange([.move(key: "p1", to: IndexPath(item: 2, section: 0))]) { store in
            try store.update("Post", key: "p1", ["rank": 10])
        }
        let change = try #require(try posts.takeChange())
        #expect(change.group.objectChanges == [ObjectChange(type: .update, item: "p1", from: IndexPath(item: 2, section: 0), to: IndexPath(item: 2, section: 0))])
    }

    @MainActor
    final class Table: @MainActor ResultsControllerDelegate {
        var log: [String] = []
        func controllerWillChangeContent(_ results: LiveResults) { log.append("will") }
        func controller(_ results: LiveResults, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) { log.append("section \(type) \(sectionIndex)") }
        func controller(_ results: LiveResults, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) { log.append("object \(type) \(object.key)") }
        func controllerDidChangeContent(_ results: LiveResults) { log.append("did") }
    }

    @Test @MainActor func callbacksArriveOnTheConsumersActor() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        let table = Table()
        let delivery = Task { @MainActor in await posts.deliver(to: table) }
        try await Task.detached { try queue.write { store in try store.insert("Post", ["id": "p1", "day": "d1"]) } }.value
        while table.log.count < 4 { try await Task.sleep(for: .milliseconds(1)) }
        posts.close()
        await delivery.value
        #expect(table.log == ["will", "section insert 0", "object insert 'p1'", "did"])
    }

    @Test func anotherProcessIsSeenByPolling() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        queue.startPolling(every: .milliseconds(5))
        defer { queue.stopPolling() }
        try ExternalConnection(path: queue.path).execute("INSERT INTO Post(id, day) VALUES ('x1', 'd9')")
        let change = try #require(await posts.nextChange())
        #expect(change.snapshot.sections == sections([("d9", ["x1"])]))
    }

    @Test func closingEndsTheChanges() async throws {
        let queue = try makeQueue()
        let posts = try LiveResults(queue: queue, request: feedRequest())
        let waiter = Task { try await posts.nextChange() }
        try await Task.sleep(for: .milliseconds(5))
        posts.close()
        #expect(try await waiter.value == nil)
    }
}

extension ResultsSnapshot {
    var withoutReloads: ResultsSnapshot { ResultsSnapshot(sections: sections) }
}

/// LiveResults hold keys and sort values, and read whole rows from the store when asked:
/// taken back through the commits the consumer has not taken, so that an object is always
/// as of the last change taken.
@Suite("LiveResults rows as of the last change taken")
struct LiveResultsRowsTests {
    func makeQueue(posts: Int) throws -> StoreQueue {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        try queue.write { store in
            for index in 0..<posts {
                try store.insert("Post", ["id": .string("p\(index)"), "title": .string("t\(index)"), "rank": .integer(Int64(index))])
            }
        }
        return queue
    }

    @Test func anObjectReadBeforeAChangeIsTakenIsTheOneTheConsumerSaw() throws {
        let queue = try makeQueue(posts: 10)
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try queue.write { store in
            try store.update("Post", key: "p3", ["title": "new", "rank": 100])
            try store.delete("Post", key: "p4")
            try store.insert("Post", ["id": "q", "title": "q", "rank": -1])
        }
        // Not taken yet: the consumer still holds the rows as they were.
        #expect(live.object(at: IndexPath(item: 3, section: 0))?["title"] == "t3")
        #expect(live.object(at: IndexPath(item: 4, section: 0))?["title"] == "t4")
        #expect(live.object(at: IndexPath(item: 0, section: 0))?.key == "p0")
        #expect(live.fetchedObjects.map(\.key) == (0..<10).map { Value.string("p\($0)") })
        #expect(live.fetchedObjects.map { $0["title"] } == (0..<10).map { Value.string("t\($0)") })
        let change = try #require(try live.takeChange())
        #expect(change.objects["p3"]?["title"] == "new")
        #expect(change.deletedObjects["p4"]?["title"] == "t4")
        #expect(live.object(at: IndexPath(item: 0, section: 0))?.key == "q")
        #expect(live.fetchedObjects.last?["title"] == "new")
    }

    @Test func rowsBeyondTheCacheAreReadAsOfTheLastChangeTaken() throws {
        let count = 6_000
        let queue = try makeQueue(posts: count)
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        var random = SplitMix64(seed: 11)
        var seen = (0..<count).map { "t\($0)" }
        for round in 0..<6 {
            // Commits the consumer does not take yet, then reads of rows all over the results
            // (more than the cache holds): each must be as the consumer last took it.
            let edits = (0..<40).map { _ in Int.random(in: 0..<count, using: &random) }
            try queue.write { store in
                for (offset, index) in edits.enumerated() { try store.update("Post", key: .string("p\(index)"), ["title": .string("r\(round)-\(offset)")]) }
            }
            for _ in 0..<300 {
                let index = Int.random(in: 0..<count, using: &random)
                #expect(live.object(at: IndexPath(item: index, section: 0))?["title"] == .string(seen[index]), "round \(round), row \(index)")
            }
            _ = try live.takeChange()
            for (offset, index) in edits.enumerated() { seen[index] = "r\(round)-\(offset)" }
            for index in edits { #expect(live.object(at: IndexPath(item: index, section: 0))?["title"] == .string(seen[index])) }
        }
    }
}
