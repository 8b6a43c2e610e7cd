import Foundation

/// Computes the NSFetchedResultsController-style callbacks between two snapshots of results.
///
/// ```swift
/// let old = [ListSection(id: "a", items: [1, 2, 3])]
/// let new = [ListSection(id: "a", items: [3, 1, 2, 4])]
/// let group = SnapshotDiff.changes(from: old, to: new) { _ in false }
/// // insert 4 to [0,3]; move 3 from [0,2] to [0,0]
/// ```
public enum SnapshotDiff {
    /// The NSFetchedResultsController-style callbacks that turn `old` into `new`.
    ///
    /// Sections are matched by identifier. The sections that stay keep their relative order
    /// and are chosen so that the fewest items move: each is weighed by the items it keeps
    /// in place, and the heaviest increasing run of sections stays (ties: fewest moves, then
    /// most sections kept, then the sections earliest in `old`). Every other old section is
    /// deleted and every other new section inserted. An item that stays is moved when its
    /// section changes identifier, is deleted or is inserted; inside a section that stays,
    /// the fewest items are moved that leave the others in order (a longest increasing
    /// subsequence). A staying item that is not moved and for which `isUpdated` is true gets
    /// an update. When several sets of moves are equally small, the one that moves updated
    /// items rather than unchanged ones is chosen.
    ///
    /// Events come in this order: section deletes (ascending index), section inserts
    /// (ascending index), object inserts (ascending `to`), deletes (ascending `from`), moves
    /// (ascending `to`), updates (ascending `from`).
    ///
    /// - Parameters:
    ///   - old: The results before the change: no empty section, no identifier twice.
    ///   - new: The results after the change, under the same rules.
    ///   - isUpdated: Whether a staying item's values changed; asked only for items that stay.
    /// - Returns: The group of callbacks; empty when `old` and `new` are equal and nothing is updated.
    /// - Complexity: O(*n* log *n*) for *n* sections and items, expected (hashing).
    public static func changes<S, I>(
        from old: [ListSection<S, I>],
        to new: [ListSection<S, I>],
        isUpdated: (I) -> Bool
    ) -> ChangeGroup<S, I> {
        specializableChanges(from: old, to: new, isUpdated: isUpdated)
    }

    /// ``changes(from:to:isUpdated:)``, inlinable, for Roster's engine: compiled for its
    /// item and section types where it calls it, not through generic witnesses (a window's
    /// delivery diffs its rows each time).
    @_spi(RosterEngine) @inlinable
    public static func specializableChanges<S, I>(
        from old: [ListSection<S, I>],
        to new: [ListSection<S, I>],
        isUpdated: (I) -> Bool
    ) -> ChangeGroup<S, I> {
        // Nothing came, went or moved (a commit that only changed values): updates alone,
        // in order, without matching sections and items (O(n) comparisons).
        if old == new {
            var updates: [ObjectChange<I>] = []
            for (sectionIndex, section) in old.enumerated() {
                for (index, item) in section.items.enumerated() where isUpdated(item) {
                    let path = IndexPath(item: index, section: sectionIndex)
                    updates.append(ObjectChange(type: .update, item: item, from: path, to: path))
                }
            }
            return ChangeGroup(objectChanges: updates)
        }
        var newItems: [I] = []
        newItems.reserveCapacity(new.reduce(0) { $0 + $1.items.count })
        for section in new { newItems.append(contentsOf: section.items) }
        var newPositionOfItem: [I: Int32] = [:]
        newPositionOfItem.reserveCapacity(newItems.count)
        for (position, item) in newItems.enumerated() { newPositionOfItem[item] = Int32(position) }

        var oldItems: [I] = []
        oldItems.reserveCapacity(old.reduce(0) { $0 + $1.items.count })
        for section in old { oldItems.append(contentsOf: section.items) }
        let newPosition = oldItems.map { newPositionOfItem[$0] ?? -1 }

        return PositionDiff.changes(
            from: SnapshotShape(sections: old.map(\.id), counts: old.map(\.items.count)),
            to: SnapshotShape(sections: new.map(\.id), counts: new.map(\.items.count)),
            newPosition: newPosition,
            oldItem: { oldItems[$0] }, newItem: { newItems[$0] }, isUpdated: { isUpdated(oldItems[$0]) })
    }
}
