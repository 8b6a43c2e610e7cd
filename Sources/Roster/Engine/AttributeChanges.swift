/// Which attributes a commit changed, for the two options of a request that are about
/// them: ``FetchRequest/displayedAttributes`` (an object whose displayed values did not
/// change is not updated) and ``FetchRequest/reportsChangedAttributes`` (updates and
/// moves name what changed). Both live queries apply them here, one rule for every path.
extension AttributeRelevance {
    /// Touched rows split in two: those the engine applies, and the silent ones, whose
    /// changed attributes neither place the object (key, sort, section, predicate) nor are
    /// displayed. A silent row keeps its place and its answer, so the engine only stores
    /// its new values (``ResultsEngine/refresh(_:)``) and reports nothing.
    static func separatingSilent(_ rows: [Value: TouchedRow], for relevance: AttributeRelevance?)
        -> (applied: [Value: TouchedRow], silent: [Value: TouchedRow]) {
        guard let relevance, relevance.filtersDisplayed else { return (rows, [:]) }
        // Most commits are all one or all the other: no new dictionaries then.
        var silentCount = 0
        for row in rows.values where relevance.isSilent(row) { silentCount += 1 }
        if silentCount == 0 { return (rows, [:]) }
        if silentCount == rows.count { return ([:], rows) }
        var applied: [Value: TouchedRow] = [:], silent: [Value: TouchedRow] = [:]
        for (key, row) in rows {
            if relevance.isSilent(row) { silent[key] = row } else { applied[key] = row }
        }
        return (applied, silent)
    }

    private func isSilent(_ row: TouchedRow) -> Bool {
        guard let before = row.before, let after = row.after, before.count == after.count, before.count == isPlacing.count else { return false }
        // The attributes that matter first: most rows a list hears of changed one of them.
        for index in mattering where before[index] != after[index] { return false }
        for index in before.indices where !isPlacing[index] && !isDisplayed[index] && before[index] != after[index] { return true }
        return false
    }

    /// The indexes of the attributes whose values differ, in the entity's order. Rows read
    /// before the entity gained attributes are shorter: only the values both have compare.
    func changedAttributes(from before: [Value], to after: [Value]) -> [Int] {
        (0..<min(before.count, after.count, names.count)).filter { before[$0] != after[$0] }
    }
}

extension QueryChange {
    /// Applies the request's attribute options to the group: an update whose changed
    /// attributes are known and include no displayed one is dropped, and with
    /// ``FetchRequest/reportsChangedAttributes`` each update and each move whose rows differ
    /// names the attributes that changed. `rows` gives an object's row as the consumer last
    /// saw it and as it is now, nil where unknown (a resync's updates stay, unnamed).
    ///
    /// - Returns: whether anything is left to report.
    mutating func describeAttributeChanges(for relevance: AttributeRelevance?, rows: (Value) -> (before: [Value]?, after: [Value]?)) -> Bool {
        guard let relevance, resync == nil else { return true }
        // In place: most changes are kept. A commit's rows mostly changed the same
        // attributes (a renamed feed's entries all `feed.title`), so they share one array
        // of names.
        var dropped: Set<Int> = []
        var lastChanged: [Int] = [], lastNames: [String] = []
        for index in group.objectChanges.indices {
            let object = group.objectChanges[index]
            // A move is kept whatever changed: its rows are only compared to name what did.
            guard object.type == .update || (object.type == .move && relevance.reportsChanged),
                  case let (before?, after?) = rows(object.item) else { continue }
            let changed = relevance.changedAttributes(from: before, to: after)
            if object.type == .update && !changed.contains(where: { relevance.isDisplayed[$0] }) {
                dropped.insert(index)
                continue
            }
            if relevance.reportsChanged && !changed.isEmpty {
                if changed != lastChanged { (lastChanged, lastNames) = (changed, changed.map { relevance.names[$0] }) }
                group.objectChanges[index].changedAttributes = lastNames
            }
        }
        if !dropped.isEmpty {
            group.objectChanges = group.objectChanges.indices.filter { !dropped.contains($0) }.map { group.objectChanges[$0] }
        }
        return !group.isEmpty || counts != nil
    }
}
