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
            let shift = Self.rowsEntered(before: boundary, touched: touched, query: query)
            let last = cold.keys.last.flatMap { cold.rows[$0] } ?? boundary
            let reachesWindow = cold.keys.count < length || touched.contains { key, row in
                cold.rows[key] != nil || rowNow(row).map { query.sort.compare($0, last) <= 0 } == true
            }
            // Nothing above it moved, nothing in it changed and nothing entered its span.
            guard shift != 0 || reachesWindow else { return cold }
            // Nothing above it moved and its rows changed in place: the same rows, unread.
            if shift == 0, let placed = Self.updatedInPlace(cold, window: window, touched: touched, query: query, mayEnter: { row in
                rowNow(row).map { query.sort.compare($0, boundary) >= 0 && (cold.keys.count < length || query.sort.compare($0, last) <= 0) } ?? false
            }) {
                return placed
            }
            if !reachesWindow, shift.magnitude < cold.keys.count {
                // Only rows above it came or went: it slides by `shift` rows, and only the
                // rows that slide in at an edge are read.
                let kept = cold.keys.map { cold.rows[$0] ?? [] }
                let rows: [[Value]]
                if shift > 0 {
                    rows = try store.committedNeighbours(of: boundary, in: query, before: shift, after: 0).above + kept.dropLast(shift)
                } else {
                    rows = kept.dropFirst(-shift) + (try store.committedNeighbours(of: last, in: query, before: 0, after: -shift).below)
                }
                return Self.coldWindow(window, rows: rows, firstRank: offset, query: query)
            }
            // The first row itself, when it is still where it was.
            let firstNow = touched[first].map(rowNow) ?? boundary
            let atBoundary: [[Value]] = firstNow.flatMap { query.sort.compare($0, boundary) == 0 ? [$0] : nil } ?? []
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
            // The anchor, or the nearest row that stayed of those the window showed; when
            // none did, the row now at the anchor's old rank.
            var found = ScrollPosition.nearest(to: key, among: cold.keys, locate: { shownNow[$0] })
            if found == nil, exact { found = try rowAtOldRank(of: key, in: cold, touched: touched) }
            if found == nil, cold.keys.isEmpty {
                // It showed nothing: the results were empty. The first row of the results now,
                // if any, is its anchor (the empty window stood at rank 0) — one row read, not
                // the whole results.
                found = try store.fetchCommittedRows(query, ranks: 0..<1).first.map { (query.key(of: $0), $0) }
                guard found != nil else { return Self.coldWindow(window, rows: [], firstRank: nil, query: query) }
            }
            guard let anchor = found else {
                if exact, cold.rows[key] != nil {
                    // No rows at all: it keeps its anchor and shows nothing, until rows enter.
                    return Self.coldWindow(window, rows: [], firstRank: nil, query: query)
                }
                return nil
            }
            // Nothing may enter and its rows changed in place, if at all: the same rows, unread.
            if exact, anchor.key == key, let placed = Self.updatedInPlace(cold, window: window, touched: touched, query: query, mayEnter: { row in
                Self.mayEnter(row, window: cold, anchor: key, before: before, after: after, query: query)
            }) {
                return placed
            }
            let (rowsAbove, rowsBelow) = try store.committedNeighbours(of: anchor.position, in: query, before: before, after: after)
            return Self.coldWindow(.anchored(key: anchor.key, before: before, after: after), rows: rowsAbove + [anchor.position] + rowsBelow,
                                   firstRank: nil, query: query)
        }
    }

    /// The row now at the rank an anchored cold window's anchor had, by the rule of an
    /// anchor all of whose window left (``WindowTracker``): the commit's rows say how many
    /// rows entered or left above the anchor's place (its row as it was), and one range
    /// read next to that place finds the row; past the end, the last row. Nil when the
    /// results are empty.
    private func rowAtOldRank(of anchor: Value, in cold: ColdWindow, touched: [Value: TouchedRow]) throws(StoreError) -> (key: Value, position: [Value])? {
        guard let place = cold.rows[anchor] else { return nil }
        let query = self.query
        // Rows above the anchor's place now, less before: where its old rank falls now.
        let shift = Self.rowsEntered(before: place, touched: touched, query: query)
        let row: [Value]?
        if shift > 0 {
            row = try store.committedNeighbours(of: place, in: query, before: shift, after: 0).above.first
        } else {
            let below = try store.committedNeighbours(of: place, in: query, before: 0, after: -shift + 1).below
            // Past the end: the last row, below the place or else above it.
            if below.count > -shift {
                row = below[-shift]
            } else if let last = below.last {
                row = last
            } else {
                row = try store.committedNeighbours(of: place, in: query, before: 1, after: 0).above.last
            }
        }
        return row.map { (query.key(of: $0), $0) }
    }

    /// How many more of the query's rows stand before `place` (a row's values) after the
    /// commit than before it, from the commit's rows alone: those that entered that part
    /// of the order less those that left it.
    private static func rowsEntered(before place: [Value], touched: [Value: TouchedRow], query: BoundQuery) -> Int {
        var entered = 0
        for row in touched.values {
            if let before = row.before, query.predicate.evaluate(before), query.sort.compare(before, place) < 0 { entered -= 1 }
            if let after = row.after, query.predicate.evaluate(after), query.sort.compare(after, place) < 0 { entered += 1 }
        }
        return entered
    }

    /// A cold window after a commit that moved none of its rows: the same rows, with the
    /// values the commit gave them (`cold` itself when it touched none of them). Nil when
    /// a row it touched left the results or moved (its sort keys changed), or when
    /// `mayEnter` says a row it touched outside the window may now be in it.
    ///
    /// - Complexity: O(touched rows + window).
    private static func updatedInPlace(_ cold: ColdWindow, window: ResultsWindow, touched: [Value: TouchedRow], query: BoundQuery,
                                       mayEnter: (TouchedRow) -> Bool) -> ColdWindow? {
        var updated: [Value: [Value]] = [:]
        for (key, row) in touched {
            guard let shown = cold.rows[key] else {
                if mayEnter(row) { return nil }
                continue
            }
            // Equal sort keys: the same place, and the same section (its attribute sorts first).
            guard let now = row.after, query.predicate.evaluate(now), query.sort.compare(now, shown) == 0 else { return nil }
            updated[key] = now
        }
        if updated.isEmpty { return cold }
        // The same keys in the same sections: only their rows change. (Each section is
        // checked, not assumed: values that sort equal need not be the same value.)
        if updated.allSatisfy({ key, row in cold.rows[key].map(query.sectionName(of:)) == query.sectionName(of: row) }) {
            var placed = cold
            for (key, row) in updated { placed.rows[key] = row }
            return placed
        }
        var rows: [[Value]] = []
        rows.reserveCapacity(cold.keys.count)
        for key in cold.keys {
            guard let row = updated[key] ?? cold.rows[key] else { return nil }
            rows.append(row)
        }
        return coldWindow(window, rows: rows, firstRank: cold.firstRank, query: query)
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
        let touched = comparingValues ? Self.compared(touched, before: cold.rows, now: placed.rows) : touched
        let (change, start) = QueryChange.diff(from: seen, to: now, resync: resync, isUpdated: { key in
            resync != nil || (touched[key]?.isChanged ?? false)
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

extension ResultsController {
    /// Moves or resizes a window opened cold and keeps it cold: the new window's rows are
    /// read next to the old one's when it is near (O(distance + window)), else where it
    /// stands (an anchored window around its anchor; an offset window by `OFFSET`). The
    /// delegate hears the rows that entered and left.
    ///
    /// - Returns: false when the window must be placed over the whole results instead (a
    ///   move to no window, a failed delivery waiting for its resync, a backend without
    ///   range reads).
    /// - Throws: ``StoreError/Code/invalidWindow`` for an anchor that is not in the results.
    func moveColdWindow(to window: ResultsWindow?) throws(StoreError) -> Bool {
        guard let window, coldWindow != nil, pendingResync == nil, pendingUserEdits.isEmpty, store.storage.readsNeighboursByRange else { return false }
        let query = self.query
        // At the cursor: commits delivered first (they keep the window cold), then read.
        let moved = try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) -> (ColdWindow, ColdWindow?)? in
            guard let cold = coldWindow else { return nil }
            if case let .offset(offset, length) = window, let rows = try rowsNear(cold, offset: offset, length: length) {
                return (cold, Self.coldWindow(window, rows: rows, firstRank: offset, query: query))
            }
            return (cold, try readColdWindow(window, query: query))
        }
        guard let (cold, placed) = moved else { return false }
        guard let placed else {
            guard case let .anchored(key, _, _) = window else { return false }
            throw WindowTracker.anchorMissing(key, entity: query.entity.name)
        }
        let seen = windowTracker?.shown ?? []
        let now = placed.tracker.shown
        // No stored value changed: rows only enter and leave what the delegate sees.
        let (change, start) = QueryChange.diff(from: seen, to: now, isUpdated: { _ in false }, removedRow: { cold.rows[$0] })
        coldWindow = placed
        var tracker = placed.tracker
        tracker.shown = seen
        windowTracker = tracker
        report(change, in: nil, from: start, shown: now)
        return true
    }

    /// The rows of an offset window read next to a cold offset window's rows, or nil when
    /// reading by `OFFSET` costs less (a window far above it) or the cold window is empty
    /// or anchored.
    private func rowsNear(_ cold: ColdWindow, offset target: Int, length: Int) throws(StoreError) -> [[Value]]? {
        guard let from = cold.firstRank, case let .offset(_, oldLength) = cold.tracker.window,
              let firstKey = cold.keys.first, let first = cold.rows[firstKey],
              let lastKey = cold.keys.last, let last = cold.rows[lastKey] else { return nil }
        let rows = cold.keys.map { cold.rows[$0] ?? [] }
        // Rows past the cold window's last exist only if it was full.
        let hasMoreBelow = rows.count == oldLength
        func below(_ count: Int) throws(StoreError) -> [[Value]] {
            guard count > 0, hasMoreBelow else { return [] }
            return try store.committedNeighbours(of: last, in: query, before: 0, after: count).below
        }
        if target >= from {
            let skip = target - from
            if skip < rows.count {
                let kept = Array(rows[skip..<min(rows.count, skip + length)])
                return kept + (try below(length - kept.count))
            }
            return Array(try below(skip - rows.count + length).dropFirst(skip - rows.count))
        }
        let distance = from - target
        guard distance <= target else { return nil }
        let above = try store.committedNeighbours(of: first, in: query, before: distance, after: 0).above
        if length <= above.count { return Array(above.prefix(length)) }
        let kept = Array(rows.prefix(length - above.count))
        return above + kept + (try below(length - above.count - kept.count))
    }
}

extension ResultsController {
    /// The window a resume token saved, placed again over the committed results as a
    /// delivery of every commit since the token would place it
    /// (``placeColdWindow(_:window:touched:exact:)``): from the rows it showed then — the
    /// log's rows before for those a commit touched, `untouched` for the others (by place
    /// in `keys`; what it says of a touched row is not used) — and the rows the commits
    /// touched. It costs what changed and the window, not the offset
    /// (``readColdWindow(_:query:)`` steps over the rows above an offset window). Read
    /// where it stands instead when the log does not reach back to the token, the token's
    /// rows are not the window's (``ResumeToken/isPlaced``), or the backend has no range
    /// reads.
    func resumedColdWindow(_ window: ResultsWindow, token: ResumeToken, keys: [Value], untouched: (Int) -> [Value]?,
                           changes: CommittedChanges, touched: [Value: TouchedRow]) throws(StoreError) -> ColdWindow? {
        let query = self.query
        // Each row as it stood at the token: a touched one's from the log (its image), the
        // others' as `untouched` has them. A few touched rows (a resume after edits that
        // placed none) are found by a scan of the keys, which costs less than hashing each.
        var then = keys.indices.map(untouched)
        if touched.count <= QueryChange.keysFoundByScan {
            for (key, row) in touched {
                if let index = keys.firstIndex(of: key) { then[index] = row.before }
            }
        } else {
            for (index, key) in keys.enumerated() {
                if let row = touched[key] { then[index] = row.before }
            }
        }
        var rows: [[Value]] = []
        rows.reserveCapacity(keys.count)
        for row in then {
            guard let row, row.count == query.entity.attributes.count else { break }
            rows.append(row)
        }
        let firstRank: Int?
        if case .offset = window { firstRank = token.firstRank } else { firstRank = nil }
        guard token.isPlaced, store.storage.readsNeighboursByRange, changes.resync == nil, !changes.mustReread, rows.count == keys.count,
              firstRank != nil || !(window.isOffset) else {
            return try readColdWindow(window, query: query)
        }
        let saved = Self.coldWindow(window, rows: rows, firstRank: firstRank, query: query)
        if let placed = try placeColdWindow(saved, window: window, touched: touched, exact: true) { return placed }
        return try readColdWindow(window, query: query)
    }
}

extension ResultsWindow {
    /// Whether it is an offset window.
    fileprivate var isOffset: Bool {
        if case .offset = self { return true }
        return false
    }
}
