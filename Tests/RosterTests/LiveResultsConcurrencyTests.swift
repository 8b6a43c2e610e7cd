import Foundation
import RosterTestSupport
import Testing
@testable import Roster

/// Many `LiveResults` consumers on one queue, each on its own task, while writers commit
/// from other threads: every consumer ends on the stored results, and each change it
/// takes starts from the results it last saw.
@Suite("LiveResults under concurrency")
struct LiveResultsConcurrencyTests {
    /// Consumers on the writers' queue, or each on a queue of its own that polls the file
    /// (another connection, as another process would have).
    @Test(arguments: [(0, false), (1, false), (2, false), (0, true), (1, true), (2, true)])
    func eightConsumersEachEndOnTheStoredResults(round: Int, separateQueues: Bool) async throws {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("day", ascending: false), SortKey("rank")], sectionAttribute: "day")
        let queues = try (0..<8).map { _ in separateQueues ? try StoreQueue(path: queue.path) : queue }
        if separateQueues { for other in queues { other.startPolling(every: .milliseconds(2)) } }
        defer { for other in queues where other !== queue { other.stopPolling() } }
        let consumers = try queues.map { try LiveResults(queue: $0, request: request) }
        let writes = 300
        let tasks = consumers.enumerated().map { index, live in
            Task.detached { () -> [String] in
                var problems: [String] = []
                var seen = live.snapshot
                var random = SplitMix64(seed: UInt64(index + round * 8))
                while !Task.isCancelled {
                    guard let change = try await live.nextChange() else { break }
                    if change.previousSnapshot.sections.map(\.items) != seen.sections.map(\.items) {
                        problems.append("consumer \(index): a change did not start from the results it last saw")
                    }
                    if (try? change.group.apply(to: change.previousSnapshot.sections)) != change.snapshot.sections {
                        problems.append("consumer \(index): callbacks do not lead to the change's snapshot")
                    }
                    seen = change.snapshot
                    if Int.random(in: 0..<4, using: &random) == 0 { try? await Task.sleep(for: .microseconds(200)) }
                }
                return problems
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(100 + writer + round * 2))
                    for step in 0..<(writes / 2) {
                        let key = Value.string("p\(Int.random(in: 0..<40, using: &random))")
                        let deletes = Bool.random(using: &random)   // drawn out here: the closure is @Sendable
                        _ = try? queue.write { store in
                            if deletes, (try? store.fetch("Post", key: key)) != nil {
                                try store.delete("Post", key: key)
                            } else if (try? store.fetch("Post", key: key)) != nil {
                                try store.update("Post", key: key, ["rank": .integer(Int64(step)), "day": .string("d\(step % 5)")])
                            } else {
                                try store.insert("Post", ["id": key, "rank": .integer(Int64(step)), "day": .string("d\(step % 5)")])
                            }
                        }
                    }
                }
            }
        }
        let fresh = try queue.read { store in
            let controller = try ResultsController(store: store, request: request)
            try controller.performFetch()
            return controller.snapshot
        }
        // Every consumer catches up with the last commit.
        let deadline = ContinuousClock.now + .seconds(10)
        while consumers.contains(where: { $0.snapshot.sections != fresh || $0.hasPendingChanges }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        for (index, live) in consumers.enumerated() {
            #expect(live.snapshot.sections == fresh, "consumer \(index) holds stale results")
            live.close()
        }
        for task in tasks {
            let problems = try await task.value
            #expect(problems.isEmpty, "\(problems.prefix(3))")
        }
    }
}
