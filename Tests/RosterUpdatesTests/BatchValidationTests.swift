import Foundation
import Testing
import RosterUpdates

/// Batches that UIKit would reject, or that break the spec's stricter rules, are rejected with
/// a message that names the rule.
@Suite("BatchUpdate validation")
struct BatchValidationTests {
    private let twoItems: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
    private let twoSections: Snapshot = [ListSection(id: "a", items: ["p1", "p2"]), ListSection(id: "b", items: ["p3"])]

    /// The message of the error that `validate` throws, or nil when it accepts the batch.
    private func rejection(_ batch: BatchUpdate, old: Snapshot, new: Snapshot) -> String? {
        do {
            try batch.validate(old: old, new: new)
            return nil
        } catch {
            return (error as? BatchError)?.message ?? "not a BatchError: \(error)"
        }
    }

    @Test func itemCountRuleNamesEveryTerm() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3"])]
        #expect(rejection(BatchUpdate(), old: twoItems, new: new) ==
            "invalid number of items: section 0 (section 0 before the update) has 3 items after the update, "
            + "but 2 before, plus 0 inserted, minus 0 deleted, plus 0 moved in, minus 0 moved out")
    }

    @Test func itemCountRuleCountsMovesBetweenSections() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1"]), ListSection(id: "b", items: ["p2", "p3"])]
        let tooFew = BatchUpdate(moveItems: [ItemMove(from: path(0, 1), to: path(1, 0))])
        #expect(rejection(tooFew, old: twoSections, new: new) == nil)
        let doubled = BatchUpdate(insertItems: [path(1, 1)], moveItems: [ItemMove(from: path(0, 1), to: path(1, 0))])
        #expect(rejection(doubled, old: twoSections, new: new)?.contains(
            "section 1 (section 1 before the update) has 2 items after the update, but 1 before, plus 1 inserted, "
                + "minus 0 deleted, plus 1 moved in, minus 0 moved out") == true)
    }

    @Test func sectionCountRuleIsChecked() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        #expect(rejection(BatchUpdate(), old: twoSections, new: new) ==
            "invalid number of sections: 1 after the update, but 2 before, plus 0 inserted, minus 0 deleted")
    }

    @Test func deleteAndReloadOfOnePathIsRejected() {
        let new: Snapshot = [ListSection(id: "a", items: ["p2"])]
        let batch = BatchUpdate(deleteItems: [path(0, 0)], reloadItems: [path(0, 0)])
        #expect(rejection(batch, old: twoItems, new: new) == "item both deleted and reloaded: [0,0]")
    }

    @Test func reloadOfAMovedPathIsRejected() {
        let new: Snapshot = [ListSection(id: "a", items: ["p2", "p1"])]
        let batch = BatchUpdate(reloadItems: [path(0, 0)], moveItems: [ItemMove(from: path(0, 0), to: path(0, 1))])
        #expect(rejection(batch, old: twoItems, new: new) == "item both reloaded and moved: [0,0]")
    }

    @Test func insertInsideAnInsertedSectionIsRejected() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1"])]
        let batch = BatchUpdate(insertSections: [0], insertItems: [path(0, 0)])
        #expect(rejection(batch, old: [], new: new) ==
            "item insert inside an inserted section: [0,0] is in section 0, which is inserted")
    }

    @Test func moveIntoAnInsertedSectionIsRejected() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1"]), ListSection(id: "c", items: ["p2"]), ListSection(id: "b", items: ["p3"])]
        let batch = BatchUpdate(insertSections: [1], moveItems: [ItemMove(from: path(0, 1), to: path(1, 0))])
        #expect(rejection(batch, old: twoSections, new: new)?.hasPrefix("item move inside an inserted section: [1,0]") == true)
    }

    @Test func deleteInsideADeletedSectionIsRejected() {
        let new: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let batch = BatchUpdate(deleteSections: [1], deleteItems: [path(1, 0)])
        #expect(rejection(batch, old: twoSections, new: new) ==
            "item delete inside a deleted section: [1,0] is in section 1, which is deleted")
        #expect(rejection(BatchUpdate(deleteSections: [1]), old: twoSections, new: new) == nil)
    }

    @Test func pathsOutOfRangeAreRejected() {
        #expect(rejection(BatchUpdate(deleteItems: [path(0, 2)]), old: twoItems, new: twoItems) ==
            "item delete out of range: [0,2] names item 2, but section 0 has 2 items before the update")
        #expect(rejection(BatchUpdate(reloadItems: [path(3, 0)]), old: twoItems, new: twoItems) ==
            "item reload out of range: [3,0] names section 3, but there are 1 sections before the update")
        let grown: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3"])]
        #expect(rejection(BatchUpdate(insertItems: [path(0, 3)]), old: twoItems, new: grown) ==
            "item insert out of range: [0,3] names item 3, but section 0 has 3 items after the update")
        #expect(rejection(BatchUpdate(deleteSections: [2]), old: twoSections, new: twoItems) ==
            "section delete out of range: section 2, but there are 2 sections before the update")
        #expect(rejection(BatchUpdate(insertItems: [IndexPath(indexes: [0, 0, 1])]), old: twoItems, new: grown) ==
            "item insert path [0,0,1] is not [section, item]")
    }

    @Test func duplicatesAreRejected() {
        let shrunk: Snapshot = [ListSection(id: "a", items: ["p2"])]
        let twice = BatchUpdate(deleteItems: [path(0, 0), path(0, 0)])
        #expect(rejection(twice, old: twoItems, new: shrunk) == "duplicate in deleteItems: [0,0] appears twice")
        #expect(throws: BatchError("duplicate item delete: [0,0] appears twice")) {
            try twice.apply(to: twoItems, new: shrunk)
        }
        let swapped: Snapshot = [ListSection(id: "a", items: ["p2", "p1"])]
        let insertAndMoveToOnePath = BatchUpdate(
            deleteItems: [path(0, 1)], insertItems: [path(0, 0)], moveItems: [ItemMove(from: path(0, 0), to: path(0, 0))])
        #expect(rejection(insertAndMoveToOnePath, old: twoItems, new: swapped) == "item both inserted and moved to [0,0]")
    }

    @Test func unsortedListsAreRejectedByValidateOnly() throws {
        let emptied: Snapshot = [ListSection(id: "a", items: [])]
        let batch = BatchUpdate(deleteItems: [path(0, 1), path(0, 0)])
        #expect(rejection(batch, old: twoItems, new: emptied) == "deleteItems not sorted ascending: [0,0] comes after [0,1]")
        #expect(try batch.apply(to: twoItems, new: emptied) == emptied)
    }

    @Test func acceptableBatchThatGivesOtherResultsIsRejected() {
        let swapped: Snapshot = [ListSection(id: "a", items: ["p2", "p1"])]
        let reloadsOnly = BatchUpdate(reloadItems: [path(0, 0), path(0, 1)])
        #expect(rejection(reloadsOnly, old: twoItems, new: swapped) ==
            "the batch does not give the new results: item [0,0] is \"p1\", but \"p2\" in the new results")
    }

    @Test func applyTakesInsertedIdentitiesFromNewAndCarriesMovedOnes() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3"]), ListSection(id: "b", items: ["p4"])]
        let new: Snapshot = [
            ListSection(id: "n", items: ["p9"]),
            ListSection(id: "a", items: ["p3", "p1", "p8"]),
            ListSection(id: "b", items: ["p2", "p4"]),
        ]
        let batch = BatchUpdate(
            insertSections: [0],
            insertItems: [path(1, 2)],
            moveItems: [ItemMove(from: path(0, 2), to: path(1, 0)), ItemMove(from: path(0, 1), to: path(2, 0))])
        #expect(try batch.apply(to: old, new: new) == new)
        try batch.validate(old: old, new: new)
    }
}
