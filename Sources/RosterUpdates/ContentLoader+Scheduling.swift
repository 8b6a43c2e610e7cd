import Foundation

extension ContentLoader {
    /// Starts loads for waiting visible objects, top to bottom, while slots are free.
    func startQueuedLoads() {
        for id in visibleIDs where running.count < maxConcurrentLoads {
            if running[id] == nil && !settled.contains(id) {
                startLoad(of: id)
            }
        }
    }

    /// Starts one load in a task of its own; its result comes back to ``finishLoad(of:ticket:outcome:)``.
    func startLoad(of id: ItemID) {
        lastTicket += 1
        let ticket = lastTicket
        let load = self.load
        // The task inherits the main actor; `load` is nonisolated, so it runs elsewhere and
        // the result hops back here, where the path is looked up.
        let task = Task { [weak self] in
            let outcome: Result<Content, any Error>
            do {
                outcome = .success(try await load(id))
            } catch {
                outcome = .failure(error)
            }
            self?.finishLoad(of: id, ticket: ticket, outcome: outcome)
        }
        running[id] = RunningLoad(ticket: ticket, task: task)
        outbox.append(.activity(.started(id)))
    }

    /// Takes a load's outcome on the main actor: drops it if the load was cancelled or
    /// superseded, otherwise caches it and queues its delivery.
    func finishLoad(of id: ItemID, ticket: UInt64, outcome: Result<Content, any Error>) {
        // The ticket, not `Task.isCancelled`, decides: cancelling removes the ticket at once on
        // this actor, so a load that ignored its cancellation and returned content is dropped too.
        guard let current = running[id], current.ticket == ticket else {
            outbox.append(.activity(.discarded(id)))
            deliverNotifications()
            return
        }
        running[id] = nil
        if Task.isCancelled {
            // Someone else cancelled the task; the object is still wanted, so it loads again.
            outbox.append(.activity(.discarded(id)))
        } else {
            settled.insert(id)
            if case .success(let content) = outcome {
                cache.insert(content, for: id)
            }
            outbox.append(.outcome(id, outcome))
        }
        startQueuedLoads()
        deliverNotifications()
    }

    /// Cancels an object's load, if one is under way; its result will be discarded.
    func cancelLoad(of id: ItemID, reason: CancellationReason) {
        guard let load = running.removeValue(forKey: id) else { return }
        load.task.cancel()
        outbox.append(.activity(.cancelled(id, reason)))
    }

    /// Runs the waiting callbacks in order, including those that callbacks add.
    func deliverNotifications() {
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        var next = 0
        while next < outbox.count {
            let notification = outbox[next]
            next += 1
            switch notification {
            case .activity(let activity):
                onActivity?(activity)
            case .outcome(let id, let outcome):
                deliver(outcome, of: id)
            }
        }
        outbox.removeAll()
    }

    /// Hands an outcome to the object's row at its path now, unless an earlier callback
    /// changed the list so that the object is gone, off screen or loading anew.
    private func deliver(_ outcome: Result<Content, any Error>, of id: ItemID) {
        guard let path = pathByID[id], visibleSet.contains(id), settled.contains(id), running[id] == nil else {
            onActivity?(.discarded(id))
            return
        }
        // The row hears first, at the path just looked up; the trace then records where it went.
        switch outcome {
        case .success(let content):
            onLoaded?(id, content, path)
            onActivity?(.delivered(id, path))
        case .failure(let error):
            onFailed?(id, error, path)
            onActivity?(.failed(id, path))
        }
    }

    /// Checks the loader's bookkeeping: loads run only for visible objects of the list and
    /// never more than ``maxConcurrentLoads`` at once, no object waits while a slot is free,
    /// and the cache stays within its capacity. Traps on a broken invariant.
    ///
    /// - Complexity: O(*n*) for *n* objects in the list.
    public func _checkInvariants() {
        precondition(running.count <= maxConcurrentLoads, "\(running.count) loads run, over the bound \(maxConcurrentLoads)")
        precondition(Set(visibleIDs) == visibleSet && visibleIDs.count == visibleSet.count, "visible objects out of step")
        precondition(running.keys.allSatisfy(visibleSet.contains), "a load runs for an object that is not visible")
        precondition(settled.isSubset(of: visibleSet), "an object that is not visible is marked settled")
        precondition(running.keys.allSatisfy { !settled.contains($0) }, "a settled object is loading")
        precondition(visibleIDs.allSatisfy { pathByID[$0] != nil }, "a visible object is not in the list")
        precondition(running.count == maxConcurrentLoads || queuedIDs.isEmpty, "an object waits while a load slot is free")
        for (id, path) in pathByID {
            precondition(sections[path.section][path.item] == id, "the path of \(id) is stale")
        }
        precondition(pathByID.count == sections.reduce(0) { $0 + $1.count }, "an object appears twice in the layout")
        cache.checkInvariants()
    }
}
