import Foundation
import Roster
import Synchronization

/// A background sync writing small transactions while a slow list animates each change on
/// the main actor: shows that the writer never waits and that changes coalesce.
struct SimulatedUI {
    let transactionSize: Int
    let animation: Duration
    /// A pause between two transactions, as a sync waiting on the network would make.
    let writeInterval: Duration
    let database: String?

    func run(_ feeds: [(String, Feed)]) async throws {
        let queue = try database.map { try StoreQueue(path: $0) } ?? StoreQueue.temporary()
        try queue.read { store in _ = try store.define(Post.self) }
        let posts = try LiveResults(queue: queue, request: FeedSync.request())
        for (file, feed) in feeds {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let existing = Set(posts.fetchedObjects.compactMap { $0.key.stringValue })
            let size = transactionSize
            // The sync runs on another thread and never waits for the list.
            let done = DoneFlag()
            let writer = Task.detached { () throws -> (FeedSync.Summary, [Duration]) in
                defer { done.set() }
                var latencies: [Duration] = []
                let pause = writeInterval
                let summary = try FeedSync.sync(feed, into: { body in
                    let start = ContinuousClock.now
                    try queue.write { store in try body(store) }
                    latencies.append(ContinuousClock.now - start)
                    Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
                }, existingIDs: existing, batchSize: size)
                return (summary, latencies)
            }
            // The list, on the main actor: each turn takes everything pending as one change.
            let animation = self.animation
            let list = Task { @MainActor () -> (groups: Int, commits: Int, valid: Bool) in
                var groups = 0
                var commits = 0
                var valid = true
                while true {
                    let finished = done.isSet  // read before taking, so no commit is left behind
                    guard let change = try? posts.takeChange() else {
                        if finished { break }
                        try? await Task.sleep(for: .milliseconds(1))   // idle: nothing to animate
                        continue
                    }
                    groups += 1
                    commits += change.commitCount
                    do {
                        try change.batch.validate(old: change.previousSnapshot.sections, new: change.snapshot.sections)
                    } catch {
                        valid = false
                        print("   invalid batch: \(error)")
                    }
                    try? await Task.sleep(for: animation)   // animating the batch
                }
                return (groups, commits, valid)
            }
            let (summary, latencies) = try await writer.value
            let (groups, commits, valid) = await list.value
            let fresh = try queue.read { store in
                let controller = try ResultsController(store: store, request: FeedSync.request())
                try controller.performFetch()
                return controller.snapshot
            }
            let matches = fresh == posts.snapshot.sections
            let sorted = latencies.sorted()
            let median = sorted.isEmpty ? .zero : sorted[sorted.count / 2]
            print("── sync \(name) with a slow list (\(SyncPrinter.ms(animation)) per change)")
            print("   writer: \(summary.transactions) transactions of up to \(transactionSize) writes; commit latency median \(SyncPrinter.ms(median)), max \(SyncPrinter.ms(sorted.last ?? .zero))")
            print("   list:   \(groups) changes delivered, covering \(commits) commits that changed it (coalesced \(commits - groups))")
            print("   every batch valid by UIKit's rules: \(valid ? "yes" : "NO")")
            print("   final list equals a fresh fetch: \(matches ? "yes" : "NO") (\(posts.snapshot.numberOfItems) posts, \(posts.snapshot.sections.count) days)\n")
            guard matches, valid else { throw SimulationFailed() }
        }
    }

    struct SimulationFailed: Error, CustomStringConvertible {
        var description: String { "the list did not end equal to a fresh fetch with valid batches" }
    }
}

/// Set once by the writer when it is done.
final class DoneFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
