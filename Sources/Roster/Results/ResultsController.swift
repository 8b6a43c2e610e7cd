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
    /// - Throws: ``StoreError/database(_:)`` when the query fails.
    public func performFetch() throws(StoreError) {
        engine = try fetchEngine(query: engine.query)
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
        let rows = try store.fetchCommittedRows(query)
        self.request = request
        replaceResults(query: query, rows: rows)
    }

    /// Swaps in new results and reports the difference by diffing whole snapshots.
    func replaceResults(query: BoundQuery, rows: [[Value]]) {
        var old = engine.snapshot
        for edit in pendingUserEdits { edit.apply(to: &old) }
        pendingUserEdits = []
        let previous = engine
        engine = makeEngine(query: query, rows: rows)
        let keyIndex = query.entity.keyIndex
        var updated: Set<Value> = []
        for row in rows {
            if let before = previous.row(forKey: row[keyIndex]), before != row { updated.insert(row[keyIndex]) }
        }
        report(diff(from: old, previous: previous, updated: updated))
    }

    private func diff(from old: [Section<Value, Value>], previous: any ResultsEngine, updated: Set<Value>) -> IncrementalChange? {
        let group = SnapshotDiff.changes(from: old, to: engine.snapshot, isUpdated: { updated.contains($0) })
        guard !group.isEmpty else { return nil }
        var change = IncrementalChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = previous.row(forKey: object.item)
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

    /// Applies the current rows of the keys a commit touched, and reports the difference.
    func storeDidCommit(_ changes: CommittedChanges) {
        guard hasFetched else { return }
        if changes.needsResync {
            // The log was pruned past what this query read: re-fetch and diff.
            if let rows = try? store.fetchCommittedRows(engine.query) { replaceResults(query: engine.query, rows: rows) }
            return
        }
        let touched = changes.rowsByEntity[engine.query.entity.name] ?? [:]
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

    /// A bulk change: re-fetch and diff whole snapshots; updates are the rows whose
    /// fingerprint changed (all of them are compared: the re-fetch may also see a commit
    /// that the next delivery will bring).
    private func reportBulkChange(touched: [Value: [Value]?], refetched: any ResultsEngine) {
        let old = engine.snapshot
        let previous = engine
        engine = refetched
        let new = engine.snapshot
        var updated: Set<Value> = []
        for section in new {
            for key in section.items {
                if let before = previous.fingerprint(forKey: key), before != refetched.fingerprint(forKey: key) { updated.insert(key) }
            }
        }
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { updated.contains($0) })
        guard !group.isEmpty else { return }
        var change = IncrementalChange(group: group)
        for object in group.objectChanges where object.type == .delete {
            change.removedRows[object.item] = previous.knownRow(forKey: object.item)
        }
        for section in group.sectionChanges where section.type == .delete {
            change.oldSectionCounts[section.index] = old[section.index].items.count
        }
        report(change)
    }

    /// A change that starts from the list as the user left it: apply, then diff whole
    /// snapshots from the user's view.
    private func reportChangeFromUserEdits(touched: [Value: [Value]?]) {
        var old = engine.snapshot
        for edit in pendingUserEdits { edit.apply(to: &old) }
        pendingUserEdits = []
        var oldRows: [Value: [Value]] = [:]
        var oldFingerprints: [Value: UInt64] = [:]
        for key in touched.keys {
            oldRows[key] = engine.knownRow(forKey: key)
            oldFingerprints[key] = engine.fingerprint(forKey: key)
        }
        _ = engine.apply(touched: touched)
        var updated: Set<Value> = []
        for (key, before) in oldFingerprints {
            if let after = engine.fingerprint(forKey: key), after != before { updated.insert(key) }
        }
        let group = SnapshotDiff.changes(from: old, to: engine.snapshot, isUpdated: { updated.contains($0) })
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
