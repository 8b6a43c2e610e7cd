import RosterUpdates

/// A window opened cold: its rows read alone, the whole results loaded only when asked.
///
/// ``performFetch()`` on a controller whose window is set (``setWindow(_:)`` before the
/// first fetch) reads only the window's rows: an offset window with `ORDER BY … LIMIT …
/// OFFSET …` (which steps over the rows before it in the index), an anchored window with
/// a few range reads around its anchor (`ResultsController/readColdWindow(_:query:)`),
/// which an index that serves the sort makes O(log n + window) at any size.
///
/// The window stays cold through commits: each delivery places it again from the
/// commit's rows and the window's edges, with range reads next to them, never reading the
/// whole results (`ResultsController/placeColdWindow(_:touched:exact:)`); the window's
/// change is the diff of the rows it showed with the rows it shows, updates from the
/// commit's rows. A `setWindow` to another window reads the new one the same way, next to
/// the old one when it is near (`ResultsController/moveColdWindow(to:)`). Memory stays
/// O(window). The whole results load at ``ResultsController/loadResults()``, at a
/// `setWindow(nil)`, or in the one case a delivery
/// cannot place the window from its edges: an anchored window all of whose rows left
/// (the rule then needs the anchor's rank). Until they load
/// ``ResultsController/counts`` is nil; the delegate hears them when they are loaded.
extension ResultsController {
    /// The window's rows, read alone at the cursor: where the window stands, its rows as
    /// sections, and each row by key.
    struct ColdWindow {
        var tracker: WindowTracker
        var rows: [Value: [Value]]
        /// The window's keys as read, in order.
        var keys: [Value]
        /// The rank of the window's first row, when it was read (an offset window's); an
        /// anchored window's is not, which would cost a count of every row above it.
        var firstRank: Int?
    }

    /// Reads the rows `window` shows over `query`'s committed results, without the rest.
    /// Call it in a read at the cursor.
    ///
    /// - Returns: nil for an anchored window whose anchor is not in the results.
    func readColdWindow(_ window: ResultsWindow, query: BoundQuery) throws(StoreError) -> ColdWindow? {
        let rows: [[Value]]
        let firstRank: Int?
        switch window {
        case let .offset(offset, length):
            rows = try store.fetchCommittedRows(query, ranks: offset..<(offset + min(length, Int.max - offset)))
            firstRank = offset
        case let .anchored(key, before, after):
            guard let row = try store.fetchCommittedRows(query.entity, keys: [key])[key], query.predicate.evaluate(row) else { return nil }
            let (above, below) = try store.committedNeighbours(of: row, in: query, before: before, after: after)
            rows = above + [row] + below
            firstRank = nil
        }
        return Self.coldWindow(window, rows: rows, firstRank: firstRank, query: query)
    }

    /// A cold window of `rows`, in order.
    static func coldWindow(_ window: ResultsWindow, rows: [[Value]], firstRank: Int?, query: BoundQuery) -> ColdWindow {
        let keys = rows.map(query.key(of:))
        // Without its rank, an anchored window whose every row leaves before the whole
        // results are read is placed from the top (the rank only serves that case).
        var tracker = WindowTracker(window, placedKeys: keys, firstRank: firstRank ?? 0)
        tracker.shown = ListSection.grouping(zip(keys, rows).lazy.map { (key: $0.0, section: query.sectionName(of: $0.1)) })
        return ColdWindow(tracker: tracker, rows: Dictionary(zip(keys, rows), uniquingKeysWith: { first, _ in first }),
                          keys: keys, firstRank: firstRank)
    }

    /// Loads the whole results of a window opened cold now, rather than at the first commit
    /// that touches the entity; then ``counts`` are known (the delegate hears them). Does
    /// nothing for a controller that holds its whole results already.
    ///
    /// - Throws: ``StoreError`` when the read fails; the window stays as it was.
    public func loadResults() throws {
        try loadWholeResults()
    }

