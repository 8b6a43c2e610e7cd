/// Something that wants to hear what each committed transaction changed.
protocol StoreObserver: AnyObject {
    /// The entity whose changes the observer needs.
    var observedEntityName: String { get }
    /// Called after a commit with the current rows of the keys it touched.
    func storeDidCommit(_ changes: CommittedChanges)
    /// Called when reading what was committed failed. With `mustResync` false nothing was
    /// consumed: the next delivery (after a commit or a poll) reads the same entries again.
    /// With `mustResync` true the observer's entity cannot be tracked now (its table no
    /// longer fits): entries went by, and the observer must re-fetch once it can.
    func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool)
}

/// A registration that does not keep its observer alive.
struct WeakObserver {
    weak var observer: (any StoreObserver)?
}

extension Store {
    /// Starts telling `observer` about commits, after those already registered.
    func addObserver(_ observer: any StoreObserver) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
        observers.append(WeakObserver(observer: observer))
    }

    /// Stops telling `observer` about commits.
    func removeObserver(_ observer: any StoreObserver) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
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
    /// state observers have been told about (the tracker's cursor): where a new live
    /// query must start, so that the next change it hears is news to it.
    ///
    /// Usually nothing is pending and `body` runs at once. When another connection has
    /// committed since the last delivery, that is delivered first and `body` runs in the
    /// same read transaction. Inside a delivery (a delegate callback), `body` runs in the
    /// round's own read transaction.
    ///
    /// - Parameter entityName: the entity a live query starts watching with this fetch:
    ///   its table is checked (``checkTableBeforeFetch(of:always:)``) and its change log
    ///   is made to exist first (``ensureChangeLog(for:)``), so that the fetch and every
    ///   commit after it are covered.
    func readingAtCursor<T>(observing entityName: String? = nil, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        // Before the read transaction starts, so that the fetch sees every commit made
        // before the triggers existed.
        var created = false
        if let entityName {
            let isFirstWatch = !entitiesWithChangeLog.contains(entityName) && !pendingChangeLogs.contains(entityName)
            try checkTableBeforeFetch(of: entityName, always: isFirstWatch)
            created = try ensureChangeLog(for: entityName)
        }
        if isDelivering { return try body() }
        // The creation was a commit on the writer, which the reading connection sees as
        // another connection's: read in a delivery round, which notes the file's state, so
        // that the next poll does not take that commit for news.
        if created { return try deliverRounds(isRetry: false, thenReading: body) }
        do { try reader.execute("BEGIN") } catch { throw .database(error) }
        let isCurrent: Bool
        do { isCurrent = try tracker.newestEntry() == tracker.cursor } catch {
            try? reader.execute("ROLLBACK")
            throw .database(error)
        }
        if isCurrent {
            defer { try? reader.execute("COMMIT") }
            return try body()
        }
        try? reader.execute("COMMIT")
        return try deliverRounds(isRetry: false, thenReading: body)
    }

    /// Refuses a fetch from the entity's table when another process rebuilt it past
    /// Roster's rules (``tableProblem(_:looseTables:)``): a live query built on it could not
    /// keep SQLite's order. Checked when this store first watches the entity (the file may
    /// have been rebuilt while no store had it open), and whenever the schema changed since
    /// the last full check (``checkSchema()``), which costs one `PRAGMA schema_version`.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` naming what is wrong.
    private func checkTableBeforeFetch(of entityName: String, always: Bool) throws(StoreError) {
        let entity = try entity(named: entityName)
        let problem: String?
        do {
            if !always, try reader.schemaVersion() == knownSchemaVersion { return }
            problem = try tableProblem(entity)
        } catch {
            throw .database(error)
        }
        if let problem { throw .schemaMismatch(entity: entityName, reason: "\(problem), by another connection") }
    }

    /// Makes sure the file holds the entity's change log (its triggers and table of
    /// before-images) before a live query starts watching it, creating it the first time
    /// any live query, in any process, watches the entity.
    ///
    /// Creating it takes the write lock, so every other writer's transaction either
    /// committed before — and the fetch that follows (in a read transaction begun after
    /// this commit) sees its result — or runs after, and is logged. Writes made before an
    /// entity was watched need no log: the first fetch reads their result.
    ///
    /// Where that order cannot hold — inside a transaction of this store's (the triggers
    /// would be part of it, and its earlier writes unlogged), or during a delivery (the
    /// fetch reads in the round's read transaction, begun before) — the creation waits for
    /// the next delivery round outside a transaction, whose live queries on the entity
    /// then re-fetch (a resync marked ``ResyncReason/schemaChanged``).
    ///
    /// Costs one look-up in `sqlite_schema` the first time an entity is watched, nothing after.
    ///
    /// - Returns: whether this call created the change log (a commit on the writer).
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` when the store is read-only
    ///   and the entity has no change log yet; ``StoreError/database(_:)`` when it cannot
    ///   be created.
    @discardableResult
    func ensureChangeLog(for entityName: String) throws(StoreError) -> Bool {
        if entitiesWithChangeLog.contains(entityName) || pendingChangeLogs.contains(entityName) { return false }
        let entity = try entity(named: entityName)
        // The first watch of an entity in this store: another process may have rebuilt its
        // table while the store was closed, and a fetch must not build on such a table.
        let exists: Bool
        do { exists = try SchemaCatalog.hasChangeLog(of: entity, on: writer) } catch { throw .database(error) }
        if exists {
            entitiesWithChangeLog.insert(entityName)
            return false
        }
        guard !writer.isReadOnly else {
            throw .schemaMismatch(entity: entityName, reason: "it has no change log yet (it is created when a live query first watches the entity), and a read-only store cannot create one: open the store read-write once and watch the entity, or have a read-write process watch it first")
        }
        if isInTransaction || isDelivering {
            pendingChangeLogs.insert(entityName)
            if isDelivering { hasPendingDelivery = true }
            return false
        }
        try createChangeLogs(of: [entityName])
        return true
    }

    /// Creates the change logs of these entities that the file does not hold yet, in one
    /// write transaction, from their definitions as the file records them (another process
    /// may have added attributes).
    ///
    /// When no other connection changed the schema since the last check, the schema
    /// version this creates is noted as checked, so that the next delivery does not read
    /// the whole schema again for it.
    private func createChangeLogs(of names: [String]) throws(StoreError) {
        do { try writer.execute("BEGIN IMMEDIATE") } catch { throw .database(error) }
        do throws(StoreError) {
            let versionBefore: Int64
            do { versionBefore = try writer.schemaVersion() } catch { throw .database(error) }
            var sql = ""
            for name in names {
                guard let entity = try SchemaCatalog.recordedEntity(named: name, on: writer) ?? entitiesByName[name] else { continue }
                // Another process may have created it since it was looked up.
                let exists: Bool
                do { exists = try SchemaCatalog.hasChangeLog(of: entity, on: writer) } catch { throw .database(error) }
                if !exists { sql += SchemaCatalog.changeLog(for: entity) }
            }
            let versionAfter: Int64
            do {
                if !sql.isEmpty { try writer.execute(sql) }
                versionAfter = try writer.schemaVersion()
                try writer.execute("COMMIT")
            } catch {
                throw .database(error)
            }
            if versionBefore == knownSchemaVersion { knownSchemaVersion = versionAfter }
        } catch {
            if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
            throw error
        }
        entitiesWithChangeLog.formUnion(names)
    }

    /// Creates the change logs that live queries started waiting for during a delivery or
    /// a transaction (``pendingChangeLogs``), outside any transaction, before a round's
    /// read transaction begins.
    ///
    /// - Returns: the entities whose live queries must re-fetch now (created), and those
    ///   whose change log could not be created, with the error their live queries hear
    ///   (they stay pending, and are tried again at the next delivery).
    private func createPendingChangeLogs() -> (created: Set<String>, failed: [String: StoreError]) {
        guard !pendingChangeLogs.isEmpty, !isInTransaction else { return ([], [:]) }
        let observed = Set(observers.compactMap { $0.observer?.observedEntityName })
        pendingChangeLogs.formIntersection(observed)
        guard !pendingChangeLogs.isEmpty else { return ([], [:]) }
        let names = pendingChangeLogs.sorted()
        do {
            try createChangeLogs(of: names)
        } catch {
            return ([], Dictionary(uniqueKeysWithValues: names.map { ($0, error) }))
        }
        pendingChangeLogs = []
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
        repeat {
            hasPendingDelivery = false
            observers.removeAll { $0.observer == nil }
            // Before the read transaction, so that it sees every commit not logged for them.
            let pending = createPendingChangeLogs()
            let names = Set(observers.compactMap { $0.observer?.observedEntityName })
            // An entity whose change log is still to come has no log to read yet.
            let entities = names.subtracting(pendingChangeLogs).compactMap { entitiesByName[$0] }
            var changes: CommittedChanges?
            var schema = SchemaCheck()
            do throws(StoreError) {
                do { try reader.execute("BEGIN") } catch { throw .database(error) }
                schema = try checkSchema()
                schema.restored.formUnion(pending.created)
                schema.broken.merge(pending.failed) { checked, _ in checked }
                do {
                    changes = try tracker.collect(entities: entities.filter { schema.broken[$0.name] == nil })
                } catch {
                    throw .database(error)
                }
                if changes == nil && (isRetry || !schema.isEmpty) { changes = CommittedChanges(through: tracker.cursor) }
            } catch {
                // A failed read leaves the cursor where it was: the next delivery reads again.
                try? reader.execute("ROLLBACK")
                throw error
            }
            // Noted inside the transaction: a commit made elsewhere while observers run
            // changes it again, so the next poll sees that commit. (If it cannot be read,
            // the next poll merely looks at the log for nothing.)
            try? tracker.noteDataVersion()
            if !schema.broken.isEmpty { hasFailedDelivery = true }
            if let changes {
                for registration in observers {
                    guard let observer = registration.observer else { continue }
                    if let error = schema.broken[observer.observedEntityName] {
                        observer.storeDidFailToDeliver(error, mustResync: true)
                    } else if schema.restored.contains(observer.observedEntityName) {
                        var resynced = changes
                        resynced.resync = .schemaChanged
                        observer.storeDidCommit(resynced)
                    } else {
                        observer.storeDidCommit(changes)
                    }
                }
            }
            if !hasPendingDelivery {
                do {
                    result = try body()
                } catch {
                    try? reader.execute("COMMIT")
                    throw error
                }
            }
            try? reader.execute("COMMIT")
        } while hasPendingDelivery
        if !isInTransaction && !writer.isReadOnly {
            // Pruning is housekeeping: a failure leaves more log than needed, nothing worse,
            // and the next delivery tries again.
            try? tracker.pruneIfNeeded(using: writer, entities: entitiesByName.values)
        }
        // The loop ends only after a round with nothing pending, which ran `body`.
        guard let result else { throw .transaction("internal: a delivery ended without reading") }
        return result
    }
}
