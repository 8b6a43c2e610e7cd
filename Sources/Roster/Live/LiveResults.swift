import RosterUpdates

/// A live query that writers on any thread feed and a consumer on any actor reads —
/// the main actor of an app, typically — without either waiting for the other.
///
/// Commits only leave a note in the live results' inbox; the writer goes on at once. The
/// consumer takes changes when it is ready: with the default ``DeliveryPolicy/coalescing``
/// policy each change covers every commit since the last one it took, so a consumer that
/// animates slowly never falls behind and never sees a stale row.
///
/// ```swift
/// let posts = try LiveResults(queue: queue, request: FetchRequest(
///     entity: "Post", sortKeys: [SortKey("day", ascending: false)], sectionAttribute: "day"))
/// Task { @MainActor in
///     for try await change in posts.changes {      // throws what the error channel reports
///         dataSource.apply(change.snapshot)          // or tableView.performBatchUpdates(change.batch)
///     }
/// }
/// ```
///
/// Three ways to consume, all from the same changes: the ``changes`` async sequence (or
/// ``nextChange()``), NSFetchedResultsController-style callbacks with
/// ``deliver(to:isolation:)``, and ``snapshot`` values for a diffable data source.
/// Changes arrive in the isolation of whoever awaits them. Take changes from one
/// consumer at a time.
///
/// The results hold each row's key and sort values and a bounded cache of whole rows
/// (about 45 bytes a row at a million rows). An object the cache lacks is read from the
/// store under the queue's lock and taken back through the commits the consumer has not
/// taken: so never read a live results' objects inside a ``StoreQueue`` closure (the lock
/// is not reentrant), and expect such a read to wait for a write in progress.
public final class LiveResults: Sendable, LiveQueryRequest {
    /// The store queue the results come from.
    public let queue: StoreQueue
    /// How changes are handed to the consumer.
    public let policy: DeliveryPolicy
    /// Makes each change's batch.
    public let adapter: BatchAdapter
    private let inbox: ChangeInbox
    private let consumer: Locked<Consumer>
    /// Held, inside the consumer's lock, whenever the engine is read or changed; alone by
    /// the snapshots' frozen orders (``FrozenSections``), which read it later.
    private let engineLock = EngineLock()

    private struct Consumer {
        var results: LiveState
        var request: FetchRequest
        var lastDelivery: ContinuousClock.Instant?
        /// Aggregates that went out of range, for the next takes to throw.
        var aggregateOverflows: [StoreError] = []

        init(results: LiveState, request: FetchRequest) {
            self.results = results
            self.request = request
            aggregateOverflows = results.aggregates?.overflows ?? []
        }
    }

    /// Fetches the results and starts collecting changes.
    ///
    /// - Throws: ``StoreError`` when the request does not fit the store.
    public init(queue: StoreQueue, request: FetchRequest, policy: DeliveryPolicy = .coalescing, adapter: BatchAdapter = BatchAdapter()) throws {
        self.queue = queue
        self.policy = policy
        self.adapter = adapter
        // Fetch and register under one lock, so that no commit falls between them.
        let (query, scan, aggregates, position, inbox) = try queue.withStore { store throws(StoreError)
            -> (BoundQuery, Handover<OrderedScan>, AggregateTracker?, Int64, ChangeInbox) in
            let query = try store.bind(request)
            let inbox = ChangeInbox(entity: query.entity)
            // At the backend's cursor: the inbox then hears exactly the commits after these rows.
            let (scan, aggregates, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
                (Handover(try store.orderedScan(query)), try store.fetchAggregates(query), store.storage.changeLogPosition)
            }
            store.addObserver(inbox)
            inbox.settle(through: position)
            return (query, scan, aggregates, position, inbox)
        }
        self.inbox = inbox
        consumer = Locked(Consumer(results: LiveState(query: query, scan: scan.value, aggregates: aggregates, position: position,
                                                      lock: engineLock.frozenReads, loader: Self.loader(queue: queue, inbox: inbox),
                                                      scanner: Self.scanner(queue: queue, inbox: inbox)),
                                   request: request))
    }

