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
///
/// A ``LiveResults``' snapshot of whole results lists its keys only when asked: taking it
/// costs O(sections), and ``sections`` makes the arrays of keys the first time it is read
/// (O(n) then, kept after). ``numberOfItems`` and ``sectionIdentifiers`` never make them.
public struct ResultsSnapshot: Sendable, Hashable {
    private let storage: Storage
    /// Keys of objects whose stored values changed in the change that made this snapshot
    /// and whose cells need replacing: for a diffable data source's `reloadItems`.
    public let reloadedItemIdentifiers: [Value]
    /// Keys of updated objects whose cells keep their type and size and only show new values
    /// (`BatchAdapter.reconfigures(_:)`): for a diffable data source's `reconfigureItems`.
    /// Empty unless the adapter has `reloadingAttributes`.
    public let reconfiguredItemIdentifiers: [Value]

    /// Where the sections are: arrays of keys, or a frozen order of live results' engine.
    enum Storage: Sendable {
        case sections([ListSection<Value, Value>])
        case frozen(FrozenSections)
    }

    /// Creates a snapshot.
    public init(sections: [ListSection<Value, Value>], reloadedItemIdentifiers: [Value] = [], reconfiguredItemIdentifiers: [Value] = []) {
        self.init(storage: .sections(sections), reloadedItemIdentifiers: reloadedItemIdentifiers, reconfiguredItemIdentifiers: reconfiguredItemIdentifiers)
    }

    init(storage: Storage, reloadedItemIdentifiers: [Value] = [], reconfiguredItemIdentifiers: [Value] = []) {
        self.storage = storage
        self.reloadedItemIdentifiers = reloadedItemIdentifiers
        self.reconfiguredItemIdentifiers = reconfiguredItemIdentifiers
    }

    /// The sections, each with its name and the keys of its objects, in order.
    public var sections: [ListSection<Value, Value>] {
        switch storage {
        case let .sections(sections): sections
        case let .frozen(frozen): frozen.sections
        }
    }

    /// The section names, in order.
    public var sectionIdentifiers: [Value] {
        switch storage {
        case let .sections(sections): sections.map(\.id)
        case let .frozen(frozen): frozen.sectionInfos.map(\.name)
        }
    }
    /// Every object's key, in order.
    public var itemIdentifiers: [Value] { sections.flatMap(\.items) }
    /// The number of objects.
    public var numberOfItems: Int {
        switch storage {
        case let .sections(sections): sections.reduce(0) { $0 + $1.items.count }
        case let .frozen(frozen): frozen.count
        }
    }
    /// The keys of the objects in the named section (empty when there is no such section).
    public func itemIdentifiers(inSection identifier: Value) -> [Value] {
        sections.first { $0.id == identifier }?.items ?? []
    }

    /// The number of sections. O(1).
    var sectionCount: Int {
        switch storage {
        case let .sections(sections): sections.count
        case let .frozen(frozen): frozen.sectionInfos.count
        }
    }

    /// A section's name and number of objects, without making the arrays of keys. O(1).
    func sectionInfo(_ index: Int) -> SectionInfo {
        switch storage {
        case let .sections(sections): SectionInfo(name: sections[index].id, numberOfObjects: sections[index].items.count)
        case let .frozen(frozen): frozen.sectionInfos[index]
        }
    }

    /// The key of an object by its section and its place in it. O(1), or O(log n) under
    /// the live results' lock for a frozen order not made into arrays.
    func key(section: Int, item: Int) -> Value {
        switch storage {
        case let .sections(sections): sections[section].items[item]
        case let .frozen(frozen): frozen.key(atRank: frozen.starts[section] + item)
        }
    }

    /// The keys a change's updates name, split as the adapter splits them: those whose
    /// cells are replaced (`reloadItems`) and those only reconfigured.
    static func updatedItems(of group: ChangeGroup<Value, Value>, by adapter: BatchAdapter) -> (reloaded: [Value], reconfigured: [Value]) {
        var reloaded: [Value] = [], reconfigured: [Value] = []
        for object in group.objectChanges where object.type == .update {
            if adapter.reconfigures(object) { reconfigured.append(object.item) } else { reloaded.append(object.item) }
        }
        return (reloaded, reconfigured)
    }

    /// Whether two snapshots list the same sections and keys, and the same items to reload
    /// and reconfigure. Two snapshots of one change compare in O(1); others in O(n).
    public static func == (lhs: ResultsSnapshot, rhs: ResultsSnapshot) -> Bool {
        if case let (.frozen(left), .frozen(right)) = (lhs.storage, rhs.storage), left === right {
            return lhs.reloadedItemIdentifiers == rhs.reloadedItemIdentifiers && lhs.reconfiguredItemIdentifiers == rhs.reconfiguredItemIdentifiers
        }
        return lhs.sections == rhs.sections && lhs.reloadedItemIdentifiers == rhs.reloadedItemIdentifiers
            && lhs.reconfiguredItemIdentifiers == rhs.reconfiguredItemIdentifiers
    }

    /// Hashes what `==` compares: the sections and keys (listed, O(n)), and the items to
    /// reload and reconfigure.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sections)
        hasher.combine(reloadedItemIdentifiers)
        hasher.combine(reconfiguredItemIdentifiers)
    }
}
