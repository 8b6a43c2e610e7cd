/// Something that wants to hear what each committed transaction changed.
protocol StoreObserver: AnyObject {
    /// The entity whose changes the observer needs.
    var observedEntityName: String { get }
    /// Called after a commit with the current rows of the keys it touched.
    func storeDidCommit(_ changes: CommittedChanges)
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
    func deliverChanges() {
        guard !isDelivering else {
            hasPendingDelivery = true
            return
        }
        try? deliverRounds(thenReading: {})
    }

    /// Runs `body` in a read transaction on the reading connection that sees exactly the
    /// state observers have been told about (the tracker's cursor): where a new live
    /// query must start, so that the next change it hears is news to it.
    ///
    /// Usually nothing is pending and `body` runs at once. When another connection has
    /// committed since the last delivery, that is delivered first and `body` runs in the
    /// same read transaction. Inside a delivery (a delegate callback), `body` runs in the
    /// round's own read transaction.
    func readingAtCursor<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if isDelivering { return try body() }
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
        return try deliverRounds(thenReading: body)
    }

    /// Delivery rounds, each in one read transaction on the reading connection held open
    /// while observers run, so that whatever they read through it (a re-fetch, objects
    /// loaded on demand) is the state they are told about. `body` runs in the last round's
    /// transaction, after its observers.
    private func deliverRounds<T>(thenReading body: () throws(StoreError) -> T) throws(StoreError) -> T {
        isDelivering = true
        defer { isDelivering = false }
        var result: T?
        repeat {
            hasPendingDelivery = false
            observers.removeAll { $0.observer == nil }
            let names = Set(observers.compactMap { $0.observer?.observedEntityName })
            let entities = names.compactMap { entitiesByName[$0] }
            let changes: CommittedChanges?
            do {
                try reader.execute("BEGIN")
                changes = try tracker.collect(entities: entities)
            } catch {
                // A failed read leaves the cursor where it was: the next delivery reads again.
                try? reader.execute("ROLLBACK")
                throw .database(error)
            }
            // Noted inside the transaction: a commit made elsewhere while observers run
            // changes it again, so the next poll sees that commit. (If it cannot be read,
            // the next poll merely looks at the log for nothing.)
            try? tracker.noteDataVersion()
            if let changes {
                for registration in observers {
                    registration.observer?.storeDidCommit(changes)
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
        if !isInTransaction {
            try? tracker.pruneIfNeeded(using: writer, entities: entitiesByName.values)
        }
        // The loop ends only after a round with nothing pending, which ran `body`.
        return result!
    }
}
