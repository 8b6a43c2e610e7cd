/// Which attributes a commit changed, for the two options of a request that are about
/// them: ``FetchRequest/displayedAttributes`` (an object whose displayed values did not
/// change is not updated) and ``FetchRequest/reportsChangedAttributes`` (updates and
/// moves name what changed). Both live queries apply them here, one rule for every path.
extension BoundQuery {
    /// Whether the request has either option; without them a change is reported as it is.
    var describesAttributeChanges: Bool {
        request.displayedAttributes != nil || request.reportsChangedAttributes
    }

    /// Touched rows split in two: those the engine applies, and the silent ones, whose
    /// changed attributes neither place the object (key, sort, section, predicate) nor are
    /// displayed. A silent row keeps its place and its answer, so the engine only stores
    /// its new values (``ResultsEngine/refresh(_:)``) and reports nothing.
    func separatingSilent(_ rows: [Value: TouchedRow]) -> (applied: [Value: TouchedRow], silent: [Value: TouchedRow]) {
        guard request.displayedAttributes != nil else { return (rows, [:]) }
        var applied: [Value: TouchedRow] = [:], silent: [Value: TouchedRow] = [:]
        for (key, row) in rows {
            if isSilent(row) { silent[key] = row } else { applied[key] = row }
        }
        return (applied, silent)
    }

    private func isSilent(_ row: TouchedRow) -> Bool {
        guard let before = row.before, let after = row.after, before != after else { return false }
        for index in 0..<min(before.count, after.count, isDisplayed.count) where before[index] != after[index] {
            if isPlacing[index] || isDisplayed[index] { return false }
        }
        return before.count == after.count
    }

    /// The indexes of the attributes whose values differ, in the entity's order.
    func changedAttributes(from before: [Value], to after: [Value]) -> [Int] {
        guard before.count == after.count else { return Array(entity.attributes.indices) }
        return before.indices.filter { before[$0] != after[$0] }
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
    mutating func describeAttributeChanges(for query: BoundQuery, rows: (Value) -> (before: [Value]?, after: [Value]?)) -> Bool {
        guard query.describesAttributeChanges else { return true }
        var kept: [ObjectChange<Value>] = []
        kept.reserveCapacity(group.objectChanges.count)
        for var object in group.objectChanges {
            if object.type == .update || object.type == .move, resync == nil {
                let (before, after) = rows(object.item)
                if let before, let after {
                    let changed = query.changedAttributes(from: before, to: after)
                    if object.type == .update && !changed.contains(where: { $0 < query.isDisplayed.count && query.isDisplayed[$0] }) {
                        continue
                    }
                    if query.request.reportsChangedAttributes && !changed.isEmpty {
                        object.changedAttributes = changed.map { query.entity.attributes[$0].name }
                    }
                }
            }
            kept.append(object)
        }
        group.objectChanges = kept
        return !group.isEmpty || counts != nil
    }
}