    /// ``loadResults()``, for Roster's own code, which throws ``StoreError`` alone (the
    /// public API throws `any Error`: see ``StoreError``).
    func loadWholeResults() throws(StoreError) {
        guard coldWindow != nil else { return }
        // Bound again: the entity may have gained attributes since the window was read.
        let query = try store.bind(request)
        let (fetched, position, heldRows) = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
            (try fetchEngine(query: query), store.storage.changeLogPosition, try rowsIfTrackingIsPending(query))
        }
        // Reading at the cursor may have delivered commits, which loaded the results.
        guard coldWindow != nil else { return }
        self.query = query
        aggregateTracker?.rebind(to: query)
        // Inside a transaction, or before a rolled-back one's tracking starts: the rows the
        // first delivery compares with (the engine holds only some of them whole).
        rowsBeforeTracking = heldRows
        // The same committed state as the window's, unless a delivery failed since: then
        // this is the resync it owes.
        if adoptWholeResults(fetched, touched: [:], resync: pendingResync?.reason) { resultsPosition = position }
    }

    /// Takes the whole results in place of a cold window's rows, and tells the delegate
    /// how the window changed from what it showed (nothing, when `fetched` is the state the
    /// window was read at) and the counts, now known.
    ///
    /// - Parameter comparingValues: whether commits may have gone unlogged since the window
    ///   was read (``CommittedChanges/mustReread``): a shown row whose values differ from
    ///   the window's is then updated too.
    @discardableResult
    func adoptWholeResults(_ fetched: any ResultsEngine, touched: [Value: TouchedRow], resync: ResyncReason?,
                           comparingValues: Bool = false) -> Bool {
        guard let cold = coldWindow, let shown = windowTracker?.shown else { return false }
        let seen = pendingResync?.seen ?? shown
        let edits = pendingUserEdits
        pendingUserEdits = []
        engine = fetched
        coldWindow = nil
        pendingResync = nil
        let now = placeWindow(in: fetched, seen: seen) ?? []
        let touched = comparingValues
            ? Self.compared(touched, before: cold.rows, now: Dictionary(uniqueKeysWithValues: now.lazy.flatMap(\.items).compactMap { key in
                fetched.row(forKey: key).map { (key, $0) }
            }))
            : touched
        let (change, start) = QueryChange.diff(
            from: seen, editedBy: edits, to: now, resync: resync, isUpdated: { key in
                resync != nil || (touched[key]?.isChanged ?? false)
            },
            removedRow: { touched[$0]?.before ?? cold.rows[$0] ?? fetched.row(forKey: $0) })
        guard report(change, in: fetched, from: start, touched: touched, shown: now) else { return false }
        reportCounts(of: fetched)
        return true
    }

    /// `touched`, with each row that both `before` and `now` hold and that differs added as
    /// a commit's row would say it (the commits went unlogged: ``CommittedChanges/mustReread``),
    /// so that its update names what changed and `displays` holds.
    static func compared(_ touched: [Value: TouchedRow], before: [Value: [Value]], now: [Value: [Value]]) -> [Value: TouchedRow] {
        var touched = touched
        for (key, row) in now where touched[key] == nil {
            if let was = before[key], was != row { touched[key] = TouchedRow(before: was, after: row) }
        }
        return touched
    }

    /// A delivery to a window opened cold, when it touches the entity (or a resync or the
    /// user's edits are due): the window is placed again from its edges and the commit's
    /// rows, and stays cold. With the user's edits pending, or after a resync that left
    /// none of an anchored window's rows, the whole results are read in the delivery and
    /// taken instead.
    func applyToColdWindow(_ changes: CommittedChanges, touched: [Value: TouchedRow]) {
        let resync = pendingResync?.reason ?? changes.resync
        guard !touched.isEmpty || !pendingUserEdits.isEmpty || resync != nil || changes.mustReread else { return }
        guard let cold = coldWindow, let tracker = windowTracker else { return }
        if pendingUserEdits.isEmpty, store.storage.readsNeighboursByRange {
            let seen = pendingResync?.seen ?? tracker.shown
            // The log's rows tell where every touched row went, unless some went unread.
            let exact = resync == nil && !changes.mustReread
            let placed: ColdWindow?
            do {
                placed = try placeColdWindow(cold, window: tracker.window, touched: touched, exact: exact)
            } catch {
                fail(error, seen: seen)
                return
            }
            if let placed {
                reportColdWindow(placed, replacing: cold, seen: seen, touched: touched, resync: resync, comparingValues: changes.mustReread)
                return
            }
        }
        let fetched: any ResultsEngine
        do {
            fetched = try fetchEngine(query: query)
        } catch {
            let seen = pendingResync?.seen ?? windowTracker?.shown ?? []
            fail(error, seen: UserEdit.apply(pendingUserEdits, to: seen))
            pendingUserEdits = []
            return
        }
        adoptWholeResults(fetched, touched: touched, resync: resync, comparingValues: changes.mustReread)
    }
}
