@_spi(RosterEngine) import RosterUpdates

/// What a commit (or several coalesced, a new request, a resync, the user's own edits)
/// did to one live query's results: the callbacks, and what a delegate is told beside
/// them. The one internal change type: both engines make it, and both ``ResultsController``
/// and ``LiveResults`` turn it into what their consumer sees.
struct QueryChange: Sendable {
    /// The callbacks: section and object changes with their index paths.
    var group = ChangeGroup<Value, Value>()
    /// The rows of deleted objects, as they were.
    var removedRows: [Value: [Value]] = [:]
    /// The number of objects, before the change, of each deleted section (by old index).
    var oldSectionCounts: [Int: Int] = [:]
    /// Set when the change is a resync: results re-fetched rather than applied row by row.
    var resync: ResyncReason?
    /// For a windowed live query, the whole results' counts when the change changed them
    /// (the group is then empty when only the counts changed).
    var counts: ResultsCounts?
    /// The aggregates that changed (``AggregateTracker/takeChange()``), for a query with
    /// aggregates (the group is then empty when only they changed).
    var aggregates: AggregateChange?
    /// An error for each aggregate that went out of range.
    var aggregateOverflows: [StoreError] = []
}

extension QueryChange {
    /// Up to how many keys a resume finds among a window's keys by a scan rather than by a
    /// look-up of each shown key: a scan of 100 keys costs less than hashing them
    /// (``sinceSaved(_:to:touched:relevance:resync:entity:rowNow:)``, and the placing of a
    /// resumed window).
    static let keysFoundByScan = 8

    /// The change from rows a consumer saved (a resume token's) to the rows it is shown
    /// now, given what the change log says happened to `entity` since: updates are the
    /// rows whose values changed (every row that stays, in a resync); a row that left is
    /// given as the log had it before, else as `rowNow` has it (it left the window, not the
    /// results), else — gone, and the log no longer holding it — with its key alone.
    /// `touched` are the rows as the query sees them (``Store/touchedRows(of:in:)``); those
    /// whose changes the request neither displays nor places by (`relevance`) count as
    /// untouched, as a commit's do: when moves can be chosen, an edited object moves.
    static func sinceSaved(_ saved: [ListSection<Value, Value>], to now: [ListSection<Value, Value>], touched: [Value: TouchedRow],
                           relevance: AttributeRelevance?, resync: ResyncReason?, entity: Entity,
                           rowNow: (Value) -> [Value]?) -> (change: QueryChange?, start: [ListSection<Value, Value>]) {
        let edited = AttributeRelevance.separatingSilent(touched, for: relevance).applied
        // The diff asks of every shown key; a few changed keys (a resume after edits that
        // placed nothing) are found by a scan, which costs less than hashing each key.
        let changedKeys = edited.count <= keysFoundByScan ? edited.compactMap { $0.value.isChanged ? $0.key : nil } : nil
        let isChanged: (Value) -> Bool = changedKeys.map { keys in { keys.contains($0) } } ?? { edited[$0]?.isChanged ?? false }
        return diff(from: saved, to: now, resync: resync, isUpdated: { resync != nil || isChanged($0) },
                    removedRow: { key in
                        touched[key]?.before ?? rowNow(key) ?? entity.attributes.indices.map { $0 == entity.keyIndex ? key : .null }
                    })
    }

    /// Whether this change of the whole results changes their counts: a section comes or
    /// goes, an object comes or goes, or one moves to another section (without section
    /// changes, section indexes before and after are the same sections).
    var changesCounts: Bool {
        !group.sectionChanges.isEmpty || group.objectChanges.contains { object in
            object.type == .insert || object.type == .delete || (object.type == .move && object.from?.section != object.to?.section)
        }
    }

    /// The change from the list a consumer last saw, as the user's own edits left it, to
    /// `new`, by ``SnapshotDiff``'s rules. The one place that applies user edits and diffs
    /// whole snapshots, for every path that cannot work row by row: a new request, a
    /// resync, a re-fetch of a bulk commit, a commit that carries user edits.
    ///
    /// - Parameters:
    ///   - seen: the results the consumer last saw.
    ///   - edits: what the user already did to them on screen (``UserEdit``).
    ///   - isUpdated: whether an object in both changed its values.
    ///   - removedRow: the row of an object that left, as it was.
    /// - Returns: the change (nil when there is none), and the list it starts from — `seen`
    ///   with the edits applied, what the change's `from` paths refer to.
    static func diff(from seen: [ListSection<Value, Value>], editedBy edits: [UserEdit] = [],
                     to new: [ListSection<Value, Value>], resync: ResyncReason? = nil,
                     isUpdated: (Value) -> Bool, removedRow: (Value) -> [Value]?)
        -> (change: QueryChange?, start: [ListSection<Value, Value>]) {
        let start = UserEdit.apply(edits, to: seen)
        let group = SnapshotDiff.specializableChanges(from: start, to: new, isUpdated: isUpdated)
        guard !group.isEmpty else { return (nil, start) }
        var change = QueryChange(group: group, resync: resync)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = removedRow(object.item)
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = start[section.index].items.count
        }
        return (change, start)
    }
}
