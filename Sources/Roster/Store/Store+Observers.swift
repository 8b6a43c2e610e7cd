/// Something that wants to hear what each committed transaction changed.
protocol StoreObserver: AnyObject {
    /// The entities whose changes the observer needs: the one it watches first, then those
    /// its key paths reach.
    var observedEntityNames: [String] { get }
    /// Called after a commit with the current rows of the keys it touched, in the
    /// delivery's read transaction on `store` (reads through it see that state).
    func storeDidCommit(_ changes: CommittedChanges, in store: Store)
    /// Called when reading what was committed failed. With `mustResync` false nothing was
    /// consumed: the next delivery (after a commit or a poll) reads the same entries again.
    /// With `mustResync` true the observer's entity cannot be tracked now (its table no
    /// longer fits): entries went by, and the observer must re-fetch once it can.
    func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool)
}

/// A registration that does not keep its observer alive.
struct WeakObserver {
    weak var observer: (any StoreObserver)?
    /// The observer's identity, which finds its registration without loading a weak
    /// reference. An observer that went away without removing itself may leave its address
    /// to a new one: both registrations then have this identity, and removing goes by it.
    let id: ObjectIdentifier

    init(_ observer: any StoreObserver) {
        self.observer = observer
        id = ObjectIdentifier(observer)
    }
}

extension Store {
    /// Starts telling `observer` about commits, after those already registered.
    func addObserver(_ observer: any StoreObserver) {
        removeObserver(observer)
        // Live queries made and released with no delivery between: dropped here once they
        // are half the registrations, so that the list stays as long as twice the live ones.
        if emptiedObservers * 2 > observers.count { dropEmptyObservers() }
        observers.append(WeakObserver(observer))
        observerDidChangeEntities(observer)
    }

    /// Notes that `observer` observes `observer.observedEntityNames` (it was added, or a
    /// live query's request changed): the transactions after this note the rows of those
    /// entities, for its deliveries.
    func observerDidChangeEntities(_ observer: any StoreObserver) {
        storage.willDeliver(observer.observedEntityNames)
    }

    /// Stops telling `observer` about commits: empties its registration, which the next
    /// delivery drops with those of observers that went away. By identity, loading no weak
    /// reference and moving no other registration: a store releasing 1,000 live queries
    /// one after another spent 0.1 s doing both for each (issue 37's 1,000 entities).
    func removeObserver(_ observer: any StoreObserver) {
        let id = ObjectIdentifier(observer)
        for index in observers.indices where observers[index].id == id {
            observers[index].observer = nil
            emptiedObservers += 1
        }
    }

    /// Drops the registrations of observers removed or gone.
    private func dropEmptyObservers() {
        observers.removeAll { $0.observer == nil }
        emptiedObservers = 0
    }

    /// Reads what was committed since the last delivery and hands it to each observer, in
    /// the order they registered. A commit made by an observer's delegate while this runs
    /// is delivered after the current round, never in the middle of it.
    ///
    /// The commit that led here has happened, so a failure is not thrown to the writer:
    /// every observer hears it, and the cursor stays where it was for the next delivery.
    func deliverChanges() {
        guard !isDelivering else {
            hasPendingDelivery = true
            return
        }
        // An observer whose own read fails during this delivery sets it again.
        let isRetry = hasFailedDelivery
        hasFailedDelivery = false
        do {
            try deliverRounds(isRetry: isRetry, thenReading: {})
        } catch {
            hasFailedDelivery = true
            for registration in observers {
                registration.observer?.storeDidFailToDeliver(error, mustResync: false)
            }
        }
    }

