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
        let oldLocations = locationsByItem(old)
        let newLocations = locationsByItem(new)
        let runs = InPlaceRuns(old: old, new: new, newLocations: newLocations, isUpdated: isUpdated)
        let sections = SectionMatching(old: old.map(\.id), new: new.map(\.id)) { oldIndex, _ in
            runs.keptCount[oldIndex]
        }
        var group = ChangeGroup<S, I>()
        for (oldIndex, keptAs) in sections.keptNewIndexByOldIndex.enumerated() where keptAs == nil {
            group.sectionChanges.append(SectionChange(type: .delete, index: oldIndex, section: old[oldIndex].id))
        }
        for (newIndex, isKept) in sections.isNewSectionKept.enumerated() where !isKept {
            group.sectionChanges.append(SectionChange(type: .insert, index: newIndex, section: new[newIndex].id))
        }

        let movedItems = runs.itemsToMove(old: old, newLocations: newLocations, sections: sections)

        var inserts: [ObjectChange<I>] = []
        var moves: [ObjectChange<I>] = []
        for (sectionIndex, section) in new.enumerated() {
            for (itemIndex, item) in section.items.enumerated() {
                let to = ItemLocation(section: sectionIndex, item: itemIndex)
                if let from = oldLocations[item] {
                    if movedItems.contains(item) {
                        moves.append(ObjectChange(type: .move, item: item, from: from.indexPath, to: to.indexPath))
                    }
                } else {
                    inserts.append(ObjectChange(type: .insert, item: item, from: nil, to: to.indexPath))
                }
            }
        }

        var deletes: [ObjectChange<I>] = []
        var updates: [ObjectChange<I>] = []
        for (sectionIndex, section) in old.enumerated() {
            for (itemIndex, item) in section.items.enumerated() {
                let from = ItemLocation(section: sectionIndex, item: itemIndex)
                if let to = newLocations[item] {
                    if !movedItems.contains(item) && isUpdated(item) {
                        updates.append(ObjectChange(type: .update, item: item, from: from.indexPath, to: to.indexPath))
                    }
                } else {
                    deletes.append(ObjectChange(type: .delete, item: item, from: from.indexPath, to: nil))
                }
            }
        }

        group.objectChanges = inserts + deletes + moves + updates
        return group
    }

    /// Every item's location in `sections`.
    private static func locationsByItem<S, I>(_ sections: [ListSection<S, I>]) -> [I: ItemLocation] {
        var locations: [I: ItemLocation] = [:]
        locations.reserveCapacity(sections.reduce(0) { $0 + $1.items.count })
        for (sectionIndex, section) in sections.enumerated() {
            for (itemIndex, item) in section.items.enumerated() {
                locations[item] = ItemLocation(section: sectionIndex, item: itemIndex)
            }
        }
        return locations
    }
}

/// For each old section whose identifier is among the new sections: which of its items would
/// stay in place if the section stays, that is a heaviest run of the items that land in its
/// namesake whose new order agrees with their old order.
private struct InPlaceRuns<S: Hashable & Sendable, I: Hashable & Sendable> {
    /// Per old section, how many items stay in place if it stays (0 for a section not in `new`).
    private(set) var keptCount: [Int]
    /// Per old section, the staying items that move even if it stays: those that land in
    /// another section and those outside its in-place run.
    private var movedIfKept: [[I]]

    init(old: [ListSection<S, I>], new: [ListSection<S, I>], newLocations: [I: ItemLocation], isUpdated: (I) -> Bool) {
        var newIndexByID: [S: Int] = [:]
        newIndexByID.reserveCapacity(new.count)
        for (index, section) in new.enumerated() { newIndexByID[section.id] = index }
        keptCount = [Int](repeating: 0, count: old.count)
        movedIfKept = [[I]](repeating: [], count: old.count)
        for (oldSectionIndex, section) in old.enumerated() {
            guard let namesake = newIndexByID[section.id] else { continue }
            var candidates: [I] = []
            var candidateNewItemIndexes: [Int] = []
            for item in section.items {
                guard let to = newLocations[item] else { continue }
                if to.section == namesake {
                    candidates.append(item)
                    candidateNewItemIndexes.append(to.item)
                } else {
                    movedIfKept[oldSectionIndex].append(item)
                }
            }
            // Among equally few moves, keep unchanged items in place and move edited ones.
            let staysInOrder = heaviestIncreasingSubsequenceMembers(
                candidateNewItemIndexes, weights: candidates.map { (1, isUpdated($0) ? 0 : 1) })
            for (item, isInOrder) in zip(candidates, staysInOrder) {
                if isInOrder {
                    keptCount[oldSectionIndex] += 1
                } else {
                    movedIfKept[oldSectionIndex].append(item)
                }
            }
        }
    }

    /// The staying items that must move: every staying item of a section that does not stay,
    /// and, of a section that stays, those that change section or fall outside its run.
    func itemsToMove(old: [ListSection<S, I>], newLocations: [I: ItemLocation], sections: SectionMatching<S>) -> Set<I> {
        var moved = Set<I>()
        for (oldSectionIndex, section) in old.enumerated() {
            if sections.keptNewIndexByOldIndex[oldSectionIndex] != nil {
                moved.formUnion(movedIfKept[oldSectionIndex])
            } else {
                for item in section.items where newLocations[item] != nil { moved.insert(item) }
            }
        }
        return moved
    }
}

/// Where an item is, as two plain integers: cheaper to store and hash than an `IndexPath`.
private struct ItemLocation {
    var section: Int
    var item: Int

    var indexPath: IndexPath { IndexPath(item: item, section: section) }
}
