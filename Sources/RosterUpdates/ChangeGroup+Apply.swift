import Foundation

extension ChangeGroup {
    /// Applies the callbacks to `old` with NSFetchedResultsController's conventions; identities come from the events.
    ///
    /// Deletes and moves take their items away from their `from` paths; deleted sections go
    /// (each must be empty by then: every object of a deleted section needs its own delete or
    /// move); inserted sections arrive empty at their after-indexes in ascending order; inserts
    /// and moves place their items at their `to` paths in ascending order. Each update's item
    /// must be at `from` in `old` and at `to` in the result.
    ///
    /// - Parameter old: The results before the change.
    /// - Returns: The results after the change.
    /// - Throws: ``BatchError`` on any inconsistency: a path that is missing, malformed, superfluous or out
    ///   of range, an event whose item is not at its `from` path, an item with two events, a
    ///   deleted section that still holds items or names another section, a section left
    ///   empty, or an item that appears twice in the result.
    /// - Complexity: O(*n* + *e* log *e*) for *n* items and *e* events, expected.
    public func apply(to old: [ListSection<SectionID, ItemID>]) throws -> [ListSection<SectionID, ItemID>] {
        try checkEventShapes()
        let departuresBySection = try departures(from: old)
        let deletedSections = try checkedSectionDeletes(old: old, departuresBySection: departuresBySection)

        var result: [ListSection<SectionID, ItemID>] = []
        for (index, section) in old.enumerated() where !deletedSections.contains(index) {
            let departing = departuresBySection[index] ?? []
            let staying = section.items.indices.lazy.filter { !departing.contains($0) }.map { section.items[$0] }
            result.append(ListSection(id: section.id, items: Array(staying)))
        }
        try insertSections(into: &result)
        try placeArrivals(into: &result)
        try checkUpdates(old: old, result: result)
        try checkResultIsASnapshot(result)
        return result
    }

    /// The results before the change, worked out from the results after it: the group
    /// applied backwards (inserts become deletes, moves and updates run from `to` to `from`).
    ///
    /// - Parameter new: The results after the change.
    /// - Returns: The results before the change.
    /// - Throws: ``BatchError`` when the group does not lead to `new`.
    /// - Complexity: O(*n* + *e* log *e*) for *n* items and *e* events, expected.
    public func unapply(to new: [ListSection<SectionID, ItemID>]) throws -> [ListSection<SectionID, ItemID>] {
        var inverse = ChangeGroup()
        inverse.sectionChanges = sectionChanges.map { change in
            SectionChange(type: change.type == .delete ? .insert : .delete, index: change.index, section: change.section)
        }
        inverse.objectChanges = objectChanges.map { change in
            let type: ObjectChangeType = switch change.type {
            case .insert: .delete
            case .delete: .insert
            default: change.type
            }
            return ObjectChange(type: type, item: change.item, from: change.to, to: change.from)
        }
        return try inverse.apply(to: new)
    }

    /// One event per item; an insert has no `from` and a delete no `to`.
    private func checkEventShapes() throws(BatchError) {
        var seen = Set<ItemID>()
        for change in objectChanges {
            guard seen.insert(change.item).inserted else {
                throw BatchError("item \(String(reflecting: change.item)) has more than one object event")
            }
            if change.type == .insert, let from = change.from {
                throw BatchError("object insert of \(String(reflecting: change.item)) has a from path \(from.listDescription)")
            }
            if change.type == .delete, let to = change.to {
                throw BatchError("object delete of \(String(reflecting: change.item)) has a to path \(to.listDescription)")
            }
        }
    }

    /// The before-paths that deletes and moves empty, by section; checks that each names its item.
    private func departures(from old: [ListSection<SectionID, ItemID>]) throws(BatchError) -> [Int: Set<Int>] {
        var departures: [Int: Set<Int>] = [:]
        for change in objectChanges where change.type == .delete || change.type == .move {
            let from = try requiredPath(change.from, "from", of: change)
            try checkItem(change, isAt: from, in: old, named: "before the change")
            guard departures[from.section, default: []].insert(from.item).inserted else {
                throw BatchError("two events take the item at \(from.listDescription) away")
            }
        }
        return departures
    }

    /// The deleted sections' before-indexes, once each is checked and found emptied.
    private func checkedSectionDeletes(
        old: [ListSection<SectionID, ItemID>],
        departuresBySection: [Int: Set<Int>]
    ) throws(BatchError) -> Set<Int> {
        var deleted = Set<Int>()
        for change in sectionChanges where change.type == .delete {
            guard (0..<old.count).contains(change.index) else {
                throw BatchError("section delete out of range: section \(change.index), but there are \(old.count) sections before the change")
            }
            let section = old[change.index]
            guard section.id == change.section else {
                throw BatchError("section delete names \(String(reflecting: change.section)), but section \(change.index) "
                    + "is \(String(reflecting: section.id)) before the change")
            }
            guard deleted.insert(change.index).inserted else {
                throw BatchError("duplicate section delete: section \(change.index) is deleted twice")
            }
            let departing = departuresBySection[change.index] ?? []
            if let leftover = section.items.indices.first(where: { !departing.contains($0) }) {
                throw BatchError("deleted section \(change.index) (\(String(reflecting: section.id))) still holds "
                    + "\(section.items.count - departing.count) items, first \(String(reflecting: section.items[leftover])) "
                    + "at [\(change.index),\(leftover)]: every object of a deleted section needs its own delete or move event")
            }
        }
        return deleted
    }

