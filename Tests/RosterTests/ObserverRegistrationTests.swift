import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// A store tells its live queries about each commit once, in the order they registered,
/// and stops with each one released — by identity, without loading or moving the other
/// registrations, which made releasing 1,000 live queries cost the square of their number.
@Suite("Observer registrations")
struct ObserverRegistrationTests {
    /// Notes, for every live query it is the delegate of, each change it was told about.
    final class Log: ResultsControllerDelegate {
        var heard: [ObjectIdentifier] = []
        func controllerDidChangeContent(_ controller: ResultsController) { heard.append(ObjectIdentifier(controller)) }
    }

    func liveQuery(on store: Store, log: Log) throws -> ResultsController {
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        controller.delegate = log
        try controller.performFetch()
        return controller
    }

    @Test func eachLiveQueryHearsACommitOnceInOrderAndNoneOnceReleased() throws {
        let store = try postStore()
        let log = Log()
        var controllers = try (0..<300).map { _ in try liveQuery(on: store, log: log) }
        try store.insert("Post", ["id": "a", "rank": 1])
        #expect(log.heard == controllers.map(ObjectIdentifier.init))

        // Every other one released, then new ones (which may take the released ones' addresses).
        controllers = controllers.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        controllers += try (0..<150).map { _ in try liveQuery(on: store, log: log) }
        log.heard = []
        try store.insert("Post", ["id": "b", "rank": 2])
        #expect(log.heard == controllers.map(ObjectIdentifier.init))

        // All released but the last: it alone hears.
        controllers.removeFirst(controllers.count - 1)
        log.heard = []
        try store.update("Post", key: "a", ["rank": 3])
        #expect(log.heard == controllers.map(ObjectIdentifier.init))
        #expect(controllers[0].snapshot.flatMap(\.items) == ["b", "a"])
    }

    /// Live queries made and released while nothing commits (no delivery drops their
    /// registrations): the store's list stays about twice as long as the live ones.
    @Test func registrationsOfReleasedLiveQueriesDoNotPileUpWithoutACommit() throws {
        let store = try postStore()
        let log = Log()
        let kept = try (0..<10).map { _ in try liveQuery(on: store, log: log) }
        for _ in 0..<1_000 { _ = try liveQuery(on: store, log: log) }
        #expect(store.observers.count <= 2 * kept.count + 2, "\(store.observers.count) registrations for \(kept.count) live queries")
        try store.insert("Post", ["id": "a", "rank": 1])
        #expect(log.heard == kept.map(ObjectIdentifier.init))
    }
}
