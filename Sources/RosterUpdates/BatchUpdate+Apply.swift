import Foundation

extension BatchUpdate {
    /// Applies the batch to `old` with UIKit's performBatchUpdates rules; items and sections that the batch
    /// inserts take their identity from `new` at their after-path/after-index (as UIKit asks the data source).
    ///
    /// Deleted sections and deleted or moved-out items leave first; reloaded and reconfigured
    /// items stay where they are, unchanged. Then sections are inserted at their after-indexes in ascending order
    /// (with the items of `new` at that index), and inserted items and move destinations at
    /// their after-paths in ascending order; a moved item carries its identity along.
    ///
    /// - Parameters:
    ///   - old: The data source before the update.
    ///   - new: The data source after the update, which supplies inserted sections and items.
    /// - Returns: What the list view shows after the update.
    /// - Throws: ``BatchError`` for anything UIKit would reject (an index or path out of range,
    ///   a duplicate, a path both deleted and reloaded or moved, an item operation inside a
    ///   deleted or inserted section, a section or item count that does not add up), naming
    ///   the rule, the path or section and the counts.
    /// - Complexity: O(*n* + *b* log *b*) for *n* items and *b* batch entries, expected.
    public func apply<S, I>(to old: [ListSection<S, I>], new: [ListSection<S, I>]) throws -> [ListSection<S, I>] {
        try checkUIKitRules(old: old, new: new)

        let deletedSections = Set(deleteSections)
        let insertedSections = Set(insertSections)
        var removedItemsBySection: [Int: Set<Int>] = [:]
        for path in deleteItems + moveItems.map({ $0.from }) {
            removedItemsBySection[path.section, default: []].insert(path.item)
        }
        var arrivalsBySection: [Int: [Int: I]] = [:]
        for path in insertItems {
            arrivalsBySection[path.section, default: [:]][path.item] = new[path.section].items[path.item]
        }
        for move in moveItems {
            arrivalsBySection[move.to.section, default: [:]][move.to.item] = old[move.from.section].items[move.from.item]
        }

        // Inserting sections and items in ascending after-order amounts to a merge: each
        // after-position takes its arrival if it has one, else the next surviving item.
        var remainingOldSections = old.indices.filter { !deletedSections.contains($0) }.makeIterator()
        var result: [ListSection<S, I>] = []
        result.reserveCapacity(new.count)
        for newIndex in new.indices {
            if insertedSections.contains(newIndex) {
                result.append(new[newIndex])
                continue
            }
            guard let oldIndex = remainingOldSections.next() else {
                // The section count rule, checked above, leaves one old section for each kept new one.
                throw BatchError("invalid number of sections: nothing before the update becomes section \(newIndex)")
            }
            let removed = removedItemsBySection[oldIndex] ?? []
            let survivors = old[oldIndex].items.indices.lazy.filter { !removed.contains($0) }.map { old[oldIndex].items[$0] }
            result.append(ListSection(
                id: old[oldIndex].id,
                items: merge(survivors: Array(survivors), arrivals: arrivalsBySection[newIndex] ?? [:])))
        }
        return result
    }

    /// Throws unless UIKit would accept the batch for old → new AND the spec's stricter rules hold AND apply gives exactly `new`.
    ///
    /// The stricter rules: every list is sorted ascending without duplicates (`moveItems` by
    /// `to`), and no item operation falls inside a deleted or inserted section.
    ///
    /// - Parameters:
    ///   - old: The results before the change.
    ///   - new: The results after the change.
    /// - Throws: ``BatchError`` naming the first broken rule, or the first position where the
    ///   applied batch differs from `new`.
    /// - Complexity: O(*n* + *b* log *b*) for *n* items and *b* batch entries, expected.
    public func validate<S, I>(old: [ListSection<S, I>], new: [ListSection<S, I>]) throws {
        try checkAscending(deleteSections, named: "deleteSections", describe: String.init)
        try checkAscending(insertSections, named: "insertSections", describe: String.init)
        try checkAscending(deleteItems, named: "deleteItems", describe: { $0.listDescription })
        try checkAscending(insertItems, named: "insertItems", describe: { $0.listDescription })
        try checkAscending(reloadItems, named: "reloadItems", describe: { $0.listDescription })
        try checkAscending(moveItems.map { $0.to }, named: "moveItems (by to)", describe: { $0.listDescription })
        try checkAscending(reconfigureItems, named: "reconfigureItems", describe: { $0.listDescription })
        let result = try apply(to: old, new: new)
        if let difference = firstDifference(between: result, and: new) {
            throw BatchError("the batch does not give the new results: \(difference)")
        }
    }

    /// Fills `survivors.count + arrivals.count` positions: each arrival at its own position,
    /// the survivors in order around them.
    private func merge<I>(survivors: [I], arrivals: [Int: I]) -> [I] {
        var items: [I] = []
        items.reserveCapacity(survivors.count + arrivals.count)
        var nextSurvivor = survivors.makeIterator()
        for position in 0..<(survivors.count + arrivals.count) {
            if let arrival = arrivals[position] {
                items.append(arrival)
            } else if let survivor = nextSurvivor.next() {
                items.append(survivor)
            }
        }
        return items
    }

    private func checkAscending<T: Comparable>(
        _ values: [T],
        named name: String,
        describe: (T) -> String
    ) throws(BatchError) {
        for (earlier, later) in zip(values, values.dropFirst()) where !(earlier < later) {
            throw BatchError(earlier == later
                ? "duplicate in \(name): \(describe(later)) appears twice"
                : "\(name) not sorted ascending: \(describe(later)) comes after \(describe(earlier))")
        }
    }
}

/// The first place where two snapshots differ, described for a person; nil when they are equal.
func firstDifference<S, I>(between actual: [ListSection<S, I>], and expected: [ListSection<S, I>]) -> String? {
    guard actual != expected else { return nil }
    for (index, (got, wanted)) in zip(actual, expected).enumerated() {
        if got.id != wanted.id {
            return "section \(index) is \(String(reflecting: got.id)), but \(String(reflecting: wanted.id)) in the new results"
        }
        for (itemIndex, (gotItem, wantedItem)) in zip(got.items, wanted.items).enumerated() where gotItem != wantedItem {
            return "item [\(index),\(itemIndex)] is \(String(reflecting: gotItem)), but \(String(reflecting: wantedItem)) in the new results"
        }
        if got.items.count != wanted.items.count {
            return "section \(index) has \(got.items.count) items, but \(wanted.items.count) in the new results"
        }
    }
    if actual.count != expected.count {
        return "there are \(actual.count) sections, but \(expected.count) in the new results"
    }
    return nil
}