    private func insertSections(into result: inout [ListSection<SectionID, ItemID>]) throws(BatchError) {
        let inserts = sectionChanges.filter { $0.type == .insert }.sorted { $0.index < $1.index }
        for (earlier, later) in zip(inserts, inserts.dropFirst()) where earlier.index == later.index {
            throw BatchError("duplicate section insert: section \(later.index) is inserted twice")
        }
        for change in inserts {
            guard (0...result.count).contains(change.index) else {
                throw BatchError("section insert out of range: section \(change.index), but there are only "
                    + "\(result.count) sections before it is inserted")
            }
            result.insert(ListSection(id: change.section, items: []), at: change.index)
        }
    }

    /// Places the items of inserts and moves at their after-paths, in ascending order.
    private func placeArrivals(into result: inout [ListSection<SectionID, ItemID>]) throws(BatchError) {
        var arrivalsBySection: [Int: [Int: ItemID]] = [:]
        for change in objectChanges where change.type == .insert || change.type == .move {
            let to = try requiredPath(change.to, "to", of: change)
            guard to.section < result.count else {
                throw BatchError("object \(change.type) to \(to.listDescription) out of range: there are "
                    + "\(result.count) sections after the change")
            }
            if arrivalsBySection[to.section, default: [:]].updateValue(change.item, forKey: to.item) != nil {
                throw BatchError("two events place an item at \(to.listDescription)")
            }
        }
        for (sectionIndex, arrivals) in arrivalsBySection {
            let staying = result[sectionIndex].items
            let finalCount = staying.count + arrivals.count
            // Inserting in ascending order succeeds exactly when every position is below the final count.
            if let (position, item) = arrivals.filter({ $0.key >= finalCount }).min(by: { $0.key < $1.key }) {
                throw BatchError("object at [\(sectionIndex),\(position)] (\(String(reflecting: item))) out of range: "
                    + "section \(sectionIndex) has only \(finalCount) items after the change")
            }
            var items: [ItemID] = []
            items.reserveCapacity(finalCount)
            var nextStaying = staying.makeIterator()
            for position in 0..<finalCount {
                if let arrival = arrivals[position] {
                    items.append(arrival)
                } else if let item = nextStaying.next() {
                    items.append(item)
                }
            }
            result[sectionIndex].items = items
        }
    }

    private func checkUpdates(old: [ListSection<SectionID, ItemID>], result: [ListSection<SectionID, ItemID>]) throws(BatchError) {
        for change in objectChanges where change.type == .update {
            let from = try requiredPath(change.from, "from", of: change)
            let to = try requiredPath(change.to, "to", of: change)
            try checkItem(change, isAt: from, in: old, named: "before the change")
            try checkItem(change, isAt: to, in: result, named: "after the change")
        }
    }

    /// Snapshots hold no empty section and no item twice.
    private func checkResultIsASnapshot(_ result: [ListSection<SectionID, ItemID>]) throws(BatchError) {
        var pathByItem: [ItemID: IndexPath] = [:]
        for (sectionIndex, section) in result.enumerated() {
            guard !section.items.isEmpty else {
                throw BatchError("section \(sectionIndex) (\(String(reflecting: section.id))) is empty after the change: "
                    + "an emptied section needs a section delete, an inserted one at least one insert or move")
            }
            for (itemIndex, item) in section.items.enumerated() {
                let path = IndexPath(item: itemIndex, section: sectionIndex)
                if let earlier = pathByItem.updateValue(path, forKey: item) {
                    throw BatchError("item \(String(reflecting: item)) appears twice after the change, "
                        + "at \(earlier.listDescription) and \(path.listDescription)")
                }
            }
        }
    }

    private func requiredPath(_ path: IndexPath?, _ name: String, of change: ObjectChange<ItemID>) throws(BatchError) -> IndexPath {
        guard let path else {
            throw BatchError("object \(change.type) of \(String(reflecting: change.item)) has no \(name) path")
        }
        guard path.isSectionItemPair else {
            throw BatchError("object \(change.type) of \(String(reflecting: change.item)) has \(name) path "
                + "\(path.listDescription), which is not [section, item]")
        }
        return path
    }

    private func checkItem(
        _ change: ObjectChange<ItemID>,
        isAt path: IndexPath,
        in sections: [ListSection<SectionID, ItemID>],
        named moment: String
    ) throws(BatchError) {
        guard path.section < sections.count, path.item < sections[path.section].items.count else {
            throw BatchError("object \(change.type) of \(String(reflecting: change.item)): \(path.listDescription) "
                + "is out of range \(moment)")
        }
        let found = sections[path.section].items[path.item]
        guard found == change.item else {
            throw BatchError("object \(change.type) of \(String(reflecting: change.item)): the item at "
                + "\(path.listDescription) \(moment) is \(String(reflecting: found))")
        }
    }
}