    /// Runs `body` in a read transaction on the reading connection that sees exactly the
    /// state observers have been told about (the backend's cursor): where a new live
    /// query must start, so that the next change it hears is news to it.
    ///
    /// Usually nothing is pending and `body` runs at once. When another connection has
    /// committed since the last delivery, that is delivered first and `body` runs in the
    /// same read transaction. Inside a delivery (a delegate callback), `body` runs in the
    /// round's own read transaction.
    ///
    /// - Parameter entityNames: the entities a live query starts watching with this fetch
    ///   (``Entity/observedNames``): each table is checked (``StorageBackend/checkTable(of:always:)``) and its tracking
    ///   is made to exist first (``ensureTracking(of:)``), so that the fetch and every
    ///   commit after it are covered.
    func readingAtCursor<T>(observing entityNames: [String] = [], _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        // Before the read transaction starts, so that the fetch sees every commit made
        // before tracking started.
        var entities: [Entity] = []
        for entityName in entityNames {
            let entity = try definedEntity(named: entityName)
            let isFirstWatch = !storage.isTracking(entityName) && !pendingTracking.contains(entityName)
            try storage.checkTable(of: entity, always: isFirstWatch)
            entities.append(entity)
        }
        let started = try ensureTracking(of: entities)
        if isDelivering { return try body() }
        // Starting was a commit on the writer, which the reading side sees as another
        // connection's: read in a delivery round, which notes the committed state, so that
        // the next poll does not take that commit for news.
        if started { return try deliverRounds(isRetry: false, thenReading: body) }
        try storage.beginCommittedRead()
        let isCurrent: Bool
        do { isCurrent = try storage.isAtNewestChange() } catch {
            storage.endCommittedRead(abandon: true)
            throw error
        }
        if isCurrent {
            defer { storage.endCommittedRead(abandon: false) }
            return try body()
        }
        storage.endCommittedRead(abandon: false)
        return try deliverRounds(isRetry: false, thenReading: body)
    }

