import Foundation
import Testing
@testable import Roster
import RosterTestSupport

@Suite("User-driven changes")
struct UserDrivenChangeTests {
    /// A board column of four cards ordered by position, and a second column.
    func makeBoard() throws -> (Store, ResultsController, GroupRecorder) {
        let store = try Store.temporary()
        try store.define(Entity("Card", key: "id", attributes: [
            Attribute("id", .string), Attribute("column", .string), Attribute("position", .integer), Attribute("title", .string),
        ]))
        try store.write {
            for (index, id) in ["k1", "k2", "k3", "k4"].enumerated() {
                try store.insert("Card", ["id": .string(id), "column": "a", "position": .integer(Int64(index + 1))])
            }
            try store.insert("Card", ["id": "k5", "column": "b", "position": 1])
        }
        let controller = try ResultsController(store: store, request: FetchRequest(
            entity: "Card", sortKeys: [SortKey("column"), SortKey("position")], sectionAttribute: "column"))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (store, controller, recorder)
    }

    @Test func aRowTheUserDraggedIsNotReportedAgain() throws {
        let (store, controller, recorder) = try makeBoard()
        // The user dragged k1 from [0,0] to the bottom of column a; the app renumbers it.
        try controller.performUserDrivenChange([.move(key: "k1", to: IndexPath(item: 3, section: 0))]) {
            try store.update("Card", key: "k1", ["position": 10])
        }
        #expect(controller.snapshot == sections([("a", ["k2", "k3", "k4", "k1"]), ("b", ["k5"])]))
        // Only the values changed: an update of k1 at its new place, no move.
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "k1", from: IndexPath(item: 3, section: 0), to: IndexPath(item: 3, section: 0)),
        ])])
    }

    @Test func everythingElseInTheSameTransactionIsStillReported() throws {
        let (store, controller, recorder) = try makeBoard()
        try controller.performUserDrivenChange([.move(key: "k1", to: IndexPath(item: 0, section: 1))]) {
            try store.write {
                try store.update("Card", key: "k1", ["column": "b", "position": 0])
                try store.update("Card", key: "k3", ["title": "renamed"])
                try store.insert("Card", ["id": "k9", "column": "a", "position": 9])
            }
        }
        let group = try #require(recorder.takeGroups().first)
        #expect(!group.objectChanges.contains { $0.type == .move })
        #expect(group.objectChanges.contains(ObjectChange(type: .insert, item: "k9", from: nil, to: IndexPath(item: 3, section: 0))))
        // k3 is at [0,1] in the list the user left (k1 gone from column a).
        #expect(group.objectChanges.contains(ObjectChange(type: .update, item: "k3", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0))))
        // The user's view plus the reported change gives the new results.
        var userView = sections([("a", ["k1", "k2", "k3", "k4"]), ("b", ["k5"])])
        UserEdit.move(key: "k1", to: IndexPath(item: 0, section: 1)).apply(to: &userView)
        #expect(try group.apply(to: userView) == controller.snapshot)
        try BatchAdapter().batch(for: group).validate(old: userView, new: controller.snapshot)
    }

    @Test func aRowTheUserDeletedIsNotReportedAgain() throws {
        let (store, controller, recorder) = try makeBoard()
        try controller.performUserDrivenChange([.delete(key: "k2")]) {
            try store.delete("Card", key: "k2")
        }
        #expect(recorder.takeGroups().isEmpty)
        #expect(controller.indexPath(for: "k2") == nil)
    }

    @Test func aFailedWriteForgetsTheEdits() throws {
        let (store, controller, recorder) = try makeBoard()
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try controller.performUserDrivenChange([.delete(key: "k2")]) { throw Refused() }
        }
        try store.delete("Card", key: "k2")
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: "k2", from: IndexPath(item: 1, section: 0), to: nil),
        ])])
    }
}
