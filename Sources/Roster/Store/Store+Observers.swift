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
        isDelivering = true
        defer { isDelivering = false }
        repeat {
            hasPendingDelivery = false
            observers.removeAll { $0.observer == nil }
            let names = Set(observers.compactMap { $0.observer?.observedEntityName })
            let entities = names.compactMap { entitiesByName[$0] }
            // A failed read leaves the cursor where it was: the next delivery reads again.
            guard let changes = try? tracker.collect(entities: entities) else { break }
            for registration in observers {
                registration.observer?.storeDidCommit(changes)
            }
        } while hasPendingDelivery
        if !isInTransaction {
            try? tracker.pruneIfNeeded(using: writer)
        }
    }
}
