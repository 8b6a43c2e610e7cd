import Foundation

/// The checks UIKit makes before it performs a batch, and the spec's stricter ones.
extension BatchUpdate {
    /// Throws for any batch that UIKit's `performBatchUpdates` would reject when the data
    /// source goes from `old` to `new`, with the spec's rules on item operations inside
    /// deleted or inserted sections.
    func checkUIKitRules<S, I>(old: [ListSection<S, I>], new: [ListSection<S, I>]) throws(BatchError) {
        try checkSectionOperations(oldCount: old.count, newCount: new.count)
        let deletedSections = Set(deleteSections)
        let insertedSections = Set(insertSections)
        try checkBeforePaths(old: old, deletedSections: deletedSections)
        try checkAfterPaths(new: new, insertedSections: insertedSections)
        try checkItemCounts(old: old, new: new, deletedSections: deletedSections, insertedSections: insertedSections)
    }

    private func checkSectionOperations(oldCount: Int, newCount: Int) throws(BatchError) {
        var seenDeletes = Set<Int>()
        for index in deleteSections {
            guard (0..<oldCount).contains(index) else {
                throw BatchError("section delete out of range: section \(index), but there are \(oldCount) sections before the update")
            }
            guard seenDeletes.insert(index).inserted else {
                throw BatchError("duplicate section delete: section \(index) is deleted twice")
            }
        }
        var seenInserts = Set<Int>()
        for index in insertSections {
            guard (0..<newCount).contains(index) else {
                throw BatchError("section insert out of range: section \(index), but there are \(newCount) sections after the update")
            }
            guard seenInserts.insert(index).inserted else {
                throw BatchError("duplicate section insert: section \(index) is inserted twice")
            }
        }
        if newCount != oldCount + insertSections.count - deleteSections.count {
            throw BatchError(
                "invalid number of sections: \(newCount) after the update, but \(oldCount) before, "
                    + "plus \(insertSections.count) inserted, minus \(deleteSections.count) deleted")
        }
    }

    /// Deletes, reloads and move sources: before-paths of distinct items outside deleted sections.
    private func checkBeforePaths<S, I>(old: [ListSection<S, I>], deletedSections: Set<Int>) throws(BatchError) {
        var operationByPath: [IndexPath: ItemOperation] = [:]
        let operations = deleteItems.map { ($0, ItemOperation.delete) }
            + reloadItems.map { ($0, ItemOperation.reload) }
            + moveItems.map { ($0.from, ItemOperation.move) }
        for (path, operation) in operations {
            try checkRange(of: path, for: operation, in: old, when: "before")
            guard !deletedSections.contains(path.section) else {
                throw BatchError("item \(operation) inside a deleted section: \(path.listDescription) is in section \(path.section), which is deleted")
            }
            if let earlier = operationByPath.updateValue(operation, forKey: path) {
                throw BatchError(earlier == operation
                    ? "duplicate item \(operation): \(path.listDescription) appears twice"
                    : "item both \(earlier.pastTense) and \(operation.pastTense): \(path.listDescription)")
            }
        }
    }

    /// Inserts, move destinations and reconfigures: after-paths of distinct items outside
    /// inserted sections (a reconfigured item is one that stayed: neither inserted nor moved).
    private func checkAfterPaths<S, I>(new: [ListSection<S, I>], insertedSections: Set<Int>) throws(BatchError) {
        var operationByPath: [IndexPath: ItemOperation] = [:]
        let operations = insertItems.map { ($0, ItemOperation.insert) } + moveItems.map { ($0.to, ItemOperation.move) }
            + reconfigureItems.map { ($0, ItemOperation.reconfigure) }
        for (path, operation) in operations {
            try checkRange(of: path, for: operation, in: new, when: "after")
            guard !insertedSections.contains(path.section) else {
                throw BatchError("item \(operation) inside an inserted section: \(path.listDescription) is in section \(path.section), which is inserted")
            }
            if let earlier = operationByPath.updateValue(operation, forKey: path) {
                throw BatchError(earlier == operation
                    ? "duplicate item \(operation) to \(path.listDescription)"
                    : operation == .reconfigure
                        ? "item both \(earlier.pastTense) and reconfigured at \(path.listDescription): a reconfigured item stays in place"
                        : "item both inserted and moved to \(path.listDescription)")
            }
        }
    }

    /// Throws unless `path` is `[section, item]` and names an item of `sections`.
    private func checkRange<S, I>(
        of path: IndexPath,
        for operation: ItemOperation,
        in sections: [ListSection<S, I>],
        when moment: String
    ) throws(BatchError) {
        guard path.isSectionItemPair else {
            throw BatchError("item \(operation) path \(path.listDescription) is not [section, item]")
        }
        guard path.section < sections.count else {
            throw BatchError("item \(operation) out of range: \(path.listDescription) names section \(path.section), "
                + "but there are \(sections.count) sections \(moment) the update")
        }
        let itemCount = sections[path.section].items.count
        guard path.item < itemCount else {
            throw BatchError("item \(operation) out of range: \(path.listDescription) names item \(path.item), "
                + "but section \(path.section) has \(itemCount) items \(moment) the update")
        }
    }

    /// UIKit's count rule, for every section that is neither deleted nor inserted.
    private func checkItemCounts<S, I>(
        old: [ListSection<S, I>],
        new: [ListSection<S, I>],
        deletedSections: Set<Int>,
        insertedSections: Set<Int>
    ) throws(BatchError) {
        let keptOld = old.indices.filter { !deletedSections.contains($0) }
        let keptNew = new.indices.filter { !insertedSections.contains($0) }
        let deletedIn = countBySection(deleteItems)
        let insertedIn = countBySection(insertItems)
        let movedOutOf = countBySection(moveItems.map { $0.from })
        let movedInto = countBySection(moveItems.map { $0.to })
        for (oldIndex, newIndex) in zip(keptOld, keptNew) {
            let before = old[oldIndex].items.count
            let after = new[newIndex].items.count
            let inserted = insertedIn[newIndex, default: 0]
            let deleted = deletedIn[oldIndex, default: 0]
            let movedIn = movedInto[newIndex, default: 0]
            let movedOut = movedOutOf[oldIndex, default: 0]
            if after != before + inserted - deleted + movedIn - movedOut {
                throw BatchError(
                    "invalid number of items: section \(newIndex) (section \(oldIndex) before the update) has \(after) items "
                        + "after the update, but \(before) before, plus \(inserted) inserted, minus \(deleted) deleted, "
                        + "plus \(movedIn) moved in, minus \(movedOut) moved out")
            }
        }
    }

    private func countBySection(_ paths: [IndexPath]) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for path in paths { counts[path.section, default: 0] += 1 }
        return counts
    }
}

/// An operation of a batch on one item, named as messages name it.
private enum ItemOperation: String, CustomStringConvertible {
    case delete, reload, move, insert, reconfigure

    var description: String { rawValue }

    var pastTense: String {
        switch self {
        case .delete: "deleted"
        case .reload: "reloaded"
        case .move: "moved"
        case .insert: "inserted"
        case .reconfigure: "reconfigured"
        }
    }
}