    /// Makes sure the backend records the entities' writes before a live query starts
    /// watching them, starting it the first time any live query, in any process, watches an
    /// entity (for SQLite: its change log, three or four triggers), for all of them in one write
    /// transaction.
    ///
    /// Starting takes the write lock, so every other writer's transaction either committed
    /// before — and the fetch that follows (in a read transaction begun after this commit)
    /// sees its result — or runs after, and is recorded. Writes made before an entity was
    /// watched need no record: the first fetch reads their result.
    ///
    /// Where that order cannot hold — inside a transaction of this store's (the start would
    /// be part of it, and its earlier writes unrecorded), or during a delivery (the fetch
    /// reads in the round's read transaction, begun before) — starting waits for the next
    /// delivery round outside a transaction, whose live queries on the entity then read
    /// their results again and report what differs from what they hold
    /// (``CommittedChanges/mustReread``).
    ///
    /// Costs one look-up the first time an entity is watched (which does not grow with the
    /// number of entities), nothing after.
    ///
    /// - Returns: whether this call started tracking (a commit on the writer).
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` when the store is read-only
    ///   and an entity is not tracked yet; ``StoreError/database(_:)`` when tracking
    ///   cannot start.
    @discardableResult
    func ensureTracking(of entities: [Entity]) throws(StoreError) -> Bool {
        let unknown = entities.filter { !storage.isTracking($0.name) && !pendingTracking.contains($0.name) }
        guard !unknown.isEmpty else { return false }
        // The first watch of these entities in this store: another process may have started it.
        let untracked = try storage.findTracking(of: unknown)
        guard let first = untracked.first else { return false }
        guard !storage.isReadOnly else {
            throw .schemaMismatch(entity: first.name, reason: "it has no change log yet (it is created when a live query first watches the entity), and a read-only store cannot create one: open the store read-write once and watch the entity, or have a read-write process watch it first")
        }
        if isInTransaction || isDelivering {
            pendingTracking.formUnion(untracked.map(\.name))
            if isDelivering { hasPendingDelivery = true }
            return false
        }
        try storage.startTracking(untracked)
        return true
    }

    /// ``ensureTracking(of:)`` for one entity.
    @discardableResult
    func ensureTracking(of entity: Entity) throws(StoreError) -> Bool {
        try ensureTracking(of: [entity])
    }

    /// Every entity some observer needs the changes of.
    private func observedNames() -> Set<String> {
        var names = Set<String>()
        for registration in observers {
            guard let observer = registration.observer else { continue }
            for name in observer.observedEntityNames { names.insert(name) }
        }
        return names
    }

    /// Starts the tracking that live queries began waiting for during a delivery or a
    /// transaction (``pendingTracking``), outside any transaction, before a round's read
    /// transaction begins.
    ///
    /// - Returns: the entities whose live queries must read their results again now
    ///   (started), and those
    ///   whose tracking could not start, with the error their live queries hear (they stay
    ///   pending, and are tried again at the next delivery).
    private func startPendingTracking() -> (started: Set<String>, failed: [String: StoreError]) {
        guard !pendingTracking.isEmpty, !isInTransaction else { return ([], [:]) }
        let observed = observedNames()
        pendingTracking.formIntersection(observed)
        guard !pendingTracking.isEmpty else { return ([], [:]) }
        let names = pendingTracking.sorted()
        do {
            try storage.startTracking(names.compactMap { entitiesByName[$0] })
        } catch {
            return ([], Dictionary(uniqueKeysWithValues: names.map { ($0, error) }))
        }
        pendingTracking = []
        return (Set(names), [:])
    }

    /// Delivery rounds, each in one read transaction on the reading connection held open
    /// while observers run, so that whatever they read through it (a re-fetch, objects
    /// loaded on demand) is the state they are told about. `body` runs in the last round's
    /// transaction, after its observers. A retry after a failed delivery calls the
    /// observers even when nothing new was committed, so that one whose read failed can
    /// read again.
    private func deliverRounds<T>(isRetry: Bool, thenReading body: () throws(StoreError) -> T) throws(StoreError) -> T {
        isDelivering = true
        defer { isDelivering = false }
        var result: T?
        // What a round that read again (`needsNewRead`) started, for the next one to deliver;
        // once a delivery: a log that a check cannot make stay put back must not loop.
        var carried: (started: Set<String>, failed: [String: StoreError]) = ([], [:])
        var hasReadAgain = false
        repeat {
            hasPendingDelivery = false
            dropEmptyObservers()
            // Before the read transaction, so that it sees every commit not logged for them.
            var pending = startPendingTracking()
            pending.started.formUnion(carried.started)
            pending.failed.merge(carried.failed) { new, _ in new }
            carried = ([], [:])
            let names = observedNames()
            // An entity whose tracking is still to start has no changes to read yet.
            let entities = names.subtracting(pendingTracking).compactMap { entitiesByName[$0] }
            var changes: CommittedChanges?
            var schema = SchemaCheck()
            do throws(StoreError) {
                try storage.beginCommittedRead()
                // Entities whose tracking is still to start are left to that.
                schema = try storage.checkSchema(of: Array(entitiesByName.values), observed: names.subtracting(pendingTracking))
                if schema.needsNewRead && !hasReadAgain {
                    // Change logs put back after this snapshot: their live queries re-fetch
                    // in a new one, which sees what the logs missed (the next round).
                    storage.endCommittedRead(abandon: true)
                    carried = pending
                    hasReadAgain = true
                    hasPendingDelivery = true
                    continue
                }
                schema.broken.merge(pending.failed) { checked, _ in checked }
                changes = try storage.collectChanges(of: entities.filter { schema.broken[$0.name] == nil })
                if changes == nil && (isRetry || !schema.isEmpty || !pending.started.isEmpty) { changes = storage.changesAtCursor() }
            } catch {
                // A failed read leaves the cursor where it was: the next delivery reads again.
                storage.endCommittedRead(abandon: true)
                throw error
            }
            // Noted inside the transaction: a commit made elsewhere while observers run
            // changes it again, so the next poll sees that commit.
            storage.noteCommittedState()
            // Before the observers read through key paths: the related objects as committed now.
            if let changes, !relatedRows.isEmpty {
                if schema.isEmpty && pending.started.isEmpty {
                    relatedRows.take(changes, collected: Set(entities.map(\.name)))
                } else {
                    relatedRows = RelatedRows()
                }
            }
            if !schema.broken.isEmpty { hasFailedDelivery = true }
            if let changes {
                for registration in observers {
                    guard let observer = registration.observer else { continue }
                    let observed = observer.observedEntityNames
                    if let error = observed.lazy.compactMap({ schema.broken[$0] }).first {
                        observer.storeDidFailToDeliver(error, mustResync: true)
                    } else if observed.contains(where: schema.restored.contains) {
                        var resynced = changes
                        resynced.resync = .schemaChanged
                        observer.storeDidCommit(resynced, in: self)
                    } else if observed.contains(where: pending.started.contains) {
                        var reread = changes
                        reread.mustReread = true
                        observer.storeDidCommit(reread, in: self)
                    } else {
                        observer.storeDidCommit(changes, in: self)
                    }
                }
            }
            if !hasPendingDelivery {
                do {
                    result = try body()
                } catch {
                    storage.endCommittedRead(abandon: false)
                    throw error
                }
            }
            storage.endCommittedRead(abandon: false)
        } while hasPendingDelivery
        // Housekeeping: a failure leaves more log than needed, and the next delivery tries again.
        storage.pruneChanges(of: Array(entitiesByName.values))
        // The loop ends only after a round with nothing pending, which ran `body`.
        guard let result else { throw .transaction("internal: a delivery ended without reading") }
        return result
    }
}
