import Foundation

/// Computes the NSFetchedResultsController-style callbacks between two snapshots of results.
///
/// ```swift
/// let old = [Section(id: "a", items: [1, 2, 3])]
/// let new = [Section(id: "a", items: [3, 1, 2, 4])]
/// let group = SnapshotDiff.changes(from: old, to: new) { _ in false }
/// // insert 4 to [0,3]; move 3 from [0,2] to [0,0]
/// ```
public enum SnapshotDiff {
    /// The NSFetchedResultsController-style callbacks that turn `old` into `new`.
    ///
    /// Sections are matched by identifier; a largest set of common sections that keep their
    /// relative order stays, every other old section is deleted and every other new section
    /// inserted. An item that stays is moved when its section changes identifier, is deleted
    /// or is inserted; inside a section that stays, the fewest items are moved that leave the
    /// others in order (a longest increasing subsequence). A staying item that is not moved
    /// and for which `isUpdated` is true gets an update. When several sets of moves are
    /// equally small, the one that moves updated items rather than unchanged ones is chosen.
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
        from old: [Section<S, I>],
        to new: [Section<S, I>],
        isUpdated: (I) -> Bool
    ) -> ChangeGroup<S, I> {
        let sections = SectionMatching(old: old, new: new)
        var group = ChangeGroup<S, I>()
        for (oldIndex, keptAs) in sections.keptNewIndexByOldIndex.enumerated() where keptAs == nil {
            group.sectionChanges.append(SectionChange(type: .delete, index: oldIndex, section: old[oldIndex].id))
        }
        for (newIndex, isKept) in sections.isNewSectionKept.enumerated() where !isKept {
            group.sectionChanges.append(SectionChange(type: .insert, index: newIndex, section: new[newIndex].id))
        }

        let oldLocations = locationsByItem(old)
        let newLocations = locationsByItem(new)
        let movedItems = itemsToMove(old: old, newLocations: newLocations, sections: sections, isUpdated: isUpdated)

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
    private static func locationsByItem<S, I>(_ sections: [Section<S, I>]) -> [I: ItemLocation] {
        var locations: [I: ItemLocation] = [:]
        locations.reserveCapacity(sections.reduce(0) { $0 + $1.items.count })
        for (sectionIndex, section) in sections.enumerated() {
            for (itemIndex, item) in section.items.enumerated() {
                locations[item] = ItemLocation(section: sectionIndex, item: itemIndex)
            }
        }
        return locations
    }

    /// The staying items that must move: those whose section does not stay as the same
    /// section, and, inside each section that stays, those outside a longest run of items
    /// whose new order agrees with their old order.
    private static func itemsToMove<S, I>(
        old: [Section<S, I>],
        newLocations: [I: ItemLocation],
        sections: SectionMatching<S>,
        isUpdated: (I) -> Bool
    ) -> Set<I> {
        var moved = Set<I>()
        for (oldSectionIndex, section) in old.enumerated() {
            let keptAs = sections.keptNewIndexByOldIndex[oldSectionIndex]
            var inPlaceCandidates: [I] = []
            var candidateNewItemIndexes: [Int] = []
            for item in section.items {
                guard let to = newLocations[item] else { continue }
                if to.section == keptAs {
                    inPlaceCandidates.append(item)
                    candidateNewItemIndexes.append(to.item)
                } else {
                    moved.insert(item)
                }
            }
            // Among equally few moves, keep unchanged items in place and move edited ones.
            let staysInOrder = heaviestIncreasingSubsequenceMembers(
                candidateNewItemIndexes, weights: inPlaceCandidates.map { (1, isUpdated($0) ? 0 : 1) })
            for (item, isInOrder) in zip(inPlaceCandidates, staysInOrder) where !isInOrder {
                moved.insert(item)
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
