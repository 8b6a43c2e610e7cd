import Foundation
import Testing
import RosterUpdates

/// Hand-written cases: the exact callbacks and the exact batches, with and without moves.
@Suite("Change examples")
struct ChangeExamplesTests {
    private func diff(_ old: Snapshot, _ new: Snapshot, updated: Set<String> = []) -> Group {
        SnapshotDiff.changes(from: old, to: new) { updated.contains($0) }
    }

    @Test func insertIntoEmptyListInsertsTheSectionAndItsItem() throws {
        let old: Snapshot = []
        let new: Snapshot = [ListSection(id: "a", items: ["p1"])]
        let group = diff(old, new)
        #expect(group == Group(
            sectionChanges: [sectionInsert(0, "a")],
            objectChanges: [objectInsert("p1", to: path(0, 0))]))
        let batch = BatchAdapter().batch(for: group)
        #expect(batch == BatchUpdate(insertSections: [0]))
        try batch.validate(old: old, new: new)
        #expect(try group.apply(to: old) == new)
    }

    @Test func deletingTheOnlyItemOfASectionDeletesTheSection() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2"]), ListSection(id: "b", items: ["p3"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let group = diff(old, new)
        #expect(group == Group(
            sectionChanges: [sectionDelete(1, "b")],
            objectChanges: [objectDelete("p3", from: path(1, 0))]))
        let batch = BatchAdapter().batch(for: group)
        #expect(batch == BatchUpdate(deleteSections: [1]))
        try batch.validate(old: old, new: new)
    }

    @Test func deletingTheLastItemOfASectionDeletesOnlyThatItem() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p1"])]
        let group = diff(old, new)
        #expect(group == Group(objectChanges: [objectDelete("p2", from: path(0, 1))]))
        let batch = BatchAdapter().batch(for: group)
        #expect(batch == BatchUpdate(deleteItems: [path(0, 1)]))
        try batch.validate(old: old, new: new)
    }

    @Test func moveWithinASectionMovesOnlyTheItemOutOfOrder() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3", "p4"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p2", "p3", "p1", "p4"])]
        let group = diff(old, new)
        #expect(group == Group(objectChanges: [objectMove("p1", from: path(0, 0), to: path(0, 2))]))
        let split = BatchAdapter().batch(for: group)
        #expect(split == BatchUpdate(deleteItems: [path(0, 0)], insertItems: [path(0, 2)]))
        try split.validate(old: old, new: new)
        let kept = BatchAdapter(keepsMoves: true).batch(for: group)
        #expect(kept == BatchUpdate(moveItems: [ItemMove(from: path(0, 0), to: path(0, 2))]))
        try kept.validate(old: old, new: new)
    }

    @Test func moveAcrossSectionsIsOneMove() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2"]), ListSection(id: "b", items: ["p3"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p1"]), ListSection(id: "b", items: ["p2", "p3"])]
        let group = diff(old, new, updated: ["p2"])
        #expect(group == Group(objectChanges: [objectMove("p2", from: path(0, 1), to: path(1, 0))]))
        let split = BatchAdapter().batch(for: group)
        #expect(split == BatchUpdate(deleteItems: [path(0, 1)], insertItems: [path(1, 0)]))
        try split.validate(old: old, new: new)
        let kept = BatchAdapter(keepsMoves: true).batch(for: group)
        #expect(kept == BatchUpdate(moveItems: [ItemMove(from: path(0, 1), to: path(1, 0))]))
        try kept.validate(old: old, new: new)
    }

    @Test func sectionReorderDeletesAndInsertsTheSectionThatLeavesItsPlace() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1"]), ListSection(id: "b", items: ["p2"]), ListSection(id: "c", items: ["p3"])]
        let new: Snapshot = [ListSection(id: "b", items: ["p2"]), ListSection(id: "c", items: ["p3"]), ListSection(id: "a", items: ["p1"])]
        let group = diff(old, new, updated: ["p1", "p2"])
        #expect(group == Group(
            sectionChanges: [sectionDelete(0, "a"), sectionInsert(2, "a")],
            objectChanges: [
                objectMove("p1", from: path(0, 0), to: path(2, 0)),
                objectUpdate("p2", from: path(1, 0), to: path(0, 0)),
            ]))
        for keepsMoves in [false, true] {
            let batch = BatchAdapter(keepsMoves: keepsMoves).batch(for: group)
            #expect(batch == BatchUpdate(deleteSections: [0], insertSections: [2], reloadItems: [path(1, 0)]))
            try batch.validate(old: old, new: new)
        }
    }

    @Test func updatedItemThatStaysInPlaceIsReloaded() throws {
        let snapshot: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let group = diff(snapshot, snapshot, updated: ["p2"])
        #expect(group == Group(objectChanges: [objectUpdate("p2", from: path(0, 1), to: path(0, 1))]))
        #expect(BatchAdapter().batch(for: group) == BatchUpdate(reloadItems: [path(0, 1)]))
    }

    @Test func unchangedResultsWithoutUpdatesGiveNoEvents() {
        let snapshot: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let group = diff(snapshot, snapshot)
        #expect(group.isEmpty)
        #expect(BatchAdapter().batch(for: group).isEmpty)
    }

    @Test func movedItemGetsOnlyTheMoveNeverAnUpdate() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p2", "p1"])]
        let group = diff(old, new, updated: ["p1", "p2"])
        // Both were edited, so either could be the one that moves: the earlier one stays.
        #expect(group == Group(objectChanges: [
            objectMove("p2", from: path(0, 1), to: path(0, 0)),
            objectUpdate("p1", from: path(0, 0), to: path(0, 1)),
        ]))
        let batch = BatchAdapter().batch(for: group)
        #expect(batch == BatchUpdate(deleteItems: [path(0, 1)], insertItems: [path(0, 0)], reloadItems: [path(0, 0)]))
        try batch.validate(old: old, new: new)
    }

    /// A new section appears at index 4, section 2 disappears, objects from sections 1, 2 and 3
    /// move into the new section.
    @Test func newSectionCollectsObjectsFromThreeSectionsWhileAnotherDisappears() throws {
        let old: Snapshot = [
            ListSection(id: "A", items: ["a1", "a2"]),
            ListSection(id: "B", items: ["b1", "b2", "b3"]),
            ListSection(id: "C", items: ["c1", "c2"]),
            ListSection(id: "D", items: ["d1", "d2", "d3"]),
            ListSection(id: "E", items: ["e1"]),
        ]
        let new: Snapshot = [
            ListSection(id: "A", items: ["a1", "a2"]),
            ListSection(id: "B", items: ["b1", "b3", "b4"]),
            ListSection(id: "D", items: ["d1", "d3"]),
            ListSection(id: "E", items: ["e1"]),
            ListSection(id: "N", items: ["b2", "c1", "n1", "d2"]),
        ]
        let group = diff(old, new, updated: ["a2", "b2", "d3"])
        #expect(group == Group(
            sectionChanges: [sectionDelete(2, "C"), sectionInsert(4, "N")],
            objectChanges: [
                objectInsert("b4", to: path(1, 2)),
                objectInsert("n1", to: path(4, 2)),
                objectDelete("c2", from: path(2, 1)),
                objectMove("b2", from: path(1, 1), to: path(4, 0)),
                objectMove("c1", from: path(2, 0), to: path(4, 1)),
                objectMove("d2", from: path(3, 1), to: path(4, 3)),
                objectUpdate("a2", from: path(0, 1), to: path(0, 1)),
                objectUpdate("d3", from: path(3, 2), to: path(2, 1)),
            ]))
        #expect(try group.apply(to: old) == new)
        for keepsMoves in [false, true] {
            let batch = BatchAdapter(keepsMoves: keepsMoves).batch(for: group)
            #expect(batch == BatchUpdate(
                deleteSections: [2],
                insertSections: [4],
                deleteItems: [path(1, 1), path(3, 1)],
                insertItems: [path(1, 2)],
                reloadItems: [path(0, 1), path(3, 2)]))
            try batch.validate(old: old, new: new)
        }
    }
}
