import RosterUpdates

/// A live query: the results of a ``FetchRequest``, kept current as transactions commit,
/// with a delegate told exactly what changed — Roster's NSFetchedResultsController.
///
/// ```swift
/// let controller = try ResultsController(store: store, request: FetchRequest(
///     entity: "Post", sortKeys: [SortKey("day", ascending: false)], sectionAttribute: "day"))
/// controller.delegate = self
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// ```
///
/// Like its ``Store``, a controller belongs to one isolation domain; see
/// ``ResultsControllerDelegate`` for when callbacks arrive. Keep a strong reference to the
/// controller: the store does not retain it, and a released controller reports nothing.
/// To consume changes on another actor than the writer's, use ``LiveResults``.
///
/// A commit that touches *k* rows costs O(*k* log *n*) to report (``ResultsEngineKind``).
public final class ResultsController: LiveQueryRequest {
    /// The store the controller watches.
    public let store: Store
    /// The request whose results the controller shows.
    public private(set) var request: FetchRequest
    /// How the results are kept current.
    public let engineKind: ResultsEngineKind
    /// Receives the changes; not retained.
    public weak var delegate: (any ResultsControllerDelegate)?
    /// The last group of changes reported, as events; nil before the first change.
    public internal(set) var lastChange: ChangeGroup<Value, Value>?
    /// Whether ``performFetch()`` has run.
    public private(set) var hasFetched = false
    /// Set while ``performFetch()`` runs: changes delivered first are in the new results.
    private var isFetching = false

    var engine: any ResultsEngine
    /// Edits the user already made on screen, for the next change.
    var pendingUserEdits: [UserEdit] = []
    /// A commit that touches more than this fraction of the results is handled by
    /// re-fetching the results and diffing them whole, which is cheaper than moving that
    /// many rows one by one. The default was chosen by measurement (Docs/Performance.md).
    public var bulkFraction = 0.3

    /// Creates a controller; call ``performFetch()`` to load the results and start tracking.
    ///
    /// - Parameter engine: how to keep the results current; the default is incremental.
    /// - Throws: ``StoreError`` when the entity, an attribute or the predicate does not fit.
    public init(store: Store, request: FetchRequest, engine: ResultsEngineKind = .incremental) throws(StoreError) {
        self.store = store
        self.request = request
        self.engineKind = engine
        let query = try BoundQuery(request, entity: store.entity(named: request.entityName))
        self.engine = Self.makeEngine(engine, store: store, query: query, rows: [])
    }

    deinit {
        store.removeObserver(self)
    }

    var query: BoundQuery { engine.query }

    /// A new engine holding the query's committed results, read straight from the store.
    private func fetchEngine(query: BoundQuery) throws(StoreError) -> any ResultsEngine {
        switch engineKind {
        case .incremental:
            return try IncrementalResults(query: query, store: store, loader: Self.loader(store: store, entity: query.entity))
        case .refetchAndDiff:
            return makeEngine(query: query, rows: try store.fetchCommittedRows(query))
        }
    }

    private static func loader(store: Store, entity: Entity) -> ([Value]) -> [Value: [Value]] {
        { [weak store] keys in (try? store?.fetchCommittedRows(entity, keys: keys)) ?? [:] }
    }

    private func makeEngine(query: BoundQuery, rows: [[Value]]) -> any ResultsEngine {
        Self.makeEngine(engineKind, store: store, query: query, rows: rows)
    }

    private static func makeEngine(_ kind: ResultsEngineKind, store: Store, query: BoundQuery, rows: [[Value]]) -> any ResultsEngine {
        switch kind {
        case .incremental:
            // Objects are loaded on demand; a commit's touched rows come with it.
            return IncrementalResults(query: query, rows: rows, loader: Self.loader(store: store, entity: query.entity))
        case .refetchAndDiff:
            return RefetchingResults(query: query, rows: rows, refetch: { [weak store] query in try? store?.fetchCommittedRows(query) })
        }
    }

    /// Loads the results and starts tracking changes. Calls no delegate method.
    ///
    /// The results show the entity's attributes as the store defines them when this runs;
    /// attributes added later appear after the next `performFetch()`.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the query fails.
    public func performFetch() throws(StoreError) {
        isFetching = true
        defer { isFetching = false }
        // Bound again: the entity may have gained attributes since the controller was made.
        let query = try BoundQuery(request, entity: store.entity(named: request.entityName))
        engine = try store.readingAtCursor { () throws(StoreError) in try fetchEngine(query: query) }
        if !hasFetched {
            hasFetched = true
            store.addObserver(self)
        }
    }

    /// Replaces the request (same entity); the delegate hears the difference.
    ///
    /// - Throws: ``StoreError`` when the request does not fit; nothing changes then.
    public func setRequest(_ request: FetchRequest) throws(StoreError) {
        guard request.entityName == self.request.entityName else {
            throw .schema(SchemaError("a controller cannot switch from entity '\(self.request.entityName)' to '\(request.entityName)'"))
        }
        let query = try BoundQuery(request, entity: store.entity(named: request.entityName))
        guard hasFetched else {
            self.request = request
            engine = makeEngine(query: query, rows: [])
            return
        }
        let rows = try store.readingAtCursor { () throws(StoreError) in try store.fetchCommittedRows(query) }
        self.request = request
        // The results and the new rows are the same committed state: no value changed.
        replaceResults(query: query, rows: rows, updated: { _ in false })
    }

