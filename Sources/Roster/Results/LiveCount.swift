/// A live count of an entity's objects that match a predicate — a badge — kept current
/// as transactions commit, without holding the objects: each commit costs O(rows it
/// touched).
///
/// ```swift
/// let unread = try LiveCount(store: store, entity: "Entry", predicate: QueryPredicate("read == NO"))
/// unread.delegate = self
/// try unread.performFetch()
/// badge.text = "\(unread.count)"
/// ```
///
/// Like a ``ResultsController``, it belongs to the store's isolation domain, and its
/// delegate is called there, synchronously, in the delivery of the commit that changed the
/// count: after the live queries registered before it heard that commit and before those
/// registered after it, so a list and its badge never disagree once the delivery returns.
/// Keep a strong reference to it: the store does not retain it.
public final class LiveCount {
    /// The store whose objects are counted.
    public let store: Store
    /// The objects counted: an entity and a predicate, without order or sections.
    public let request: FetchRequest
    /// The number of objects that match, as of the last commit delivered; 0 before
    /// ``performFetch()``.
    public private(set) var count = 0
    /// Receives each new count and each failure; not retained.
    public weak var delegate: (any LiveCountDelegate)?
    private let query: BoundQuery
    private var hasFetched = false
    /// Set when commits went by that the count could not take row by row: the next
    /// delivery counts again.
    private var mustRecount = false

    /// Creates a live count; call ``performFetch()`` to count and start tracking.
    ///
    /// - Throws: ``StoreError`` when the entity or the predicate does not fit the store.
    public init(store: Store, entity: String, predicate: QueryPredicate = .all) throws {
        self.store = store
        request = FetchRequest(entity: entity, predicate: predicate)
        query = try store.bind(request)
    }

    deinit {
        store.removeObserver(self)
    }

    /// Counts the matching objects and starts tracking changes. Calls no delegate method.
    ///
    /// - Throws: ``StoreError`` when the read fails; nothing changes then.
    public func performFetch() throws {
        let counted = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in try countNow() }
        if !hasFetched { store.addObserver(self) }
        hasFetched = true
        mustRecount = false
        count = counted
    }

    /// The committed objects that match, counted in the current read.
    private func countNow() throws(StoreError) -> Int {
        var counted = 0
        try store.storage.forEachCommittedRow(query, reading: []) { _ in counted += 1 }
        return counted
    }
}

/// Receives a ``LiveCount``'s changes, on the store's isolation domain.
public protocol LiveCountDelegate: AnyObject {
    /// The count changed: a commit (or several delivered together) added or removed
    /// matching objects.
    func liveCount(_ liveCount: LiveCount, didChangeTo count: Int)
    /// Reading what a commit changed failed; the count stays as it was, and the next
    /// delivery counts again.
    func liveCount(_ liveCount: LiveCount, didFailWith error: StoreError)
}

extension LiveCountDelegate {
    public func liveCount(_ liveCount: LiveCount, didFailWith error: StoreError) {}
}

extension LiveCount: StoreObserver {
    var observedEntityNames: [String] { query.entity.observedNames }

    func storeDidCommit(_ changes: CommittedChanges, in store: Store) {
        guard hasFetched else { return }
        var counted = count
        do {
            // Tracking started after the count (it was made inside a transaction): the
            // commits between went unlogged, so it counts again.
            if mustRecount || changes.resync != nil || changes.mustReread {
                counted = try countNow()
                mustRecount = false
            } else {
                for row in try store.touchedRows(of: query.entity, in: changes).values where row.isChanged {
                    if let before = row.before, query.predicate.evaluate(before) { counted -= 1 }
                    if let after = row.after, query.predicate.evaluate(after) { counted += 1 }
                }
            }
        } catch {
            mustRecount = true
            store.hasFailedDelivery = true
            delegate?.liveCount(self, didFailWith: error)
            return
        }
        guard counted != count else { return }
        count = counted
        delegate?.liveCount(self, didChangeTo: counted)
    }

    func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool) {
        guard hasFetched else { return }
        if mustResync { mustRecount = true }
        delegate?.liveCount(self, didFailWith: error)
    }
}
