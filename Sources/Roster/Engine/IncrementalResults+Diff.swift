@_spi(RosterEngine) import RosterUpdates

extension IncrementalResults {
    /// The results' sections and their row counts, in order.
    var shape: SnapshotShape<Value> {
        let names = sectionNames.elements
        return SnapshotShape(sections: names, counts: names.map { sectionCounts[$0, default: 0] })
    }

    /// The change from `old` to `new` by ``SnapshotDiff``'s rules, worked out on the two
    /// engines' ids: where each old row went is found by walking both orders together
    /// (one key comparison while rows line up, a key-index lookup where they do not), or,
    /// when the two share one arena, by each id's new rank; neither snapshot of keys is
    /// built. The re-fetch and re-sort paths of a bulk commit.
    ///
    /// - Parameters:
    ///   - old: the results the delegate saw.
    ///   - new: the results now, re-fetched or re-sorted (``resorting(touched:)``).
    ///   - touched: the commit's rows: which staying rows changed values, and the rows of
    ///     those that left.
    ///   - touchedIDs: when the caller knows them (``resorting(touched:)``), a non-zero
    ///     mark for the old id of each touched row that stays and changed values, or
    ///     leaves (only rows that stay are asked whether they were updated); else the
    ///     changed rows are looked up from `touched`.
    /// - Returns: the change, or nil when there is none.
    /// - Complexity: O(*n*) for *n* rows, plus O(*r* log *r*) for the *r* runs of rows that
    ///   keep their neighbours.
    static func change(from old: IncrementalResults, to new: IncrementalResults, touched: [Value: TouchedRow], touchedIDs: [UInt8]? = nil) -> QueryChange? {
        let oldIDs = old.tree.elements
        let newIDs = new.tree.elements
        var rankOfNewID = [Int32](repeating: -1, count: new.arena.keys.count)
        for (rank, id) in newIDs.enumerated() { rankOfNewID[Int(id)] = Int32(rank) }
        if old.arena === new.arena {
            // One arena (``resorting(touched:)``): a row that stays kept its id, so where it
            // went is its id's rank, and no key is compared.
            let newPosition = oldIDs.map { rankOfNewID[Int($0)] }
            return change(from: old, to: new, oldIDs: oldIDs, newIDs: newIDs, newPosition: newPosition, touched: touched, touchedIDs: touchedIDs)
        }
        // Walk both orders together: while the rows line up, the old row at hand is the new
        // row at hand, found with one comparison of keys. A row that does not line up is
        // looked up by key. When it is further down, either it moved down (the next old
        // row lines up with the new row at hand: stay) or the new rows before it were
        // inserted or moved up (skip to it; those moved are looked up in their turn).
        var newPosition = [Int32](repeating: -1, count: oldIDs.count)
        var isMatched = [Bool](repeating: false, count: newIDs.count)
        var next = 0
        for (position, id) in oldIDs.enumerated() {
            let key = old.arena.keys[Int(id)]
            while next < newIDs.count && isMatched[next] { next += 1 }
            let target: Int
            if next < newIDs.count && new.arena.keys.holds(key, at: Int(newIDs[next])) {
                target = next
            } else if let newID = new.arena.id(forKey: key) {
                target = Int(rankOfNewID[Int(newID)])
            } else {
                continue
            }
            newPosition[position] = Int32(target)
            isMatched[target] = true
            if target == next {
                next += 1
            } else if target > next {
                let movedDown = position + 1 < oldIDs.count && old.arena.keys[Int(oldIDs[position + 1])] == new.arena.keys[Int(newIDs[next])]
                if !movedDown { next = target + 1 }
            }
        }
        return change(from: old, to: new, oldIDs: oldIDs, newIDs: newIDs, newPosition: newPosition, touched: touched)
    }

    /// The change, once each old row's new position is known (-1: it left).
    private static func change(from old: IncrementalResults, to new: IncrementalResults, oldIDs: [Int32], newIDs: [Int32],
                               newPosition: [Int32], touched: [Value: TouchedRow], touchedIDs: [UInt8]? = nil) -> QueryChange? {
        let isChangedID = touchedIDs ?? {
            var marks = [UInt8](repeating: 0, count: old.arena.keys.count)
            for (key, row) in touched where row.isChanged {
                if let id = old.arena.id(forKey: key) { marks[Int(id)] = 1 }
            }
            return marks
        }()
        let oldShape = old.shape
        let group = PositionDiff.changes(
            from: oldShape, to: new.shape, newPosition: newPosition,
            oldItem: { old.arena.keys[Int(oldIDs[$0])] }, newItem: { new.arena.keys[Int(newIDs[$0])] },
            isUpdated: { isChangedID[Int(oldIDs[$0])] != 0 })
        guard !group.isEmpty else { return nil }
        var change = QueryChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = touched[object.item]?.before ?? old.knownRow(forKey: object.item)
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = oldShape.counts[section.index]
        }
        return change
    }
}
