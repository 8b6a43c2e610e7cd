import RosterUpdates

/// Placing a window opened cold again after a commit, from its edges and the commit's
/// rows, with range reads next to the edges: O(log *n* + window + touched rows) whatever
/// the size of the results (see ``ResultsController/ColdWindow``).
extension ResultsController {
    /// The window's rows after a commit, or nil when they cannot be placed from its edges
    /// (an anchored window all of whose rows left: the rule needs the anchor's rank).
    ///
    /// - Parameters:
    ///   - exact: whether `touched` holds every row the commits changed (no resync, no
    ///     unlogged commit): then untouched rows are as the window holds them, and an
    ///     offset window moves by the rows that entered or left above its first row. Else
    ///     the window is read again where it stands (an offset window by `OFFSET`).
    /// - Complexity: O(log *n* + window + touched) reads for an anchored window, and for
    ///   an offset window when `exact`; O(offset + window) for an offset window otherwise.
    func placeColdWindow(_ cold: ColdWindow, window: ResultsWindow, touched: [Value: TouchedRow], exact: Bool) throws(StoreError) -> ColdWindow? {
        let query = self.query
        /// A touched row as the query sees it now: nil when deleted or filtered out.
        func rowNow(_ touchedRow: TouchedRow) -> [Value]? {
            touchedRow.after.flatMap { query.predicate.evaluate($0) ? $0 : nil }
        }
        switch window {
        case let .offset(offset, length):
            guard exact, let first = cold.keys.first, let boundary = cold.rows[first] else {
                return try readColdWindow(window, query: query)
            }
            // The rows before the window's first row (as it stood) now, less before: the
            // window, which keeps its offset, starts that many rows earlier (later when
            // negative) in the order.
            var shift = 0
            var reachesWindow = cold.keys.count < length
            let last = cold.keys.last.flatMap { cold.rows[$0] } ?? boundary
            for (key, row) in touched {
                if let before = row.before, query.predicate.evaluate(before), query.sort.compare(before, boundary) < 0 { shift -= 1 }
                let after = rowNow(row)
                if let after, query.sort.compare(after, boundary) < 0 { shift += 1 }
                if cold.rows[key] != nil || after.map({ query.sort.compare($0, last) <= 0 }) == true { reachesWindow = true }
            }
            // Nothing above it moved, nothing in it changed and nothing entered its span.
            guard shift != 0 || reachesWindow else { return cold }
            // The first row itself, when it is still where it was.
            let firstNow = touched[first].map(rowNow) ?? boundary
            let atBoundary = firstNow.map { query.sort.compare($0, boundary) == 0 } == true ? [firstNow!] : []
            let fromBoundary = length + max(-shift, 0)
            let (above, below) = try store.committedNeighbours(of: boundary, in: query, before: max(shift, 0),
                                                               after: max(fromBoundary - max(shift, 0) - atBoundary.count, 0))
            var rows = above + atBoundary + below
            if shift < 0 { rows.removeFirst(min(-shift, rows.count)) }
            if rows.count > length { rows.removeLast(rows.count - length) }
            return Self.coldWindow(window, rows: rows, firstRank: offset, query: query)
        case let .anchored(key, before, after):
            // Each row the window showed, as it is now (nil: gone from the results).
            var shownNow: [Value: [Value]] = [:]
            if exact {
                for shownKey in cold.keys {
                    if let row = touched[shownKey] {
                        if let now = rowNow(row) { shownNow[shownKey] = now }
                    } else {
                        shownNow[shownKey] = cold.rows[shownKey]
                    }
                }
            } else {
                for (shownKey, row) in try store.fetchCommittedRows(query.entity, keys: cold.keys) where query.predicate.evaluate(row) {
                    shownNow[shownKey] = row
                }
            }
            // The anchor, or the nearest row that stayed of those the window showed.
            guard let anchor = ScrollPosition.nearest(to: key, among: cold.keys, locate: { shownNow[$0] }) else { return nil }
            // Nothing in it changed and nothing may enter: it stays as it is, unread.
            if exact, anchor.key == key, !touched.contains(where: { touchedKey, row in
                cold.rows[touchedKey] != nil || Self.mayEnter(row, window: cold, anchor: key, before: before, after: after, query: query)
            }) {
                return cold
            }
            let (rowsAbove, rowsBelow) = try store.committedNeighbours(of: anchor.position, in: query, before: before, after: after)
            return Self.coldWindow(.anchored(key: anchor.key, before: before, after: after), rows: rowsAbove + [anchor.position] + rowsBelow,
                                   firstRank: nil, query: query)
        }
    }

    /// Whether a touched row of a commit may enter an anchored cold window that none of its
    /// rows left: it is (before or now) within the window's span, or beyond an edge where
    /// the window shows fewer rows than it may.
    private static func mayEnter(_ row: TouchedRow, window cold: ColdWindow, anchor: Value, before: Int, after: Int, query: BoundQuery) -> Bool {
        guard let firstKey = cold.keys.first, let first = cold.rows[firstKey],
              let lastKey = cold.keys.last, let last = cold.rows[lastKey] else { return true }
        guard let anchorIndex = cold.keys.firstIndex(of: anchor) else { return true }
        let openAbove = anchorIndex < before
        let openBelow = cold.keys.count - anchorIndex - 1 < after
        for values in [row.before, row.after] {
            guard let values, query.predicate.evaluate(values) else { continue }
            let fromFirst = query.sort.compare(values, first)
            let fromLast = query.sort.compare(values, last)
            if (fromFirst >= 0 && fromLast <= 0) || (fromFirst < 0 && openAbove) || (fromLast > 0 && openBelow) { return true }
        }
        return false
    }

    /// Tells the delegate how a cold window changed, and keeps it cold.
    func reportColdWindow(_ placed: ColdWindow, replacing cold: ColdWindow, seen: [ListSection<Value, Value>],
                          touched: [Value: TouchedRow], resync: ResyncReason?, comparingValues: Bool) {
        let now = placed.tracker.shown
        let (change, start) = QueryChange.diff(from: seen, to: now, resync: resync, isUpdated: { key in
            resync != nil || (touched[key]?.isChanged ?? false) || (comparingValues && cold.rows[key] != placed.rows[key])
        }, removedRow: { touched[$0]?.before ?? cold.rows[$0] })
        // The new rows first: the delegate reads objects from them.
        coldWindow = placed
        pendingResync = nil
        var tracker = placed.tracker
        tracker.shown = seen
        windowTracker = tracker
        report(change, in: nil, from: start, touched: touched, shown: now)
    }
}
