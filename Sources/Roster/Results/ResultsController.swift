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
    public weak var delegate: (any ResultsControllerDelegate<ResultsController>)?
    /// The last group of changes reported, as events; nil before the first change.
    public internal(set) var lastChange: ChangeGroup<Value, Value>?
    /// Whether ``performFetch()`` has run.
    public var hasFetched: Bool { engine != nil || coldWindow != nil }
    /// Set while ``performFetch()`` runs: changes delivered first are in the new results.
    private var isFetching = false
    /// The window over the results that the delegate and the accessors show, with its
    /// anchor as it stands now; nil (the default) shows them all. See ``setWindow(_:)``.
    public var window: ResultsWindow? { windowTracker?.window }
    /// Where the window stands and what the delegate last saw in it.
    var windowTracker: WindowTracker?
    /// The whole results' counts as the delegate last heard them, for a windowed controller.
    private var countsSeen: ResultsCounts?
    /// The change-log position of the results the delegate last saw (``resumeToken()``).
    var resultsPosition: Int64 = 0
    /// The request's aggregates, kept with the results; nil without aggregates.
    var aggregateTracker: AggregateTracker?

    /// The results; nil until ``performFetch()`` loads them, and while a window opened
    /// cold holds only its rows (``coldWindow``).
    var engine: (any ResultsEngine)?
    /// A window opened cold: its rows, until the whole results are loaded.
    var coldWindow: ColdWindow?
    /// The silent rows of the delivery being applied (``FetchRequest/displayedAttributes``):
    /// kept out of the engine, but named should the engine move one.
    private var silentRows: [Value: TouchedRow] = [:]
    /// The request, bound to the entity as the store defines it.
    var query: BoundQuery
    /// Called at the end of each delivery that touched the entity, after the delegate's
    /// callbacks, with the rows it touched: for a consumer that keeps copies of the objects
    /// shown (``ColdWindowFeed``), whose values may have changed without a callback (a
    /// change to attributes the request does not display reports none).
    var didDeliver: ((_ touched: [Value: TouchedRow]) -> Void)?
    /// Edits the user already made on screen, for the next change.
    var pendingUserEdits: [UserEdit] = []
    /// Set when a read failed during a delivery: why the next delivery must re-fetch, and
    /// the results the delegate last saw, which the resync group starts from.
    var pendingResync: (reason: ResyncReason, seen: [ListSection<Value, Value>])?
    /// The whole rows of a fetch made while the entity's tracking was still to start (the
    /// query was registered inside a transaction or a delivery), by key: what ``reread(_:)``
    /// compares the results with once tracking starts, then dropped. Nil otherwise.
    var rowsBeforeTracking: [Value: [Value]]?
    /// The path every commit takes through the incremental engine, for the benchmarks and
    /// tests that compare them; nil (the default) takes the one estimated cheaper for each
    /// commit (``CommitPath/cheaper(touched:results:)``). Every path reports the same
    /// change.
    package var forcedCommitPath: CommitPath?

    /// Creates a controller; call ``performFetch()`` to load the results and start tracking.
    ///
    /// - Parameters:
    ///   - store: the store whose committed changes the controller reports.
    ///   - request: what to fetch: the entity, predicate, sort keys and section attribute.
    ///   - engine: how to keep the results current; the default is incremental.
    /// - Throws: ``StoreError`` when the entity, an attribute or the predicate does not fit.
    public init(store: Store, request: FetchRequest, engine: ResultsEngineKind = .incremental) throws {
        self.store = store
        self.request = request
        self.engineKind = engine
        self.query = try store.bind(request)
    }

    deinit {
        store.removeObserver(self)
    }

    /// A new engine holding the query's committed results, read straight from the store.
    func fetchEngine(query: BoundQuery) throws(StoreError) -> any ResultsEngine {
        switch engineKind {
        case .incremental:
            return IncrementalResults(query: query, scan: try store.orderedScan(query), loader: loader(entity: query.entity))
        case .refetchAndDiff:
            return makeEngine(query: query, rows: try store.fetchCommittedRows(query))
        }
    }

    /// Loads whole rows on demand. A failed load gives no rows (the caller then has none
    /// to show, never a row with nulls) and tells the delegate why.
    private func loader(entity: Entity) -> ([Value]) -> [Value: [Value]] {
        { [weak self] keys in
            guard let self else { return [:] }
            do throws(StoreError) {
                return try store.fetchCommittedRows(entity, keys: keys)
            } catch {
                delegate?.controller(self, didFailWith: error)
                return [:]
            }
        }
    }

    private func makeEngine(query: BoundQuery, rows: [[Value]]) -> any ResultsEngine {
        switch engineKind {
        case .incremental:
            // Objects are loaded on demand; a commit's touched rows come with it.
            return IncrementalResults(query: query, rows: rows, loader: loader(entity: query.entity))
        case .refetchAndDiff:
            return RefetchingResults(query: query, rows: rows, refetch: { [weak store] query throws(StoreError) in
                guard let store else { return [] }
                return try store.fetchCommittedRows(query)
            })
        }
    }

    /// Loads the results and starts tracking changes. Calls no delegate method.
    ///
    /// The results show the entity's attributes as the store defines them when this runs;
    /// attributes added later appear after the next `performFetch()`.
    ///
    /// With a window set before the first fetch, only the window's rows are read: the
    /// first window is there at once, at any size, and stays cold through commits (each
    /// places it again from its edges, in O(log *n* + window), and so does a move); the
    /// whole results load at ``loadResults()`` or ``setWindow(_:)`` to no window (see
    /// ``counts``). A
    /// request with aggregates reads them whole at the fetch, in one unsorted pass over the
    /// objects that match, window or not.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the query fails;
    ///   ``StoreError/Code/invalidWindow`` when the window's anchor is not in the results.
    public func performFetch() throws {
        // A window opened cold loads the whole results.
        if coldWindow != nil {
            try loadResults()
            return
        }
        isFetching = true
        defer { isFetching = false }
        // Bound again: the entity may have gained attributes since the controller was made.
        let query = try store.bind(request)
        if !hasFetched, engineKind == .incremental, let window = windowTracker?.window {
            let (opened, aggregates, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
                (try readColdWindow(window, query: query), try store.fetchAggregates(query), store.storage.changeLogPosition)
            }
            guard let opened else {
                guard case let .anchored(key, _, _) = window else { return }
                throw WindowTracker.anchorMissing(key, entity: query.entity.name)
            }
            store.addObserver(self)
            self.query = query
            coldWindow = opened
            windowTracker = opened.tracker
            countsSeen = nil
            resultsPosition = position
            startAggregates(aggregates)
            return
        }
        let (fetched, aggregates, position, heldRows) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
            (try fetchEngine(query: query), try store.fetchAggregates(query), store.storage.changeLogPosition, try rowsIfTrackingIsPending(query))
        }
        rowsBeforeTracking = heldRows
        if var tracker = windowTracker {
            // Checked at the first fetch only: a window placed before keeps its anchor's
            // nearest neighbour when the anchor left meanwhile.
            if engine == nil { try WindowTracker.check(tracker.window, in: fetched, entity: query.entity.name) }
            tracker.shown = tracker.place(in: fetched)
            windowTracker = tracker
            countsSeen = Self.counts(of: fetched)
        }
        if engine == nil { store.addObserver(self) }
        self.query = query
        engine = fetched
        resultsPosition = position
        startAggregates(aggregates)
    }

    /// A durable token of what the delegate last saw: the results' change-log position,
    /// the request, the window and the keys it shows (``ResumeToken``). Give it to
    /// ``performFetch(resumingFrom:)`` on the next launch, or in another process.
    ///
    /// - Throws: ``StoreError`` before ``performFetch()``, or when the store cannot say
    ///   its identifier (a file opened read-only that no writer ever opened).
    public func resumeToken() throws -> ResumeToken {
        guard hasFetched else { throw StoreError.invalidResumeToken("a live query saves a resume token once performFetch() has loaded its results") }
        let sections = pendingResync?.seen ?? shownNow
        let isLogged = !query.entity.observedNames.contains(where: store.pendingTracking.contains)
        // A window opened cold holds its rows as of `resultsPosition`: the token keeps them,
        // with the digest of the log's entry there, which a resume checks.
        var shownRows: ResumeToken.ShownRows?
        if let coldWindow, pendingResync == nil, isLogged, let logEntry = try store.storage.changeLogEntryDigest(at: resultsPosition) {
            shownRows = ResumeToken.ShownRows(entity: query.entity, keys: sections.flatMap(\.items), rows: coldWindow.rows, logEntry: logEntry)
        }
        return ResumeToken(store: try store.storage.storeIdentifier(), request: ResumeToken.fingerprint(of: request), position: resultsPosition,
                           window: window, firstRank: coldWindow == nil ? windowTracker?.ranks.lowerBound : coldWindow?.firstRank,
                           sections: sections, isPlaced: pendingResync == nil, isLogged: isLogged, shownRows: shownRows)
    }

    /// What the delegate last saw: while a failed delivery waits for its resync, the
    /// results it left the delegate with; otherwise the window's rows, or the whole results.
    var shownNow: [ListSection<Value, Value>] {
        pendingResync?.seen ?? windowTracker?.shown ?? engine?.snapshot ?? []
    }

    /// Loads the results as ``performFetch()`` does, takes the token's window, and tells
    /// the delegate what changed since the token was saved — by this process or any other
    /// — as one change group from the rows the token saved to the rows shown now: rows
    /// that entered or left the window, moved, or changed values. When the change log no
    /// longer reaches back to the token — or never did: a token saved inside the transaction
    /// that first watched its entity, whose writes until then went unlogged — the group is a
    /// resync (``ResyncReason/logPruned``):
    /// every row that stays is reported updated, and a deleted row's values other than its
    /// key are null (the log no longer holds them).
    ///
    /// - Throws: ``StoreError/Code/invalidResumeToken`` for a token saved by another store
    ///   or for another request, ``StoreError`` when the fetch fails; nothing changes then.
    public func performFetch(resumingFrom token: ResumeToken) throws {
        guard token.request == ResumeToken.fingerprint(of: request) else {
            throw StoreError.invalidResumeToken("the resume token was saved for another request (\(token.request)); this live query's is \(ResumeToken.fingerprint(of: request))")
        }
        let identifier = try store.storage.storeIdentifier()
        guard token.store == identifier else {
            throw StoreError.invalidResumeToken("the resume token was saved by another store (\(token.store)); this one is \(identifier)")
        }
        isFetching = true
        defer { isFetching = false }
        let query = try store.bind(request)
        if !hasFetched, engineKind == .incremental, let window = token.window {
            // The window alone, when its anchor is still there; else the whole results,
            // whose order finds the anchor's nearest neighbour. The token's rows are taken
            // only where this read checks that the change log is whole: a store that
            // tracked the entities before checks their triggers again (another program
            // may have dropped them since), none may wait for its tracking to start.
            let observed = query.entity.observedNames
            let checksTracking = token.shownRows != nil && observed.allSatisfy(store.storage.isTracking)
            let mayTakeRows = token.shownRows != nil && !observed.contains(where: store.pendingTracking.contains)
            let (opened, changes, touched, departed, aggregates, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
                // The rows the window showed, and those whose commits may have placed them
                // differently: a row that only changed what places no row kept its place
                // outside the window, and is not read (RowReadScope).
                let savedKeys = token.sections.flatMap(\.items)
                let scope = RowReadScope(placingAttributes: query.placingAttributes, keys: token.shownKeys ?? Set(savedKeys))
                var changes = try Self.changes(since: token, observedBy: query.entity, in: store, readingRows: scope)
                // A token that keeps its rows keeps the digest of the log's entry at its
                // position: another entry there is another history (a file put back from an
                // older copy numbers its entries again), which cannot tell what changed since
                // the token — a resync, as for a log pruned past it (whose rows it holds
                // none of: they are another history's). No entry (pruned): the rows are read.
                var logIsWhole = false
                if let shownRows = token.shownRows, changes.resync == nil, let digest = try store.storage.changeLogEntryDigest(at: token.position) {
                    logIsWhole = digest == shownRows.logEntry
                    if !logIsWhole {
                        changes.resync = .logPruned
                        changes.rowsByEntity = [:]
                    }
                }
                let touched = try store.touchedRows(of: query.entity, in: changes)
                // The rows the token's window showed that no commit since touched, as they
                // were then and are now: as the token holds them when the log says every
                // change since (it names each of them it touched), else read.
                let saved = mayTakeRows && logIsWhole && !changes.mustReread ? token.shownRows(laidOutAs: query.entity) : nil
                if saved != nil, checksTracking { logIsWhole = try store.storage.findTracking(of: [query.entity]).isEmpty }
                // (By place in `savedKeys`; a touched row's is the log's, taken first.)
                let untouched: (Int) -> [Value]?
                if let saved, logIsWhole {
                    untouched = { saved[$0] }
                } else {
                    let read = try store.fetchCommittedRows(query.entity, keys: savedKeys.filter { touched[$0] == nil })
                    untouched = { read[savedKeys[$0]] }
                }
                let opened = try resumedColdWindow(window, token: token, keys: savedKeys, untouched: untouched, changes: changes, touched: touched)
                // Rows that left the window untouched (others slid them out): none when it
                // shows the same keys.
                var departed: [Value: [Value]] = [:]
                if opened?.keys != savedKeys {
                    let kept = opened.map { Set($0.rows.keys) } ?? []
                    for (index, key) in savedKeys.enumerated() where !kept.contains(key) && touched[key] == nil { departed[key] = untouched(index) }
                }
                return (opened, changes, touched, departed, try store.fetchAggregates(query), store.storage.changeLogPosition)
            }
            if let opened {
                store.addObserver(self)
                self.query = query
                coldWindow = opened
                windowTracker = opened.tracker
                countsSeen = nil
                startAggregates(aggregates)
                reportResumed(from: token, to: opened.tracker.shown, changes: changes, touched: touched, departed: departed, position: position, in: nil)
                return
            }
        }
        let (fetched, changes, touched, aggregates, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
            let changes = try Self.changes(since: token, observedBy: query.entity, in: store)
            return (try fetchEngine(query: query), changes, try store.touchedRows(of: query.entity, in: changes), try store.fetchAggregates(query),
                    store.storage.changeLogPosition)
        }
        if !hasFetched { store.addObserver(self) }
        self.query = query
        engine = fetched
        coldWindow = nil
        pendingResync = nil
        windowTracker = token.window.map { WindowTracker($0, placedKeys: token.sections.flatMap(\.items), firstRank: token.firstRank ?? 0) }
        let now = placeWindow(in: fetched, seen: token.sections) ?? fetched.snapshot
        countsSeen = windowTracker == nil ? nil : Self.counts(of: fetched)
        startAggregates(aggregates)
        reportResumed(from: token, to: now, changes: changes, touched: touched, departed: [:], position: position, in: fetched)
    }

    /// What the log says changed since a token: a resync (``ResyncReason/logPruned``)
    /// whatever it says when the token was saved before the log recorded its entities.
    private static func changes(since token: ResumeToken, observedBy entity: Entity, in store: Store,
                                readingRows scope: RowReadScope? = nil) throws(StoreError) -> CommittedChanges {
        var changes = try store.changes(observedBy: entity, since: token.position, readingRows: scope)
        if !token.isLogged { changes.resync = .logPruned }
        return changes
    }

    /// Tells the delegate the change from the rows a token saved to `now`: updates from the
    /// log's rows since the token (every staying row, in a resync), the rows that left as
    /// the log or `departed` has them (a deleted row's values but its key are null when
    /// the log no longer holds them). The results' position is `position` once the
    /// delegate heard it, the token's until then.
    private func reportResumed(from token: ResumeToken, to now: [ListSection<Value, Value>], changes: CommittedChanges, touched: [Value: TouchedRow],
                               departed: [Value: [Value]], position: Int64, in engine: (any ResultsEngine)?) {
        let (change, start) = QueryChange.sinceSaved(token.sections, to: now, touched: touched, relevance: query.attributeRelevance, resync: changes.resync, entity: query.entity,
                                                     rowNow: { departed[$0] ?? self.row(forKey: $0, in: engine) })
        windowTracker?.shown = token.sections
        resultsPosition = report(change, in: engine, from: start, touched: touched, shown: windowTracker == nil ? nil : now) ? position : token.position
    }

    /// Shows a window over the results instead of all of them, moves or resizes it, or
    /// (with nil) shows them all again; the delegate hears the difference, as inserts and
    /// deletes of the rows that enter and leave what it shows.
    ///
    /// From then on the delegate hears changes of the window only (``ResultsWindow``), and
    /// ``sections``, ``fetchedObjects``, ``numberOfObjects``, ``numberOfSections``,
    /// ``numberOfObjects(inSection:)``, ``object(at:)``, ``indexPath(for:)`` and
    /// ``snapshot`` show the window; ``counts`` gives the whole results' counts. Before
    /// ``performFetch()`` the window is kept for it (an anchor is then checked there).
    ///
    /// - Throws: ``StoreError/Code/invalidWindow`` for a negative count or an anchor key
    ///   that is not in the results; nothing changes then.
    /// - Complexity: O(log *n* + the windows' sizes).
    public func setWindow(_ window: ResultsWindow?) throws {
        try window?.validate()
        // A window opened cold stays cold when it moves; else (no window) the whole results.
        if coldWindow != nil {
            if try moveColdWindow(to: window) { return }
            try loadResults()
        }
        guard let engine else {
            windowTracker = window.map { WindowTracker($0) }
            return
        }
        if let window { try WindowTracker.check(window, in: engine, entity: query.entity.name) }
        let seen = pendingResync?.seen ?? shownNow
        windowTracker = window.map { WindowTracker($0) }
        countsSeen = window == nil ? nil : Self.counts(of: engine)
        if pendingResync != nil {
            // The next delivery re-fetches and reports the change from `seen` to the window;
            // placed once here, so that an anchor gone by then has neighbours to pass to.
            _ = windowTracker?.place(in: engine)
            windowTracker?.shown = seen
            return
        }
        let now = placeWindow(in: engine, seen: seen) ?? engine.snapshot
        // No stored value changed: rows only enter and leave what the delegate sees.
        let (change, start) = QueryChange.diff(from: seen, to: now, isUpdated: { _ in false },
                                               removedRow: { engine.row(forKey: $0) ?? engine.knownRow(forKey: $0) })
        report(change, in: engine, from: start, shown: windowTracker == nil ? nil : now)
    }

    /// The whole results' counts, whatever the window shows; nil before ``performFetch()``,
    /// and while a window opened cold has not loaded the whole results (``loadResults()``,
    /// or ``setWindow(_:)`` to no window, does; commits and moves do not; the delegate hears
    /// ``ResultsControllerDelegate/controller(_:didChangeCounts:)``). O(sections).
    public var counts: ResultsCounts? {
        engine.map(Self.counts(of:))
    }

    private static func counts(of engine: any ResultsEngine) -> ResultsCounts {
        ResultsCounts(total: engine.count, sections: engine.sectionInfos())
    }


    /// Replaces the request (same entity); the delegate hears the difference.
    ///
    /// - Throws: ``StoreError`` when the request does not fit; nothing changes then.
    public func setRequest(_ request: FetchRequest) throws {
        guard request.entityName == self.request.entityName else {
            throw StoreError.schema(SchemaError("a controller cannot switch from entity '\(self.request.entityName)' to '\(request.entityName)'"))
        }
        let query = try store.bind(request)
        if coldWindow != nil, pendingResync != nil {
            // The new request's read is the resync owed: the whole results are read under
            // it, not under the old one, which may no longer read (a key path's table gone).
            let (oldRequest, oldQuery) = (self.request, self.query)
            (self.request, self.query) = (request, query)
            do {
                try loadWholeResults()
            } catch {
                (self.request, self.query) = (oldRequest, oldQuery)
                throw error
            }
        } else if coldWindow != nil {
            try loadResults()
        }
        guard let engine else {
            self.request = request
            self.query = query
            return
        }
        let (rows, aggregates, position) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
            (try store.fetchCommittedRows(query), try store.fetchAggregates(query), store.storage.changeLogPosition)
        }
        rowsBeforeTracking = query.entity.observedNames.contains(where: store.pendingTracking.contains) ? Self.byKey(rows, of: query) : nil
        self.request = request
        if let pending = pendingResync {
            // A failed delivery left the delegate behind the committed state: the new
            // results are its resync, from what it last saw.
            pendingResync = nil
            replaceResults(engine, query: query, rows: rows, from: pending.seen, resync: pending.reason, updated: { _ in true })
            // Its results are the committed state now, unless they could not be reported.
            if pendingResync == nil { resultsPosition = position }
        } else {
            // The results and the new rows are the same committed state: no value changed.
            replaceResults(engine, query: query, rows: rows, updated: { _ in false })
        }
        store.observerDidChangeEntities(self)
        if let aggregates, aggregateTracker != nil, pendingResync == nil {
            aggregateTracker?.replace(with: aggregates)
            reportAggregates()
        } else {
            startAggregates(aggregates)
        }
    }

    /// Swaps in new results and reports the difference by diffing whole snapshots;
    /// `updated` tells which objects in both changed their values.
    ///
    /// - Parameter old: the results the delegate last saw; by default the current ones.
    func replaceResults(_ previous: any ResultsEngine, query: BoundQuery, rows: [[Value]], from old: [ListSection<Value, Value>]? = nil,
                        resync: ResyncReason? = nil, touched: [Value: TouchedRow] = [:], updated: (Value) -> Bool) {
        let seen = old ?? shownNow
        let edits = pendingUserEdits
        pendingUserEdits = []
        let replacement = makeEngine(query: query, rows: rows)
        let previousEntity = self.query.entity
        self.query = query
        engine = replacement
        let now = placeWindow(in: replacement, seen: seen) ?? replacement.snapshot
        // An object that leaves is reported as the previous results held it, laid out as the
        // new query's rows (a request change or a migration may add attributes and key-path
        // values); one that only left the window as the new results read it (the previous
        // request may no longer read: a key path's table gone); one they no longer hold (the
        // delegate saw it before a failed delivery) as far as it is known: its key.
        let (change, start) = QueryChange.diff(from: seen, editedBy: edits, to: now, resync: resync, isUpdated: updated, removedRow: { key in
            if let row = previous.heldRow(forKey: key) { return query.entity.row(row, from: previousEntity) }
            if let row = replacement.row(forKey: key) { return row }
            // In a resync, a row gone from the results is not read through the previous
            // request either: what the previous results know of it, unread.
            if let row = (resync == nil ? previous.row(forKey: key) : nil) ?? previous.knownRow(forKey: key) {
                return query.entity.row(row, from: previousEntity)
            }
            var row = [Value](repeating: .null, count: query.entity.attributes.count)
            row[query.entity.keyIndex] = key
            return row
        })
        if windowTracker == nil {
            report(change, in: replacement, from: start, touched: touched)
        } else if report(change, in: replacement, from: start, touched: touched, shown: now) {
            reportCounts(of: replacement)
        }
    }

    /// Places the window over new results, from what the delegate saw; nil without a window.
    func placeWindow(in engine: any ResultsEngine, seen: [ListSection<Value, Value>]) -> [ListSection<Value, Value>]? {
        guard var tracker = windowTracker else { return nil }
        tracker.shown = seen
        let now = tracker.place(in: engine)
        windowTracker = tracker
        return now
    }

    /// Tells the delegate the whole results' counts when they differ from what it last heard.
    func reportCounts(of engine: any ResultsEngine) {
        let counts = Self.counts(of: engine)
        guard counts != countsSeen else { return }
        countsSeen = counts
        delegate?.controller(self, didChangeCounts: counts)
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
    var observedEntityNames: [String] { query.entity.observedNames }

    /// Applies the rows of the keys a commit touched, and reports the difference.
    ///
    /// It runs inside the store's delivery, whose read transaction sees exactly the state
    /// the changes lead to: a re-fetch here reads that state and nothing newer.
    func storeDidCommit(_ changes: CommittedChanges, in store: Store) {
        guard hasFetched, !isFetching else { return }
        let resync = pendingResync?.reason ?? changes.resync
        // The rows as the query sees them (with their key-path values, when it has some).
        var touched: [Value: TouchedRow] = [:]
        if resync == nil {
            do {
                touched = try store.touchedRows(of: query.entity, in: changes)
            } catch {
                fail(error, seen: shownNow)
                return
            }
        }
        // The aggregates first, so that the delegate reads them current during the callbacks
        // (and a fetch it makes from one starts them over); announced after the rows.
        guard takeIntoAggregates(touched, rebuilding: resync ?? (changes.mustReread ? .readFailed : nil)) else { return }
        if coldWindow != nil {
            applyToColdWindow(changes, touched: touched)
        } else {
            apply(changes, touched: touched)
        }
        if pendingResync == nil { reportAggregates() }
        // The results are at the delivery's position unless it failed (they stay behind it).
        if pendingResync == nil { resultsPosition = changes.through }
        if !touched.isEmpty { didDeliver?(touched) }
    }

    private func apply(_ changes: CommittedChanges, touched rows: [Value: TouchedRow]) {
        guard let engine else { return }
        if let reason = pendingResync?.reason ?? changes.resync {
            resync(engine, because: reason)
            return
        }
        if changes.mustReread {
            reread(engine)
            return
        }
        let (touched, silent) = AttributeRelevance.separatingSilent(rows, for: query.attributeRelevance)
        engine.refresh(silent)
        // A silent row the engine still moves (with the block it sits in) is named too.
        silentRows = silent
        defer { silentRows = [:] }
        guard !touched.isEmpty || !pendingUserEdits.isEmpty else { return }
        let path = forcedCommitPath ?? CommitPath.cheaper(touched: touched.count, results: engine.count)
        if windowTracker != nil {
            applyToWindow(touched: touched, in: engine, path: pendingUserEdits.isEmpty ? path : .rowByRow)
        } else if pendingUserEdits.isEmpty && path == .rowByRow {
            do {
                report(try engine.apply(touched: touched), in: engine, from: nil, touched: touched)
            } catch {
                // Only the re-fetching engine reads here, and it kept its results: they are
                // what the delegate saw. (Taking the snapshot before applying would cost O(n)
                // on every commit.)
                fail(error, seen: engine.snapshot)
            }
        } else if pendingUserEdits.isEmpty && path == .resort, let incremental = engine as? IncrementalResults {
            let (resorted, change) = incremental.resorting(touched: touched)
            self.engine = resorted
            report(change, in: resorted, from: nil, touched: touched)
        } else if pendingUserEdits.isEmpty, let refetched = try? fetchEngine(query: query) {
            reportBulkChange(touched: touched, from: engine, to: refetched)
        } else {
            // Without a re-fetch (or when it failed), row by row: nothing is read here.
            reportChangeFromUserEdits(touched: touched, in: engine)
        }
    }

    func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool) {
        guard hasFetched else { return }
        if mustResync {
            fail(error, seen: shownNow, reason: .schemaChanged)
        } else {
            delegate?.controller(self, didFailWith: error)
        }
    }

    /// Re-reads the results and reports the difference from what the delegate last saw as
    /// one group marked as a resync; when the read fails, reports that and tries again at
    /// the next delivery.
    private func resync(_ engine: any ResultsEngine, because reason: ResyncReason) {
        let seen = pendingResync?.seen ?? shownNow
        let rows: [[Value]]
        do {
            rows = try store.fetchCommittedRows(query)
        } catch {
            fail(error, seen: seen, reason: reason)
            return
        }
        pendingResync = nil
        // Which values changed is unknown: every object that stays is reported updated.
        replaceResults(engine, query: query, rows: rows, from: seen, resync: reason, updated: { _ in true })
    }

    /// Tracking of the entity started after this query's fetch, so the commits between
    /// went unlogged (``CommittedChanges/mustReread``): reads the results again and reports
    /// how they differ from what the delegate saw, as a commit's change — an object is
    /// updated when its values differ from the ones the engine holds, or when the engine
    /// no longer holds them whole.
    private func reread(_ engine: any ResultsEngine) {
        let rows: [[Value]]
        do {
            rows = try store.fetchCommittedRows(query)
        } catch {
            fail(error, seen: shownNow)
            return
        }
        let before = rowsBeforeTracking ?? [:]
        rowsBeforeTracking = nil
        // Each row as it was and is now, where both are known: what a commit's rows would
        // have said, so that updates name what changed and `displays` holds.
        var compared: [Value: TouchedRow] = [:]
        var unknown: Set<Value> = []
        for row in rows {
            let key = query.key(of: row)
            guard let held = before[key] ?? engine.heldRow(forKey: key) else {
                unknown.insert(key)
                continue
            }
            if held != row { compared[key] = TouchedRow(before: held, after: row) }
        }
        replaceResults(engine, query: query, rows: rows, touched: compared, updated: { key in compared[key] != nil || unknown.contains(key) })
    }

    /// The query's whole rows by key when one of its entities' tracking is still to start
    /// (``Store/pendingTracking``), read in the caller's read: what ``reread(_:)`` compares
    /// with once it starts. Nil, and nothing read, otherwise.
    func rowsIfTrackingIsPending(_ query: BoundQuery) throws(StoreError) -> [Value: [Value]]? {
        guard query.entity.observedNames.contains(where: store.pendingTracking.contains) else { return nil }
        return Self.byKey(try store.fetchCommittedRows(query), of: query)
    }

    private static func byKey(_ rows: [[Value]], of query: BoundQuery) -> [Value: [Value]] {
        Dictionary(rows.map { (query.key(of: $0), $0) }, uniquingKeysWith: { _, last in last })
    }

    /// A read failed: the delegate keeps the results it last saw, hears the error, and
    /// the next delivery re-fetches (``ResyncReason/readFailed`` unless a reason is given).
    func fail(_ error: StoreError, seen: [ListSection<Value, Value>], reason: ResyncReason = .readFailed) {
        pendingResync = (pendingResync?.reason ?? reason, pendingResync?.seen ?? seen)
        // The next poll delivers again even if nothing else is committed.
        store.hasFailedDelivery = true
        delegate?.controller(self, didFailWith: error)
    }

    /// A bulk change: the re-fetched results replace the old, diffed with them by the engine
    /// (``ResultsEngine/change(to:touched:)``: by ids for the incremental engine); updates
    /// are the touched rows whose values changed, reported from the commit's own rows.
    private func reportBulkChange(touched: [Value: TouchedRow], from previous: any ResultsEngine, to refetched: any ResultsEngine) {
        let change = previous.change(to: refetched, touched: touched)
        engine = refetched
        report(change, in: refetched, from: nil, touched: touched)
    }

    /// A commit to a windowed controller: the results take it by `path`, then the window
    /// is placed over them again and its change is reported: rows that enter or leave it
    /// are inserts and deletes, rows that stay and changed values updates, with the user's
    /// own edits (window-relative) applied first. The whole results' counts follow, when
    /// they changed.
    private func applyToWindow(touched: [Value: TouchedRow], in previous: any ResultsEngine, path: CommitPath) {
        guard let tracker = windowTracker else { return }
        let seen = tracker.shown
        let edits = pendingUserEdits
        pendingUserEdits = []
        // A few rows, each past the window's reach before and after the commit: the window
        // stays as it is, and is neither placed nor diffed (ranks before are taken now).
        var isPastReach = edits.isEmpty && tracker.reach < Int.max && touched.count <= 64
        if isPastReach {
            isPastReach = touched.keys.allSatisfy { previous.rank(ofKey: $0).map { $0 >= tracker.reach } ?? true }
        }
        var current = previous
        let resultsChange: QueryChange?
        do {
            if path == .resort, let incremental = previous as? IncrementalResults {
                let resorted = incremental.resorting(touched: touched)
                (current, resultsChange) = (resorted.results, resorted.change)
            } else if path == .refetch, let refetched = try? fetchEngine(query: query) {
                (current, resultsChange) = (refetched, previous.change(to: refetched, touched: touched))
            } else {
                resultsChange = try previous.apply(touched: touched)
            }
        } catch {
            fail(error, seen: UserEdit.apply(edits, to: seen))
            return
        }
        engine = current
        guard resultsChange != nil || !edits.isEmpty else { return }
        let countsChanged = resultsChange?.changesCounts ?? false
        if isPastReach && touched.keys.allSatisfy({ current.rank(ofKey: $0).map { $0 >= tracker.reach } ?? true }) {
            if countsChanged { reportCounts(of: current) }
            return
        }
        let now = placeWindow(in: current, seen: seen) ?? []
        if edits.isEmpty && now == seen && !now.contains(where: { $0.items.contains { touched[$0]?.isChanged ?? false } }) {
            // The window's rows are the ones it showed, in place and unchanged.
            if countsChanged { reportCounts(of: current) }
            return
        }
        let (change, start) = QueryChange.diff(
            from: seen, editedBy: edits, to: now, isUpdated: { touched[$0]?.isChanged ?? false },
            removedRow: { touched[$0]?.before ?? current.row(forKey: $0) ?? previous.knownRow(forKey: $0) })
        guard report(change, in: current, from: start, touched: touched, shown: now) else { return }
        if countsChanged { reportCounts(of: current) }
    }

    /// A change that starts from the list as the user left it: apply, then diff whole
    /// snapshots from the user's view.
    private func reportChangeFromUserEdits(touched: [Value: TouchedRow], in engine: any ResultsEngine) {
        let seen = engine.snapshot
        let edits = pendingUserEdits
        pendingUserEdits = []
        var oldRows: [Value: [Value]] = [:]
        for key in touched.keys {
            oldRows[key] = touched[key]?.before ?? engine.knownRow(forKey: key)
        }
        do {
            _ = try engine.apply(touched: touched)
        } catch {
            // The re-fetching engine could not read: the delegate keeps the user's list, hears
            // the failure, and the next delivery re-fetches from it.
            fail(error, seen: UserEdit.apply(edits, to: seen))
            return
        }
        let (change, start) = QueryChange.diff(from: seen, editedBy: edits, to: engine.snapshot,
                                               isUpdated: { touched[$0]?.isChanged ?? false }, removedRow: { oldRows[$0] })
        report(change, in: engine, from: start, touched: touched)
    }

    /// A whole row by key: from the engine, or from a window opened cold.
    func row(forKey key: Value, in engine: (any ResultsEngine)?) -> [Value]? {
        if let engine { return engine.row(forKey: key) }
        return coldWindow?.rows[key]
    }

    /// Tells the delegate about a change, once every object it names has been read whole.
    ///
    /// - Parameters:
    ///   - old: the results the change starts from, when the caller has them; otherwise
    ///     they are worked out from the group, should a read fail.
    ///   - touched: the rows the commit touched, read in this delivery: an object they
    ///     hold is reported as it is there, without asking the engine (whose bounded
    ///     cache would read back, in a bulk commit, the rows it just dropped).
    ///   - shown: for a windowed controller, the window's rows after the change: what
    ///     the delegate sees from then on, and the sizes of the sections it inserts.
    /// - Returns: whether the delegate was told (or there was nothing to tell); false when
    ///   an object could not be read and the next delivery resyncs instead.
    @discardableResult
    func report(_ change: QueryChange?, in engine: (any ResultsEngine)?, from old: [ListSection<Value, Value>]?,
                touched: [Value: TouchedRow] = [:], shown: [ListSection<Value, Value>]? = nil) -> Bool {
        let rows = { (key: Value) in touched[key] ?? self.silentRows[key] }
        guard var change, change.describeAttributeChanges(for: query.attributeRelevance, rows: { key in
            let row = rows(key)
            return (row?.before, row?.after)
        }) else {
            if let shown { windowTracker?.shown = shown }
            return true
        }
        let group = change.group
        // The rows first, all of them (the delegate hears nothing unless every row is
        // there); each object is made as its callback runs, so that it is copied once.
        var objectRows: [[Value]] = []
        objectRows.reserveCapacity(group.objectChanges.count)
        for object in group.objectChanges {
            let values = object.type == .delete
                ? change.removedRows[object.item]
                : touched[object.item]?.after ?? row(forKey: object.item, in: engine)
            guard let values, values.count == query.entity.attributes.count else {
                // The delegate never sees a row it cannot be given whole: it keeps the
                // results it had, and the next delivery re-fetches and resyncs.
                let seen = old ?? (try? group.unapply(to: engine?.snapshot ?? []))
                fail(.database(DatabaseError(code: .error, message: "could not read \(query.entity.name) \(object.item) to report its \(object.type)")),
                     seen: seen ?? engine?.snapshot ?? [])
                return false
            }
            objectRows.append(values)
        }
        let entity = query.entity
        lastChange = group
        if let shown { windowTracker?.shown = shown }
        delegate?.receive(group, resync: change.resync, from: self, sectionCount: { section in
            if section.type == .delete { return change.oldSectionCounts[section.index] ?? 0 }
            return shown?[section.index].items.count ?? engine?.sectionRange(section.index).count ?? 0
        }, object: { position, _ in Object(entity: entity, values: objectRows[position]) })
        return true
    }
}
