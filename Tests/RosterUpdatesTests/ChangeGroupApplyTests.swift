import Foundation
import Testing
import RosterUpdates

/// `ChangeGroup.apply` replays callbacks with NSFetchedResultsController's conventions and
/// rejects groups that break them.
@Suite("ChangeGroup apply")
struct ChangeGroupApplyTests {
    private let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2"]), ListSection(id: "b", items: ["p3"])]

    private func rejection(_ group: Group) -> String? {
        do {
            _ = try group.apply(to: old)
            return nil
        } catch {
            return (error as? BatchError)?.message ?? "not a BatchError: \(error)"
        }
    }

    @Test func identitiesComeFromTheEvents() throws {
        let group = Group(
            sectionChanges: [sectionDelete(1, "b"), sectionInsert(0, "z")],
            objectChanges: [
                objectInsert("p9", to: path(0, 1)),
                objectDelete("p1", from: path(0, 0)),
                objectMove("p3", from: path(1, 0), to: path(0, 0)),
            ])
        #expect(try group.apply(to: old) == [ListSection(id: "z", items: ["p3", "p9"]), ListSection(id: "a", items: ["p2"])])
    }

    @Test func deletedSectionNeedsAnEventForEachObject() {
        let group = Group(sectionChanges: [sectionDelete(1, "b")])
        #expect(rejection(group) == "deleted section 1 (\"b\") still holds 1 items, first \"p3\" at [1,0]: "
            + "every object of a deleted section needs its own delete or move event")
    }

    @Test func eventMustNameTheItemAtItsFromPath() {
        let group = Group(objectChanges: [objectDelete("p2", from: path(0, 0))])
        #expect(rejection(group) == "object delete of \"p2\": the item at [0,0] before the change is \"p1\"")
    }

    @Test func updateMustFindItsItemAtItsToPath() {
        let group = Group(objectChanges: [
            objectDelete("p1", from: path(0, 0)),
            objectUpdate("p2", from: path(0, 1), to: path(0, 1)),
        ])
        #expect(rejection(group) == "object update of \"p2\": [0,1] is out of range after the change")
    }

    @Test func sectionLeftEmptyIsRejected() {
        let group = Group(objectChanges: [objectDelete("p3", from: path(1, 0))])
        #expect(rejection(group)?.hasPrefix("section 1 (\"b\") is empty after the change") == true)
    }

    @Test func itemWithTwoEventsIsRejected() {
        let group = Group(objectChanges: [
            objectMove("p1", from: path(0, 0), to: path(0, 1)),
            objectUpdate("p1", from: path(0, 0), to: path(0, 1)),
        ])
        #expect(rejection(group) == "item \"p1\" has more than one object event")
    }

    @Test func insertBeyondTheEndIsRejected() {
        let group = Group(objectChanges: [objectInsert("p9", to: path(1, 2))])
        #expect(rejection(group) == "object at [1,2] (\"p9\") out of range: section 1 has only 2 items after the change")
    }

    @Test func itemInsertedTwiceIsRejected() {
        let group = Group(objectChanges: [objectInsert("p3", to: path(0, 0))])
        #expect(rejection(group) == "item \"p3\" appears twice after the change, at [0,0] and [1,0]")
    }

    @Test func sectionDeleteMustNameTheSection() {
        let group = Group(
            sectionChanges: [sectionDelete(1, "a")],
            objectChanges: [objectDelete("p3", from: path(1, 0))])
        #expect(rejection(group) == "section delete names \"a\", but section 1 is \"b\" before the change")
    }
}
