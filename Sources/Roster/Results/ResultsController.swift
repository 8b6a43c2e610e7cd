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
public final class ResultsController {
    /// The store the controller watches.
    public let store: Store
    /// The request whose results the controller shows.
    public private(set) var request: FetchRequest
    /// Receives the changes; not retained.
    public weak var delegate: (any ResultsControllerDelegate)?
    /// The last group of changes reported, as events; nil before the first change.
    public internal(set) var lastChange: ChangeGroup<Value, Value>?
    /// Whether ``performFetch()`` has run.
    public private(set) var hasFetched = false

    var state: ResultsState

    /// Creates a controller; call ``performFetch()`` to load the results and start tracking.
    ///
    /// - Throws: ``StoreError`` when the entity, an attribute or the predicate does not fit.
    public init(store: Store, request: FetchRequest) throws(StoreError) {
        self.store = store
        self.request = request
        state = ResultsState(query: try BoundQuery(request, entity: store.entity(named: request.entityName)), rows: [])
    }

    deinit {
        store.removeObserver(self)
    }

    var query: BoundQuery { state.query }

    /// Loads the results and starts tracking changes. Calls no delegate method.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the query fails.
    public func performFetch() throws(StoreError) {
        state = ResultsState(query: state.query, rows: try store.fetchCommittedRows(state.query))
        if !hasFetched {
            hasFetched = true
            store.addObserver(self)
        }
    }

    /// Changes the order; the delegate hears the difference (an animated re-sort).
    ///
    /// - Throws: ``StoreError`` when a sort attribute does not exist; nothing changes then.
    public func setSortKeys(_ sortKeys: [SortKey]) throws(StoreError) {
        var request = self.request
        request.sortKeys = sortKeys
        try setRequest(request)
    }

    /// Changes which objects are included; the delegate hears the difference.
    ///
    /// - Throws: ``StoreError`` when the predicate does not fit the entity; nothing changes then.
    public func setPredicate(_ predicate: QueryPredicate) throws(StoreError) {
        var request = self.request
        request.predicate = predicate
        try setRequest(request)
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
            state = ResultsState(query: query, rows: [])
            return
        }
        let rows = try store.fetchCommittedRows(query)
        self.request = request
        report(state.replace(query: query, rows: rows))
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
        state.pendingUserEdits = edits
        defer { state.pendingUserEdits = [] }
        try write()
    }
}

extension ResultsController: StoreObserver {
    var observedEntityName: String { state.query.entity.name }

    /// Applies the current rows of the keys a commit touched, and reports the difference.
    func storeDidCommit(_ changes: CommittedChanges) {
        guard hasFetched else { return }
        if changes.needsResync {
            // The log was pruned past what this query read: re-fetch and diff.
            if let rows = try? store.fetchCommittedRows(state.query) {
                report(state.replace(query: state.query, rows: rows))
            }
            return
        }
        let touched = changes.rowsByEntity[state.query.entity.name] ?? [:]
        guard !touched.isEmpty || !state.pendingUserEdits.isEmpty else { return }
        report(state.apply(touched: touched))
    }

    /// Tells the delegate about a change.
    func report(_ delta: ResultsDelta?) {
        guard let delta else { return }
        let group = delta.group
        lastChange = group
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in group.sectionChanges {
            let count = change.type == .delete ? delta.oldSnapshot[change.index].items.count : numberOfObjects(inSection: change.index)
            delegate.controller(self, didChange: SectionInfo(name: change.section, numberOfObjects: count), atSectionIndex: change.index, for: change.type)
        }
        for change in group.objectChanges {
            let values = (change.type == .delete ? delta.removedRows[change.item] : state.rowByKey[change.item]) ?? []
            delegate.controller(self, didChange: Object(entity: state.query.entity, values: values), at: change.from, for: change.type, newIndexPath: change.to)
        }
        delegate.controllerDidChangeContent(self)
    }
}