    /// Reads every row of a query's results as the consumer holds them, in one scan at the
    /// store's cursor, with the rows the steps the consumer has not applied touched taken
    /// back to before them. A failed read gives no rows and is reported at the consumer's
    /// next take.
    private static func scanner(queue: StoreQueue, inbox: ChangeInbox) -> LiveState.Scanner {
        { query in
            reading(queue, reportingTo: inbox) { store throws(StoreError) in
                let fetched = try store.readingAtCursor { () throws(StoreError) in try store.fetchCommittedRows(query) }
                var rows = Dictionary(fetched.lazy.map { (query.key(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
                // A row the steps changed, out of the predicate or not, is the one before them.
                for (key, row) in inbox.rowsBeforeAll(attributeCount: query.entity.attributes.count) { rows[key] = row }
                return rows
            }
        }
    }

    /// Reads rows under the queue's lock; a failed read gives none and is reported at the
    /// consumer's next take.
    private static func reading(_ queue: StoreQueue, reportingTo inbox: ChangeInbox,
                                _ body: (Store) throws(StoreError) -> [Value: [Value]]) -> [Value: [Value]] {
        do {
            return try queue.withStore(body)
        } catch {
            inbox.storeDidFailToDeliver(error, mustResync: false)
            return [:]
        }
    }

    /// Reads whole rows as the consumer holds them: the store's, at its cursor, taken back
    /// through the steps the consumer has not applied. Under the queue's lock, so that no
    /// commit falls between the read and the steps. A failed read gives no rows (the object
    /// is then nil) and is reported at the consumer's next take.
    private static func loader(queue: StoreQueue, inbox: ChangeInbox) -> LiveState.Loader {
        { entity in
            { keys in
                reading(queue, reportingTo: inbox) { store throws(StoreError) in
                    var rows = try store.readingAtCursor { () throws(StoreError) in try store.fetchCommittedRows(entity, keys: keys) }
                    for (key, before) in inbox.rowsBefore(keys, attributeCount: entity.attributes.count) { rows[key] = before }
                    return rows
                }
            }
        }
    }

    /// Fetches the results, takes the token's window, and makes what changed since the
    /// token was saved — by this process or any other — the first change the consumer
    /// takes: one group from the rows the token saved to the rows shown now, or a resync
    /// (``ResyncReason/logPruned``) when the change log no longer reaches back to the
    /// token (every row that stays is then updated, and a deleted row's values but its
    /// key are null). See ``ResultsController/performFetch(resumingFrom:)``.
    ///
    /// - Throws: ``StoreError/Code/invalidResumeToken`` for a token saved by another store
    ///   or for another request; ``StoreError`` when the request does not fit the store.
    public init(queue: StoreQueue, request: FetchRequest, resumingFrom token: ResumeToken,
                policy: DeliveryPolicy = .coalescing, adapter: BatchAdapter = BatchAdapter()) throws(StoreError) {
        guard token.request == ResumeToken.fingerprint(of: request) else {
            throw .invalidResumeToken("the resume token was saved for another request (\(token.request)); these live results' is \(ResumeToken.fingerprint(of: request))")
        }
        self.queue = queue
        self.policy = policy
        self.adapter = adapter
        let (query, rows, changes, touched, position, inbox) = try queue.withStore { store throws(StoreError)
            -> (BoundQuery, [[Value]], CommittedChanges, [Value: TouchedRow], Int64, ChangeInbox) in
            let identifier = try store.storage.storeIdentifier()
            guard token.store == identifier else {
                throw .invalidResumeToken("the resume token was saved by another store (\(token.store)); this one is \(identifier)")
            }
            let query = try store.bind(request)
            let (rows, changes, touched, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
                let changes = try store.changes(observedBy: query.entity, since: token.position)
                return (try store.fetchCommittedRows(query), changes, try store.touchedRows(of: query.entity, in: changes), store.storage.changeLogPosition)
            }
            let inbox = ChangeInbox(entity: query.entity)
            store.addObserver(inbox)
            inbox.settle(through: position)
            return (query, rows, changes, touched, position, inbox)
        }
        self.inbox = inbox
        let results = LiveState(query: query, rows: rows, position: position, lock: engineLock.frozenReads,
                                loader: Self.loader(queue: queue, inbox: inbox), scanner: Self.scanner(queue: queue, inbox: inbox))
        results.resume(from: token, resync: changes.resync, touched: touched)
        consumer = Locked(Consumer(results: results, request: request))
    }

    /// A durable token of what the consumer saw as of the last change it took: the
    /// results' change-log position, the request, the window and the keys it shows
    /// (``ResumeToken``), for ``init(queue:request:resumingFrom:policy:adapter:)``.
    ///
    /// - Throws: ``StoreError`` when the store cannot say its identifier.
    public func resumeToken() throws -> ResumeToken {
        let identifier = try queue.withStore { store throws(StoreError) in try store.storage.storeIdentifier() }
        return withConsumer { consumer in
            // With nothing waiting, the consumer holds every delivery so far, whichever
            // touched the entity or not (call it from the consumer, between changes).
            if let through = inbox.positionWhenTaken { consumer.results.advance(to: through) }
            let results = consumer.results
            return ResumeToken(store: identifier, request: ResumeToken.fingerprint(of: results.query.request), position: results.position,
                               window: results.window?.window, firstRank: results.window?.ranks.lowerBound, sections: results.snapshot)
        }
    }

    deinit {
        inbox.close()
    }

    /// Stops the results: waiting consumers get nil and no more changes are collected.
    public func close() {
        inbox.close()
    }

    // MARK: Reading what the consumer last took

    /// The request whose results these are.
    public var request: FetchRequest { withConsumer { $0.request } }

    /// The results (the window's rows, with a window) as of the last change taken.
    public var snapshot: ResultsSnapshot { withConsumer { ResultsSnapshot(storage: $0.results.shown) } }

    /// The window the consumer sees, as of the last change taken, with its anchor as it
    /// stands; nil: every row. See ``setWindow(_:)``.
    public var window: ResultsWindow? { withConsumer { $0.results.window?.window } }

    /// The whole results' counts as of the last change taken, whatever the window shows.
    public var counts: ResultsCounts {
        withConsumer { ResultsCounts(total: $0.results.engine.count, sections: $0.results.engine.sectionInfos()) }
    }

    /// The aggregates over the whole results as of the last change taken
    /// (``FetchRequest/aggregates``); nil for a request without aggregates.
    public var aggregates: AggregateValues? {
        withConsumer { $0.results.aggregates?.totalValues }
    }

    /// The aggregates of the section of the whole results with this name, as of the last
    /// change taken; nil when there is no such section or the request has no aggregates.
    public func aggregates(forSectionName name: Value) -> AggregateValues? {
        withConsumer { $0.results.aggregates?.values(ofSection: name) }
    }

    /// All objects (in the window, with a window) as of the last change taken, in order.
    public var fetchedObjects: [Object] {
        withConsumer { consumer in
            let results = consumer.results
            if results.window != nil {
                return results.snapshot.flatMap(\.items).compactMap { results.engine.row(forKey: $0) }.map { Object(entity: results.query.entity, values: $0) }
            }
            return results.engine.rows.map { Object(entity: results.query.entity, values: $0) }
        }
    }

    /// The object at an index path (window-relative, with a window), as of the last change
    /// taken, or nil when there is none.
    public func object(at indexPath: IndexPath) -> Object? {
        withConsumer { consumer in
            let engine = consumer.results.engine
            if consumer.results.window != nil {
                let shown = consumer.results.snapshot
                guard shown.indices.contains(indexPath.section), shown[indexPath.section].items.indices.contains(indexPath.item),
                      let values = engine.row(forKey: shown[indexPath.section].items[indexPath.item]) else { return nil }
                return Object(entity: engine.query.entity, values: values)
            }
            guard indexPath.section >= 0, indexPath.section < engine.numberOfSections else { return nil }
            let range = engine.sectionRange(indexPath.section)
            guard indexPath.item >= 0, indexPath.item < range.count,
                  let values = engine.row(atRank: range.lowerBound + indexPath.item) else { return nil }
            return Object(entity: engine.query.entity, values: values)
        }
    }

    /// The object with this key as of the last change taken; for a key the results no
    /// longer hold, its key with null values (the convention of a resync's deleted rows).
    func shownObject(forKey key: Value) -> Object {
        withConsumer { consumer in
            let engine = consumer.results.engine
            let entity = engine.query.entity
            if let values = engine.row(forKey: key) { return Object(entity: entity, values: values) }
            var values = [Value](repeating: .null, count: entity.attributes.count)
            values[entity.keyIndex] = key
            return Object(entity: entity, values: values)
        }
    }

    /// The index path of the object with this key (window-relative, with a window), as
    /// of the last change taken.
    public func indexPath(for key: Value) -> IndexPath? {
        withConsumer { consumer in
            guard consumer.results.window != nil else { return consumer.results.engine.indexPath(for: key) }
            for (section, rows) in consumer.results.snapshot.enumerated() {
                if let item = rows.items.firstIndex(of: key) { return IndexPath(item: item, section: section) }
            }
            return nil
        }
    }

    /// Whether commits are waiting to be taken.
    public var hasPendingChanges: Bool { inbox.hasPending || withConsumer { $0.results.hasResumedChange } }

    // MARK: Taking changes

    /// The changes, one per turn of the consumer; ends when the results are closed or the
    /// consuming task is cancelled, and throws when reading a change failed (see
    /// ``nextChange()``).
    public var changes: Changes { Changes(results: self) }

    /// Waits for the next change and returns it; nil when the results are closed or the
    /// task is cancelled. With the coalescing policy it covers every commit pending.
    ///
    /// - Throws: ``StoreError`` when reading what was committed failed. Nothing is lost:
    ///   the results stay as the consumer last saw them, and the commits are read again at
    ///   the next delivery; call again to wait for it.
    public func nextChange() async throws -> ResultsChange? {
        try await waitForChange()
    }

    /// ``nextChange()``, for Roster's own code, which throws ``StoreError`` alone (the
    /// public API throws `any Error`: see ``StoreError``). The change is taken (applied to
    /// the results these live results hold) in `isolation`: nil, off every actor.
    func waitForChange(isolation: isolated (any Actor)? = nil) async throws(StoreError) -> ResultsChange? {
        while !Task.isCancelled {
            if let wait = remainingInterval() {
                try? await Task.sleep(for: wait)
                continue
            }
            if let change = try takePendingChange() { return change }
            if inbox.isClosed { return nil }
            await inbox.waitForSteps()
        }
        return nil
    }

    /// The change that the commits pending right now make, without waiting; nil when
    /// they do not change the results (or nothing is pending).
    ///
    /// - Throws: ``StoreError`` when a delivery failed since the last call, or a re-fetch
    ///   that the change needs fails. Nothing pending is dropped: the next call (or the
    ///   next delivery) takes it again.
    public func takeChange() throws -> ResultsChange? {
        try takePendingChange()
    }

    /// ``takeChange()``, for Roster's own code, which throws ``StoreError`` alone.
    func takePendingChange() throws(StoreError) -> ResultsChange? {
        // What a resume found comes first.
        let resumed = withConsumer { consumer -> ResultsChange? in
            guard let change = consumer.results.takeResumedChange() else { return nil }
            consumer.lastDelivery = .now
            return makeChange(change, results: consumer.results, commits: 0)
        }
        if let resumed { return resumed }
        if let failure = inbox.takeFailure() { throw failure }
        if let overflow = withConsumer({ $0.aggregateOverflows.isEmpty ? nil : $0.aggregateOverflows.removeFirst() }) { throw overflow }
        while true {
            let (steps, commits) = inbox.take(all: policy.coalesces)
            guard !steps.isEmpty else { return nil }
            let resolved: [ResultsStep]
            do {
                resolved = try resolveResyncs(in: steps)
            } catch {
                inbox.putBack(steps, commits: commits)
                throw error
            }
            let resync = steps.lazy.compactMap { if case let .resync(reason) = $0 { reason } else { nil } }.first
            let change = withConsumer { consumer -> ResultsChange? in
                let results = consumer.results
                let applied = results.apply(resolved, resyncing: resync != nil, settle: { inbox.settle(through: results.position) })
                guard var change = applied else { return nil }
                // Heard at the next take, after this change (which holds their null values).
                consumer.aggregateOverflows += change.aggregateOverflows
                change.resync = resync
                if change.group.isEmpty && change.counts == nil && change.aggregates == nil && change.resync == nil { return nil }
                consumer.lastDelivery = .now
                return makeChange(change, results: consumer.results, commits: commits)
            }
            if let change { return change }
            // Those commits did not touch these results; look at what came meanwhile.
            if !inbox.hasPending { return nil }
        }
    }

    /// Hands each change, as NSFetchedResultsController-style callbacks, to `delegate`,
    /// on the caller's actor, until the results are closed or the task is cancelled.
    ///
    /// ```swift
    /// Task { @MainActor in await posts.deliver(to: tableController) }
    /// ```
    public func deliver(to delegate: some ResultsControllerDelegate<LiveResults>, isolation: isolated (any Actor)? = #isolation) async {
        while !Task.isCancelled {
            do {
                guard let change = try await waitForChange() else { return }
                change.replay(to: delegate, from: self)
            } catch {
                delegate.controller(self, didFailWith: error)
            }
        }
    }

    // MARK: Changing the query

    /// Replaces the request (same entity); the difference arrives as a change.
    ///
    /// - Throws: ``StoreError`` when the request does not fit; nothing changes then.
    public func setRequest(_ request: FetchRequest) throws {
        let current = self.request
        guard request.entityName == current.entityName else {
            throw StoreError.schema(SchemaError("live results cannot switch from entity '\(current.entityName)' to '\(request.entityName)'"))
        }
        try queue.withStore { store throws(StoreError) in
            let query = try store.bind(request)
            let (rows, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
                (try store.fetchCommittedRows(query), store.storage.changeLogPosition)
            }
            inbox.post(.replace(query, rows, through: position))
            inbox.bind(to: query.entity)
            store.observerDidChangeEntities(inbox)
        }
        withConsumer { $0.request = request }
    }

    /// Shows a window over the results instead of all of them, moves or resizes it, or
    /// (with nil) shows them all again. The difference arrives as the next change, and
    /// from then on every change is the window's (``ResultsWindow``): its rows entering
    /// and leaving are inserts and deletes, index paths are window-relative, and
    /// ``snapshot``, ``fetchedObjects``, ``object(at:)`` and ``indexPath(for:)`` show the
    /// window. The whole results' counts are ``counts``; a change that changes them
    /// carries them (``ResultsChange/counts``), alone when the window did not change.
    ///
    /// - Throws: ``StoreError/Code/invalidWindow`` for a negative count, or an anchor
    ///   that is not in the results as of the last change taken; nothing changes then. (An
    ///   anchor that pending commits delete passes to its nearest neighbour.)
    public func setWindow(_ window: ResultsWindow?) throws {
        try window?.validate()
        let tracker = try withConsumer { consumer throws(StoreError) -> WindowTracker? in
            guard let window else { return nil }
            try WindowTracker.check(window, in: consumer.results.engine, entity: consumer.results.query.entity.name)
            var tracker = WindowTracker(window)
            _ = tracker.place(in: consumer.results.engine)
            return tracker
        }
        inbox.post(.window(tracker))
    }

    /// Writes a change the user already made on screen without hearing it back (see
    /// ``UserEdit``): the change that includes this write starts from the list as the
    /// user left it; everything else in it is reported as usual.
    ///
    /// `body` is `@Sendable`, as with ``StoreQueue/write(_:)``, so that the store cannot leave it.
    ///
    /// - Throws: what `body` throws (the edits are then forgotten), or ``StoreError``.
    public func performUserDrivenChange(_ edits: [UserEdit], write body: @Sendable (Store) throws -> Void) throws {
        try queue.read { store in
            // Under the queue's lock: the edits reach the inbox just before the commit.
            do {
                try store.write {
                    try body(store)
                    inbox.post(.userEdits(edits))
                }
            } catch {
                inbox.retract(.userEdits(edits))
                throw error
            }
        }
    }

    // MARK: Helpers

    /// Runs `body` with the consumer's state, holding its lock and the engine's.
    private func withConsumer<Result, Failure: Error>(_ body: (inout Consumer) throws(Failure) -> Result) throws(Failure) -> Result {
        try consumer.withLock { consumer throws(Failure) in
            try engineLock.withLock { () throws(Failure) in try body(&consumer) }
        }
    }

    private func remainingInterval() -> Duration? {
        guard policy.minimumInterval > .zero else { return nil }
        let last = withConsumer { $0.lastDelivery }
        guard let last else { return nil }
        let elapsed = ContinuousClock.now - last
        return elapsed < policy.minimumInterval ? policy.minimumInterval - elapsed : nil
    }

    private func resolveResyncs(in steps: [ResultsStep]) throws(StoreError) -> [ResultsStep] {
        guard steps.contains(where: { if case .resync = $0 { true } else { false } }) else { return steps }
        var query = withConsumer { $0.results.query }
        var resolved: [ResultsStep] = []
        for step in steps {
            switch step {
            case let .replace(newQuery, _, _):
                query = newQuery
                resolved.append(step)
            case .resync:
                let current = query
                let (rows, position) = try queue.withStore { store throws(StoreError) in
                    try store.readingAtCursor { () throws(StoreError) in (try store.fetchCommittedRows(current), store.storage.changeLogPosition) }
                }
                resolved.append(.replace(current, rows, through: position))
            default:
                resolved.append(step)
            }
        }
        return resolved
    }

    private func makeChange(_ change: QueryChange, results: LiveState, commits: Int) -> ResultsChange {
        let entity = results.query.entity
        var objects: [Value: Object] = [:]
        // The rows in one read: a re-fetch's change may insert every row.
        let keys = change.group.objectChanges.lazy.filter { $0.type != .delete }.map(\.item)
        let read = keys.isEmpty ? [:] : results.engine.rows(forKeys: Array(keys))
        for object in change.group.objectChanges where object.type != .delete {
            if let row = read[object.item] { objects[object.item] = Object(entity: entity, values: row) }
        }
        let (reloaded, reconfigured) = ResultsSnapshot.updatedItems(of: change.group, by: adapter)
        return ResultsChange(
            group: change.group,
            batch: adapter.batch(for: change.group),
            previousSnapshot: ResultsSnapshot(storage: results.previousShown),
            snapshot: ResultsSnapshot(storage: results.shown, reloadedItemIdentifiers: reloaded, reconfiguredItemIdentifiers: reconfigured),
            commitCount: commits,
            objects: objects,
            deletedObjects: change.removedRows.mapValues { Object(entity: entity, values: $0) },
            resync: change.resync,
            counts: change.counts,
            aggregates: change.aggregates)
    }

    /// A value made inside the queue's lock and handed to the caller, which alone uses it
    /// from then on: what lets a scan's columns (classes) leave ``StoreQueue/withStore(_:)``.
    private struct Handover<Wrapped>: @unchecked Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }

    /// The changes of a ``LiveResults``, as an async sequence.
    public struct Changes: AsyncSequence, Sendable {
        let results: LiveResults

        public func makeAsyncIterator() -> Iterator { Iterator(results: results) }

        /// Takes the next change each time it is asked.
        public struct Iterator: AsyncIteratorProtocol {
            let results: LiveResults
            /// The next change; nil at the end.
            ///
            /// - Throws: ``StoreError`` as ``LiveResults/nextChange()`` does; the sequence
            ///   then ends for this loop, and a new loop over ``LiveResults/changes`` goes on
            ///   from the same results.
            public mutating func next() async throws -> ResultsChange? { try await results.nextChange() }
        }
    }
}
