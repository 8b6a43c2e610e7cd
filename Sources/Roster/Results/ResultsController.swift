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
/// ``ResultsControllerDelegate`` for when callbacks arrive.
public final class ResultsController {
    /// The store the controller watches.
    public let store: Store
    /// The request whose results the controller shows.
    public private(set) var request: FetchRequest
    /// Receives the changes; not retained.
    public weak var delegate: (any ResultsControllerDelegate)?

    var query: BoundQuery
    /// The results: rows in order.
    var rows: [[Value]] = []
    /// The rows by key.
    var rowByKey: [Value: [Value]] = [:]
    /// Where each section starts in `rows`, and its name.
    var sectionStarts: [(name: Value, start: Int)] = []
    /// The last group of changes reported, as events; nil before the first change.
    public internal(set) var lastChange: ChangeGroup<Value, Value>?
    /// Whether ``performFetch()`` has run.
    public private(set) var hasFetched = false

    /// Creates a controller; call ``performFetch()`` to load the results and start tracking.
    ///
    /// - Throws: ``StoreError`` when the entity, an attribute or the predicate does not fit.
    public init(store: Store, request: FetchRequest) throws(StoreError) {
        self.store = store
        self.request = request
        query = try BoundQuery(request, entity: store.entity(named: request.entityName))
    }

    deinit {
        store.removeObserver(self)
    }

    /// Loads the results and starts tracking changes. Calls no delegate method.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the query fails.
    public func performFetch() throws(StoreError) {
        setRows(try fetchRows(query))
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
            self.query = query
            return
        }
        let newRows = try fetchRows(query)
        let oldRows = rows
        let oldRowByKey = rowByKey
        self.request = request
        self.query = query
        setRows(newRows)
        let updated = Set(newRows.lazy.map { query.key(of: $0) }.filter { key in
            oldRowByKey[key].map { $0 != self.rowByKey[key] } ?? false
        })
        report(oldRows: oldRows, oldRowByKey: oldRowByKey, updated: updated)
    }

    func fetchRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] {
        do {
            let statement = try store.reader.prepare(query.selectSQL)
            try statement.bind(query.predicate.arguments)
            var rows: [[Value]] = []
            let attributes = query.entity.attributes
            while try statement.step() {
                rows.append(attributes.indices.map { statement.column($0, as: attributes[$0].type) })
            }
            return rows
        } catch {
            throw .database(error)
        }
    }

    /// Replaces the results and recomputes the lookups.
    func setRows(_ newRows: [[Value]]) {
        rows = newRows
        rowByKey = Dictionary(uniqueKeysWithValues: newRows.lazy.map { (self.query.key(of: $0), $0) })
        sectionStarts = []
        var previous: Value?
        for (index, row) in newRows.enumerated() {
            let name = query.sectionName(of: row)
            if index == 0 || name != previous {
                sectionStarts.append((name, index))
                previous = name
            }
        }
    }
}
