import Foundation
import RosterTestSupport
import RosterUpdates
import Testing

/// `BatchAdapter.reloadingAttributes`: updates that name their changed attributes are
/// reconfigured (by after-path) unless they changed an attribute that needs a new cell;
/// `BatchUpdate.reconfigureItems` obeys the rules of a reconfigure.
@Suite("Reconfigure or reload")
struct ReconfigureTests {
    private let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3"])]
    private let new: Snapshot = [ListSection(id: "a", items: ["p0", "p1", "p3"])]

    /// p0 inserted, p2 deleted, p1 and p3 updated: p1 naming `title`, p3 naming nothing.
    private func group(p1Changed: [String]?) -> ChangeGroup<String, String> {
        ChangeGroup(sectionChanges: [], objectChanges: [
            ObjectChange(type: .insert, item: "p0", from: nil, to: path(0, 0)),
            ObjectChange(type: .delete, item: "p2", from: path(0, 1), to: nil),
            ObjectChange(type: .update, item: "p1", from: path(0, 0), to: path(0, 1), changedAttributes: p1Changed),
            ObjectChange(type: .update, item: "p3", from: path(0, 2), to: path(0, 2)),
        ])
    }

    @Test func withoutReloadingAttributesEveryUpdateIsReloaded() throws {
        let batch = BatchAdapter().batch(for: group(p1Changed: ["title"]))
        #expect(batch.reloadItems == [path(0, 0), path(0, 2)])
        #expect(batch.reconfigureItems.isEmpty)
        try batch.validate(old: old, new: new)
    }

    @Test func namedUpdatesAreReconfiguredByTheirAfterPath() throws {
        let batch = BatchAdapter(reloadingAttributes: []).batch(for: group(p1Changed: ["title"]))
        #expect(batch.reconfigureItems == [path(0, 1)], "p1 is at [0,1] once p0 is inserted")
        #expect(batch.reloadItems == [path(0, 2)], "p3 names nothing: reloaded")
        try batch.validate(old: old, new: new)
    }

    @Test func anUpdateOfAReloadingAttributeIsReloaded() throws {
        let batch = BatchAdapter(reloadingAttributes: ["body"]).batch(for: group(p1Changed: ["title", "body"]))
        #expect(batch.reconfigureItems.isEmpty)
        #expect(batch.reloadItems == [path(0, 0), path(0, 2)])
        let title = BatchAdapter(reloadingAttributes: ["body"]).batch(for: group(p1Changed: ["title"]))
        #expect(title.reconfigureItems == [path(0, 1)])
    }

    @Test func anItemThatAlsoMovesIsNotReconfiguredAndAMoveThatChangedValuesIsSplit() throws {
        let old: Snapshot = [ListSection(id: "a", items: ["p1", "p2", "p3"])]
        let new: Snapshot = [ListSection(id: "a", items: ["p2", "p3", "p1"])]
        // A group with both a move and an update of p1 (NSFetchedResultsController can send one).
        let both = ChangeGroup<String, String>(objectChanges: [
            ObjectChange(type: .move, item: "p1", from: path(0, 0), to: path(0, 2)),
            ObjectChange(type: .update, item: "p1", from: path(0, 0), to: path(0, 2), changedAttributes: ["title"]),
        ])
        for keepsMoves in [false, true] {
            let batch = BatchAdapter(keepsMoves: keepsMoves, reloadingAttributes: []).batch(for: both)
            #expect(batch.reconfigureItems.isEmpty)
            try batch.validate(old: old, new: new)
        }
        // A kept move would show the old values: a move that names changed values is split.
        let named = ChangeGroup<String, String>(objectChanges: [
            ObjectChange(type: .move, item: "p1", from: path(0, 0), to: path(0, 2), changedAttributes: ["rank"]),
        ])
        let split = BatchAdapter(keepsMoves: true).batch(for: named)
        #expect(split.moveItems.isEmpty && split.deleteItems == [path(0, 0)] && split.insertItems == [path(0, 2)])
        var unnamed = named
        unnamed.objectChanges[0].changedAttributes = nil
        #expect(BatchAdapter(keepsMoves: true).batch(for: unnamed).moveItems == [ItemMove(from: path(0, 0), to: path(0, 2))])
    }

    @Test func aReconfigureOfAnInsertedOrMovedItemOrOutOfRangeIsRejected() {
        func rejection(_ batch: BatchUpdate) -> String? {
            do { try batch.validate(old: old, new: new); return nil } catch { return (error as? BatchError)?.message ?? "not a BatchError: \(error)" }
        }
        let base = BatchUpdate(deleteItems: [path(0, 1)], insertItems: [path(0, 0)])
        var inserted = base
        inserted.reconfigureItems = [path(0, 0)]
        #expect(rejection(inserted) == "item both inserted and reconfigured at [0,0]: a reconfigured item stays in place")
        var outside = base
        outside.reconfigureItems = [path(0, 3)]
        #expect(rejection(outside)?.contains("item reconfigure out of range") == true)
        var twice = base
        twice.reconfigureItems = [path(0, 1), path(0, 1)]
        #expect(rejection(twice)?.contains("reconfigure") == true)
        var unsorted = base
        unsorted.reconfigureItems = [path(0, 2), path(0, 1)]
        #expect(rejection(unsorted)?.contains("reconfigureItems") == true)
        var fine = base
        fine.reconfigureItems = [path(0, 1), path(0, 2)]
        #expect(rejection(fine) == nil)
    }

    @Test("random diffs whose updates name attributes: every batch is valid, and every update is reloaded or reconfigured once",
          arguments: 0..<4)
    func randomBatchesStayValid(slice: UInt64) throws {
        for seed in stride(from: slice, to: 120, by: 4) {
            var random = SplitMix64(seed: 500 + seed)
            let old = randomSnapshot(itemCount: Int.random(in: 0...40, using: &random), using: &random)
            let new = randomChange(of: old, using: &random)
            let updated = Set(pathsByItem(old).keys.filter { _ in Int.random(in: 0..<3, using: &random) == 0 })
            var group = SnapshotDiff.changes(from: old, to: new) { updated.contains($0) }
            for index in group.objectChanges.indices where group.objectChanges[index].type == .update {
                let draw = Int.random(in: 0..<10, using: &random)
                group.objectChanges[index].changedAttributes = draw < 4 ? ["title"] : draw < 7 ? ["body"] : nil
            }
            let batch = BatchAdapter(reloadingAttributes: ["body"]).batch(for: group)
            try batch.validate(old: old, new: new)
            let updates = group.objectChanges.filter { $0.type == .update }
            let crossing = { (change: ObjectChange<String>) in
                batch.deleteSections.contains(change.from?.section ?? -1) || batch.insertSections.contains(change.to?.section ?? -1)
            }
            let titled = updates.filter { $0.changedAttributes == ["title"] && !crossing($0) }.compactMap(\.to)
            let others = updates.filter { $0.changedAttributes != ["title"] }.compactMap(\.to)
            #expect(Set(batch.reconfigureItems) == Set(titled), "seed \(seed)")
            #expect(Set(batch.reconfigureItems).isDisjoint(with: others), "seed \(seed)")
            #expect(batch.reconfigureItems.count + batch.reloadItems.count <= updates.count, "seed \(seed)")
        }
    }
}
