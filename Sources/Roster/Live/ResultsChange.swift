import RosterUpdates

/// One change to a live query's results, delivered by ``LiveResults``: the
/// NSFetchedResultsController-style callbacks, the batch a list view takes, and the
/// results before and after.
///
/// When commits arrive faster than the consumer takes changes, one `ResultsChange`
/// covers all of them: it goes from the results the consumer last saw to the current
/// ones, exactly as if each commit had been delivered in turn.
public struct ResultsChange: Sendable {
    /// The callbacks: section and object changes with before- and after-paths.
    public let group: ChangeGroup<Value, Value>
    /// The batch for `performBatchUpdates`, made by the live results' `BatchAdapter`.
    public let batch: BatchUpdate
    /// The results the change starts from (what the consumer last saw, with any
    /// user-driven edits applied).
    public let previousSnapshot: ResultsSnapshot
    /// The results after the change, with the updated objects as reloaded items.
    public let snapshot: ResultsSnapshot
    /// How many commits the change covers (more than one when commits were coalesced).
    public let commitCount: Int
    /// The objects the change inserted, moved or updated, by key, as they are now.
    public let objects: [Value: Object]
    /// The objects the change deleted, by key, as they were.
    public let deletedObjects: [Value: Object]
    /// Set when the change is a resync: the results were re-fetched because the commits
    /// could not be applied one by one (see ``ResyncReason``).
    public var resync: ResyncReason? = nil
    /// For a windowed ``LiveResults``: the whole results' counts, when this change changed
    /// them; nil otherwise. A change that changed only the counts (rows came or went
    /// outside the window) has an empty `group`.
    public var counts: ResultsCounts? = nil
    /// For live results with aggregates (``FetchRequest/aggregates``): the totals and the
    /// sections whose aggregates this change changed; nil when it changed none. A change
    /// that changed only aggregates (no row the list shows) has an empty `group`.
    public var aggregates: AggregateChange? = nil

    /// Where to keep the user's place across this change (``ScrollPosition``): the row
    /// with `key` where it is in ``snapshot``, or, when it left, the nearest row of
    /// ``previousSnapshot`` that stayed (the first after it, else the nearest before it);
    /// nil when none stayed. O(rows in the snapshots).
    public func scrollPosition(keeping key: Value) -> ScrollPosition? {
        var paths: [Value: IndexPath] = [:]
        for (section, rows) in snapshot.sections.enumerated() {
            for (item, row) in rows.items.enumerated() { paths[row] = IndexPath(item: item, section: section) }
        }
        return ScrollPosition.nearest(to: key, among: previousSnapshot.itemIdentifiers, locate: { paths[$0] })
            .map { ScrollPosition(key: $0.key, indexPath: $0.position, isSameRow: $0.key == key) }
    }

    /// Plays the change to a delegate as callbacks, as a ``ResultsController`` would have
    /// (``LiveResults/deliver(to:isolation:)`` does this for each change): the group, when
    /// it is not empty, then ``ResultsControllerDelegate/controller(_:didChangeCounts:)``
    /// when the counts changed, then
    /// ``ResultsControllerDelegate/controller(_:didChangeAggregates:)`` when the aggregates did.
    public func replay(to delegate: some ResultsControllerDelegate<LiveResults>, from results: LiveResults) {
        if !group.isEmpty || resync != nil {
            delegate.receive(group, resync: resync, from: results, sectionCount: { section in
                section.type == .delete
                    ? previousSnapshot.sections[section.index].items.count
                    : snapshot.sections[section.index].items.count
            }, object: { _, change in change.type == .delete ? deletedObjects[change.item] : objects[change.item] })
        }
        if let counts { delegate.controller(results, didChangeCounts: counts) }
        if let aggregates { delegate.controller(results, didChangeAggregates: aggregates) }
    }
}

/// A live query's results as a diffable data source takes them: section identifiers,
/// item identifiers per section, and the items whose content changed and need reloading.
public struct ResultsSnapshot: Sendable, Hashable {
    /// The sections, each with its name and the keys of its objects, in order.
    public let sections: [ListSection<Value, Value>]
    /// Keys of objects whose stored values changed in the change that made this snapshot
    /// and whose cells need replacing: for a diffable data source's `reloadItems`.
    public let reloadedItemIdentifiers: [Value]
    /// Keys of updated objects whose cells keep their type and size and only show new values
    /// (`BatchAdapter.reconfigures(_:)`): for a diffable data source's `reconfigureItems`.
    /// Empty unless the adapter has `reloadingAttributes`.
    public let reconfiguredItemIdentifiers: [Value]

    /// Creates a snapshot.
    public init(sections: [ListSection<Value, Value>], reloadedItemIdentifiers: [Value] = [], reconfiguredItemIdentifiers: [Value] = []) {
        self.sections = sections
        self.reloadedItemIdentifiers = reloadedItemIdentifiers
        self.reconfiguredItemIdentifiers = reconfiguredItemIdentifiers
    }

    /// The section names, in order.
    public var sectionIdentifiers: [Value] { sections.map(\.id) }
    /// Every object's key, in order.
    public var itemIdentifiers: [Value] { sections.flatMap(\.items) }
    /// The number of objects.
    public var numberOfItems: Int { sections.reduce(0) { $0 + $1.items.count } }
    /// The keys of the objects in the named section (empty when there is no such section).
    public func itemIdentifiers(inSection identifier: Value) -> [Value] {
        sections.first { $0.id == identifier }?.items ?? []
    }
}