    /// Swaps in new results and reports the difference by diffing whole snapshots;
    /// `updated` tells which objects in both changed their values.
    func replaceResults(query: BoundQuery, rows: [[Value]], updated: (Value) -> Bool) {
        var old = engine.snapshot
        for edit in pendingUserEdits { edit.apply(to: &old) }
        pendingUserEdits = []
        let previous = engine
        engine = makeEngine(query: query, rows: rows)
        report(diff(from: old, previous: previous, updated: updated))
    }

    private func diff(from old: [Section<Value, Value>], previous: any ResultsEngine, updated: (Value) -> Bool) -> IncrementalChange? {
        let group = SnapshotDiff.changes(from: old, to: engine.snapshot, isUpdated: updated)
        guard !group.isEmpty else { return nil }
        var change = IncrementalChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = previous.knownRow(forKey: object.item)
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = old[section.index].items.count
        }
        return change
    }

    /// Writes a change the user already made on screen without hearing it back.
    ///
    /// The list view has already animated the user's move or delete. `edits` say what it
    /// did; `write` saves it (for example by renumbering an order attribute). The change
    /// reported for that write starts from the list as the user left it, so the user's
    /// own edit is not reported again, and every other change in the same transaction is.
    ///
    /// ```swift
    /// try controller.performUserDrivenChange([.move(key: "k2", to: IndexPath(item: 3, section: 0))]) {
    ///     try store.write { try store.update("Card", key: "k2", ["position": 40]) }
    /// }
    /// ```
    ///
    /// - Throws: what `write` throws; the edits are then forgotten.
    public func performUserDrivenChange(_ edits: [UserEdit], write: () throws -> Void) rethrows {
        pendingUserEdits = edits
        defer { pendingUserEdits = [] }
        try write()
    }
}

extension ResultsController: StoreObserver {
    var observedEntityName: String { engine.query.entity.name }

    /// Applies the rows of the keys a commit touched, and reports the difference.
    ///
    /// It runs inside the store's delivery, whose read transaction sees exactly the state
    /// the changes lead to: a re-fetch here reads that state and nothing newer.
    func storeDidCommit(_ changes: CommittedChanges) {
        guard hasFetched, !isFetching else { return }
        if changes.needsResync {
            // The log was pruned past what this query read: re-fetch and diff. Which values
            // changed is lost with the log, so every object that stays is reported updated.
            if let rows = try? store.fetchCommittedRows(engine.query) { replaceResults(query: engine.query, rows: rows, updated: { _ in true }) }
            return
        }
        let touched = changes.rows(of: engine.query.entity)
        guard !touched.isEmpty || !pendingUserEdits.isEmpty else { return }
        let isBulk = Double(touched.count) > bulkFraction * Double(max(engine.count, 64))
        if pendingUserEdits.isEmpty && !isBulk {
            report(engine.apply(touched: touched))
        } else if pendingUserEdits.isEmpty, let refetched = try? fetchEngine(query: engine.query) {
            reportBulkChange(touched: touched, refetched: refetched)
        } else {
            reportChangeFromUserEdits(touched: touched)
        }
    }

    /// A bulk change: re-fetch and diff whole snapshots; updates are the touched rows whose
    /// values changed.
    private func reportBulkChange(touched: [Value: TouchedRow], refetched: any ResultsEngine) {
        let old = engine.snapshot
        let previous = engine
        engine = refetched
        let new = engine.snapshot
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { touched[$0]?.isChanged ?? false })
        guard !group.isEmpty else { return }
        var change = IncrementalChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = touched[object.item]?.before ?? previous.knownRow(forKey: object.item)
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = old[section.index].items.count
        }
        report(change)
    }

    /// A change that starts from the list as the user left it: apply, then diff whole
    /// snapshots from the user's view.
    private func reportChangeFromUserEdits(touched: [Value: TouchedRow]) {
        var old = engine.snapshot
        for edit in pendingUserEdits { edit.apply(to: &old) }
        pendingUserEdits = []
        var oldRows: [Value: [Value]] = [:]
        for key in touched.keys {
            oldRows[key] = touched[key]?.before ?? engine.knownRow(forKey: key)
        }
        _ = engine.apply(touched: touched)
        let group = SnapshotDiff.changes(from: old, to: engine.snapshot, isUpdated: { touched[$0]?.isChanged ?? false })
        guard !group.isEmpty else { return }
        var change = IncrementalChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = oldRows[object.item]
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = old[section.index].items.count
        }
        report(change)
    }

    /// Tells the delegate about a change.
    func report(_ change: IncrementalChange?) {
        guard let change else { return }
        let group = change.group
        lastChange = group
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for section in group.sectionChanges {
            let count = section.type == .delete ? change.oldSectionCounts[section.index] ?? 0 : numberOfObjects(inSection: section.index)
            delegate.controller(self, didChange: SectionInfo(name: section.section, numberOfObjects: count), atSectionIndex: section.index, for: section.type)
        }
        for object in group.objectChanges {
            let values = (object.type == .delete ? change.removedRows[object.item] : engine.row(forKey: object.item)) ?? []
            delegate.controller(self, didChange: Object(entity: engine.query.entity, values: values), at: object.from, for: object.type, newIndexPath: object.to)
        }
        delegate.controllerDidChangeContent(self)
    }
}
