import RosterUpdates

extension ResultsController: StoreObserver {
    var observedEntityName: String { query.entity.name }

    /// Applies the current rows of the keys a commit touched, and reports the difference.
    func storeDidCommit(_ changes: CommittedChanges) {
        guard hasFetched else { return }
        if changes.needsResync {
            // The log was pruned past what this query read: re-fetch and diff.
            try? setRequest(request)
            return
        }
        guard let touched = changes.rowsByEntity[query.entity.name], !touched.isEmpty else { return }
        var removed: Set<Value> = []
        var added: [[Value]] = []
        var updated: Set<Value> = []
        for (key, current) in touched {
            let old = rowByKey[key]
            let new = current.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            guard old != new else { continue }
            if old != nil { removed.insert(key) }
            if let new { added.append(new) }
            if old != nil, new != nil { updated.insert(key) }
        }
        guard !removed.isEmpty || !added.isEmpty else { return }
        let oldRows = rows
        let oldRowByKey = rowByKey
        let kept = removed.isEmpty ? rows : rows.filter { !removed.contains(query.key(of: $0)) }
        added.sort { query.sort.compare($0, $1) < 0 }
        setRows(merge(kept, added))
        report(oldRows: oldRows, oldRowByKey: oldRowByKey, updated: updated)
    }

    /// Merges two sorted row arrays into one.
    private func merge(_ first: [[Value]], _ second: [[Value]]) -> [[Value]] {
        guard !second.isEmpty else { return first }
        var merged: [[Value]] = []
        merged.reserveCapacity(first.count + second.count)
        var i = 0
        var j = 0
        while i < first.count, j < second.count {
            if query.sort.compare(first[i], second[j]) <= 0 {
                merged.append(first[i]); i += 1
            } else {
                merged.append(second[j]); j += 1
            }
        }
        merged.append(contentsOf: first[i...])
        merged.append(contentsOf: second[j...])
        return merged
    }

    /// Tells the delegate how the results changed from `oldRows` to the current rows.
    func report(oldRows: [[Value]], oldRowByKey: [Value: [Value]], updated: Set<Value>) {
        let old = Self.sections(of: oldRows, query: query)
        let group = SnapshotDiff.changes(from: old, to: snapshot, isUpdated: { updated.contains($0) })
        guard !group.isEmpty else { return }
        lastChange = group
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in group.sectionChanges {
            let count = change.type == .delete ? old[change.index].items.count : numberOfObjects(inSection: change.index)
            delegate.controller(self, didChange: SectionInfo(name: change.section, numberOfObjects: count), atSectionIndex: change.index, for: change.type)
        }
        for change in group.objectChanges {
            let values = (change.type == .delete ? oldRowByKey[change.item] : rowByKey[change.item]) ?? []
            delegate.controller(self, didChange: Object(entity: query.entity, values: values), at: change.from, for: change.type, newIndexPath: change.to)
        }
        delegate.controllerDidChangeContent(self)
    }

    private static func sections(of rows: [[Value]], query: BoundQuery) -> [Section<Value, Value>] {
        var sections: [Section<Value, Value>] = []
        for row in rows {
            let name = query.sectionName(of: row)
            if sections.isEmpty || sections[sections.count - 1].id != name {
                sections.append(Section(id: name, items: []))
            }
            sections[sections.count - 1].items.append(query.key(of: row))
        }
        return sections
    }
}
