import RosterUpdates

/// What a ``LiveResults`` consumer holds: its results in an ``IncrementalResults`` engine
/// (keys and sort values, and a bounded cache of whole rows), and the snapshot the
/// consumer last saw.
///
/// Objects are always as of the last change taken, never from a newer commit: a row the
/// cache lacks is read from the store and then taken back through the steps the consumer
/// has not applied (``Loader``, ``ChangeInbox/rowsBefore(_:attributeCount:)``).
///
/// A change made only of commits costs what the commits touched: their rows are merged
/// (each key's row before the first commit and after the last), applied in O(k log n) (or
/// re-sorted in O(n + k log k) when that is cheaper), and the snapshots before and after
/// are frozen orders of the engine (``FrozenSections``): O(sections), never a copy of
/// every key.
/// A change that also holds user edits, a new request or a re-fetch diffs whole
/// snapshots, as ``ResultsController`` does in those cases. With a window
/// (``ResultsWindow``), `snapshot` is the window's rows, and every change is the window's:
/// the steps are applied to the whole results, the window is placed again, and what it
/// shows is diffed with what it showed.
///
/// Not `Sendable`: it lives inside the consumer's lock.
final class LiveState {
    private(set) var engine: IncrementalResults
    /// The results as sections of keys, as the consumer last saw them: for whole results,
    /// a frozen order of the engine (O(sections) a change); for a window, its rows.
    private(set) var shown: ResultsSnapshot.Storage
    /// What the last change started from: the snapshot before it, with the user's own
    /// edits applied (what its `from` paths refer to).
    private(set) var previousShown: ResultsSnapshot.Storage = .sections([])
    /// The lock this state lives under, for the frozen orders it hands out to read the
    /// engine under.
    private let lock: FrozenSections.OwnerLock
    /// Reads whole rows, as the consumer holds them, for an engine bound to an entity.
    private let loader: Loader
    /// Reads every row of a query's results as the consumer holds them, in one scan: what a
    /// re-fetch of whole results compares with. Nil: read them by key.
    private let scanner: Scanner?

    /// Every row of a query's committed results by key, as of the last change taken.
    typealias Scanner = (_ query: BoundQuery) -> [Value: [Value]]

    /// Makes the row loader of an engine bound to `entity`: rows by key, as of the last
    /// change taken (a key without a row then is left out).
    typealias Loader = (_ entity: Entity) -> ([Value]) -> [Value: [Value]]
    /// The window the consumer sees, and where it stands; nil: every row.
    private(set) var window: WindowTracker?
    /// The whole results' counts as the consumer last heard them, with a window.
    private var countsSeen: ResultsCounts?
    /// The change-log position of the results (``ResumeToken``).
    private(set) var position: Int64
    /// The request's aggregates, kept with the results; nil without aggregates.
    private(set) var aggregates: AggregateTracker?
    /// What a resume found, for the consumer's first change: the change, and the snapshot,
    /// window and position the consumer holds once it takes it (until then it holds the
    /// token's).
    private var resumed: (change: QueryChange, shown: ResultsSnapshot.Storage, window: WindowTracker?, position: Int64)?

    init(query: BoundQuery, rows: [[Value]], position: Int64, lock: @escaping FrozenSections.OwnerLock, loader: @escaping Loader,
         scanner: Scanner? = nil) {
        engine = IncrementalResults(query: query, rows: rows, loader: loader(query.entity))
        self.lock = lock
        self.loader = loader
        self.scanner = scanner
        shown = .frozen(FrozenSections(engine, lock: lock))
        self.position = position
        aggregates = AggregateTracker(query: query, rows: rows)
    }

    /// The results as sections of keys, as the consumer last saw them. O(n) for whole results.
    var snapshot: [ListSection<Value, Value>] { Self.sections(of: shown) }

    /// What the last change started from, as sections of keys. O(n) for whole results.
    var previousSnapshot: [ListSection<Value, Value>] { Self.sections(of: previousShown) }

    /// Sections of keys, read here, under the lock.
    private static func sections(of storage: ResultsSnapshot.Storage) -> [ListSection<Value, Value>] {
        switch storage {
        case let .sections(sections): sections
        case let .frozen(frozen): frozen.sectionsUnderLock
        }
    }

    /// A deleted row whose values are not known: its key, and nulls.
    private static func keyOnly(_ key: Value, entity: Entity) -> [Value] {
        var values = [Value](repeating: .null, count: entity.attributes.count)
        values[entity.keyIndex] = key
        return values
    }

    /// The engine's results now, frozen (``FrozenSections``). O(sections).
    private func frozenResults() -> ResultsSnapshot.Storage {
        .frozen(FrozenSections(engine, lock: lock))
    }

    /// Takes the token's window and notes, as the consumer's first change, the change
    /// from the rows the token saved to the rows shown now (see
    /// ``ResultsController/performFetch(resumingFrom:)``).
    func resume(from token: ResumeToken, resync: ResyncReason?, touched: [Value: TouchedRow]) {
        // The token's window as it stood, and placed over the results now.
        let saved = token.window.map { window in
            var tracker = WindowTracker(window, placedKeys: token.sections.flatMap(\.items), firstRank: token.firstRank ?? 0)
            tracker.shown = token.sections
            return tracker
        }
        var placed = saved
        let now = placed?.place(in: engine) ?? snapshot
        placed?.shown = now
        if placed != nil { countsSeen = ResultsCounts(total: engine.count, sections: engine.sectionInfos()) }
        var (change, start) = QueryChange.sinceSaved(token.sections, to: now, touched: touched, relevance: engine.query.attributeRelevance, resync: resync, entity: engine.query.entity,
                                                     rowNow: { self.engine.row(forKey: $0) })
        if change?.describeAttributeChanges(for: engine.query.attributeRelevance, rows: { (touched[$0]?.before, touched[$0]?.after) }) == false { change = nil }
        previousShown = .sections(start)
        let nowShown: ResultsSnapshot.Storage = placed == nil ? shown : .sections(now)
        guard let change else {
            (shown, window) = (nowShown, placed)
            return
        }
        // Until the consumer takes the change, it holds the token's rows, window and position.
        resumed = (change, nowShown, placed, position)
        (shown, window, position) = (.sections(token.sections), saved, token.position)
    }

    /// Whether a resume's change waits for the consumer.
    var hasResumedChange: Bool { resumed != nil }

    /// The change a resume found, once; the consumer then holds the rows it leads to.
    func takeResumedChange() -> QueryChange? {
        guard let resumed else { return nil }
        self.resumed = nil
        shown = resumed.shown
        window = resumed.window
        position = resumed.position
        return resumed.change
    }

    /// Notes that the consumer holds every delivery up to `through` (none touched it since
    /// its last change).
    func advance(to through: Int64) {
        if resumed == nil { position = max(position, through) }
    }

    /// Takes the results from a scan of the store (keys and sort values, in order) and
    /// their aggregates: whole rows are loaded when asked for.
    init(query: BoundQuery, scan: OrderedScan, aggregates: AggregateTracker?, position: Int64,
         lock: @escaping FrozenSections.OwnerLock, loader: @escaping Loader, scanner: Scanner? = nil) {
        engine = IncrementalResults(query: query, scan: scan, loader: loader(query.entity))
        self.lock = lock
        self.loader = loader
        self.scanner = scanner
        shown = .frozen(FrozenSections(engine, lock: lock))
        self.position = position
        self.aggregates = aggregates
    }

    /// An engine for a re-fetch: keys and sort values, and the first rows in its cache.
    private func makeEngine(query: BoundQuery, rows: [[Value]]) -> IncrementalResults {
        IncrementalResults(query: query, rows: rows, loader: loader(query.entity))
    }

    var query: BoundQuery { engine.query }

    /// Applies several steps in order and reports them as one change: from the results
    /// the consumer last saw (with the user's own edits applied) to the results after the
    /// last step, with the aggregates that changed. This is how commits that arrived
    /// while the consumer was busy coalesce.
    ///
    /// - Parameters:
    ///   - resyncing: whether the steps hold a re-fetch for a resync: commits went by
    ///     unread, so a row that stays and that the engine's cache did not hold is reported
    ///     as updated (its row before is not known).
    ///   - settle: called once the engine holds the steps, before any row is read as of
    ///     them (the loader stops taking rows back through them: ``ChangeInbox/settle()``).
    /// - Returns: the change, or nil when neither the results nor the aggregates changed.
    func apply(_ steps: [ResultsStep], resyncing: Bool = false, settle: () -> Void = {}) -> QueryChange? {
        let (steps, readByRefetch) = unread(steps)
        var overflows = takeIntoAggregates(steps)
        var change = applyToResults(steps, readByRefetch: readByRefetch, resyncing: resyncing, settle: settle)
        settle()
        var aggregateChange: AggregateChange?
        if let taken = aggregates?.takeChange() {
            aggregateChange = taken.change
            overflows += taken.overflows
        }
        if aggregateChange != nil || !overflows.isEmpty {
            if change == nil { change = QueryChange() }
            change?.aggregates = aggregateChange
            change?.aggregateOverflows = overflows
        }
        return change
    }

    /// The steps' rows into the aggregates: touched rows applied (as wide as the request
    /// the aggregates are kept for, which a `.replace` earlier in the steps may have
    /// changed), re-fetched rows built again (``AggregateTracker``).
    ///
    /// - Returns: the aggregates out of range from the start, when a new request brought them.
    private func takeIntoAggregates(_ steps: [ResultsStep]) -> [StoreError] {
        var overflows: [StoreError] = []
        for step in steps {
            switch step {
            case let .touched(rows, _):
                guard let width = aggregates?.query.entity.attributes.count else { continue }
                aggregates?.apply(TouchedRow.shown(rows, attributeCount: width))
            case let .replace(query, rows, _):
                guard let rebuilt = AggregateTracker(query: query, rows: rows) else {
                    aggregates = nil
                    continue
                }
                if aggregates == nil {
                    aggregates = rebuilt
                    overflows += rebuilt.overflows
                } else {
                    aggregates?.replace(with: rebuilt)
                }
            case .userEdits, .window, .resync:
                break
            }
        }
        return overflows
    }

    /// The steps the results have not read yet: a commit a re-fetch already read (the
    /// re-fetch came after it) is dropped, its rows older than the re-fetched ones.
    ///
    /// - Returns: the steps to apply, and the touched rows of commits a re-fetch among them
    ///   already read (newer than the results the consumer holds, which the re-fetch's
    ///   change starts from).
    private func unread(_ steps: [ResultsStep]) -> (steps: [ResultsStep], readByRefetch: [[Value: TouchedRow]]) {
        var steps = steps
        let start = position
        var reached = position
        var readByRefetch: [[Value: TouchedRow]] = []
        steps.removeAll { step in
            switch step {
            case let .touched(rows, through):
                defer { reached = max(reached, through) }
                if through <= reached, through > start { readByRefetch.append(rows) }
                return through <= reached
            case let .replace(_, _, through):
                reached = max(reached, through)
                return false
            default:
                return false
            }
        }
        position = reached
        return (steps, readByRefetch)
    }

    /// The steps applied to the results, as one change.
    private func applyToResults(_ steps: [ResultsStep], readByRefetch: [[Value: TouchedRow]], resyncing: Bool, settle: () -> Void) -> QueryChange? {
        if window != nil { return applyWithDiff(steps, readByRefetch: readByRefetch, resyncing: resyncing, settle: settle) }
        var touched: [Value: TouchedRow] = [:]
        var onlyCommits = true
        for step in steps {
            switch step {
            case let .touched(rows, _):
                for (key, row) in shown(rows) {
                    // The row before the first commit, the row after the last.
                    if let earlier = touched[key] {
                        touched[key] = TouchedRow(before: earlier.before, after: row.after)
                    } else {
                        touched[key] = row
                    }
                }
            case .replace, .userEdits, .window:
                onlyCommits = false
            case .resync:
                assertionFailure("a resync step must be replaced by a re-fetch before it is applied")
            }
        }
        if onlyCommits {
            let (applied, silent) = AttributeRelevance.separatingSilent(touched.filter { $0.value.isChanged }, for: engine.query.attributeRelevance)
            engine.refresh(silent)
            guard var change = applyCommits(applied),
                  change.describeAttributeChanges(for: engine.query.attributeRelevance, rows: { (touched[$0]?.before, touched[$0]?.after) }) else { return nil }
            return change
        }
        return applyWithDiff(steps, readByRefetch: readByRefetch, resyncing: resyncing, settle: settle)
    }

    /// Touched rows as the query sees them (see ``TouchedRow/shown(_:attributeCount:)``).
    private func shown(_ rows: [Value: TouchedRow]) -> [Value: TouchedRow] {
        TouchedRow.shown(rows, attributeCount: engine.query.entity.attributes.count)
    }

    /// Commits only: the engine's own change, and the snapshots frozen. A bulk commit is
    /// re-sorted in memory (``CommitPath``): the touched rows come with the steps, so it
    /// never re-fetches.
    private func applyCommits(_ touched: [Value: TouchedRow]) -> QueryChange? {
        guard !touched.isEmpty else { return nil }
        let applied: QueryChange?
        if CommitPath.cheaper(touched: touched.count, results: engine.count) == .rowByRow {
            applied = engine.apply(touched: touched)
        } else {
            (engine, applied) = engine.resorting(touched: touched)
        }
        guard let change = applied else { return nil }
        // The frozen order before the change stays what the change's `from` paths refer to.
        previousShown = shown
        shown = frozenResults()
        return change
    }

    /// Steps with user edits, a new request, a re-fetch or a window, and every change of a
    /// windowed consumer: apply them all to the whole results, then diff what the consumer
    /// saw (the window's rows, with a window) with what it sees now. Updates are the
    /// objects whose row differs from the one the consumer last saw. With a window, the
    /// counts travel with the change when they changed (alone, with an empty group, when
    /// the window's rows did not).
    private func applyWithDiff(_ steps: [ResultsStep], readByRefetch: [[Value: TouchedRow]], resyncing: Bool, settle: () -> Void) -> QueryChange? {
        let oldShown = shown
        let old = snapshot
        var edits: [UserEdit] = []
        var mustDiff = false
        var countsMayChange = false
        // The rows the consumer last saw (nil: not in the results), of every key a commit
        // since them touched — among the steps, or read by a re-fetch among them — read
        // before any step is applied to it (the loader takes a row it reads back through the
        // steps not settled). A key no commit touched has the row the store has: not read.
        var seen: [Value: [Value]?] = [:]
        func note(_ rows: [Value: TouchedRow]) {
            for key in rows.keys where seen.index(forKey: key) == nil {
                seen[key] = .some(engine.row(forKey: key))
            }
        }
        for rows in readByRefetch { note(shown(rows)) }
        // The engine before the first re-fetch: its cache holds rows as the consumer saw them.
        var replaced: IncrementalResults?
        // After a re-fetch, every row of the results as of the last step (nil: not in the
        // store): what the change compares the rows the consumer saw with, without reading.
        var latest: [Value: [Value]?]?
        for step in steps {
            switch step {
            case let .touched(rows, _):
                let (changed, silent) = AttributeRelevance.separatingSilent(shown(rows).filter { $0.value.isChanged }, for: engine.query.attributeRelevance)
                if latest != nil { for (key, row) in shown(rows) { latest?[key] = row.after } }
                // Noted before the refresh, so that the rows the consumer saw are named as
                // they were, as on the path without a diff.
                note(silent)
                engine.refresh(silent)
                guard !changed.isEmpty else { continue }
                note(changed)
                let applied: QueryChange?
                if CommitPath.cheaper(touched: changed.count, results: engine.count) == .rowByRow {
                    applied = engine.apply(touched: changed)
                } else {
                    (engine, applied) = engine.resorting(touched: changed)
                }
                if let applied, applied.changesCounts { countsMayChange = true }
            case let .replace(query, rows, _):
                if replaced == nil { replaced = engine }
                if !resyncing {
                    // The rows the consumer saw of every key it shows, read in one go before
                    // the steps settle (the loader takes them back through the steps). After
                    // a resync, commits went by unread: the rows are what the cache held.
                    let unnoted = old.lazy.flatMap(\.items).filter { seen.index(forKey: $0) == nil }
                    // Whole results: one scan, as a re-fetch reads them; a window: its keys.
                    let read = window == nil ? scanner?(engine.query) ?? engine.rows(forKeys: Array(unnoted)) : engine.rows(forKeys: Array(unnoted))
                    for key in unnoted { seen[key] = .some(read[key]) }
                }
                engine = makeEngine(query: query, rows: rows)
                latest = Dictionary(rows.lazy.map { (query.key(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
                mustDiff = true
                countsMayChange = true
            case let .userEdits(stepEdits):
                edits += stepEdits
            case let .window(tracker):
                // From no window to one, the counts start over (read when the consumer
                // likes); from one window to another, a commit's new counts still travel.
                if window == nil { countsSeen = nil }
                window = tracker
                mustDiff = true
            case .resync:
                break
            }
        }
        // The engine holds every step: rows read from here on are as of them.
        settle()
        /// The row the consumer saw of a key no commit among the steps touched, when a
        /// resync's re-fetch may have changed it unseen: what the old engine's cache held;
        /// `.some(nil)`: not known.
        func seenBeforeResync(_ key: Value) -> [Value]?? {
            guard resyncing, let replaced else { return nil }
            return .some(replaced.heldRow(forKey: key))
        }
        let now: [ListSection<Value, Value>]
        if var tracker = window {
            now = tracker.place(in: engine)
            tracker.shown = now
            window = tracker
            shown = .sections(now)
        } else {
            now = engine.snapshot
            shown = frozenResults()
        }
        guard mustDiff || !edits.isEmpty || !seen.isEmpty else { return nil }
        let entity = (replaced ?? engine).query.entity
        var (change, start) = QueryChange.diff(from: old, editedBy: edits, to: now, isUpdated: { key in
            let before: [Value]
            if let noted = seen[key] {
                guard let noted else { return false }
                before = noted
            } else if let held = seenBeforeResync(key) {
                // Commits went by unread: a row the cache did not hold may have changed.
                guard let held else { return true }
                before = held
            } else {
                return false
            }
            let after: [Value]?
            if let latest { after = latest[key] ?? nil } else { after = self.engine.row(forKey: key) }
            guard let after else { return false }
            // A request bound after the entity gained attributes reads rows with more values.
            return before != Array(after.prefix(before.count))
        }, removedRow: { key in
            if let noted = seen[key] { return noted }
            if let held = seenBeforeResync(key) { return held ?? Self.keyOnly(key, entity: entity) }
            // Still in the results (it left a window), or read below with the others.
            return replaced == nil ? self.engine.row(forKey: key) : nil
        })

        if replaced != nil, !resyncing, var read = change {
            // Keys that left the results untouched by any commit: their rows are the store's.
            let missing = read.group.objectChanges.filter { $0.type == .delete && read.removedRows[$0.item] == nil }.map(\.item)
            if !missing.isEmpty {
                for (key, row) in loader(entity)(missing) { read.removedRows[key] = row }
                change = read
            }
        }
        // The rows that left are reported as objects of the query now: a new request may read
        // other key paths, a row seen before the entity gained attributes has fewer values.
        let reported = engine.query.entity
        if var read = change, !read.removedRows.isEmpty,
           entity != reported || read.removedRows.values.contains(where: { $0.count != reported.attributes.count }) {
            read.removedRows = read.removedRows.mapValues { row in
                let laidOut = reported.row(row, from: entity)
                guard laidOut.count != reported.attributes.count else { return laidOut }
                return Self.keyOnly(entity.keyIndex < row.count ? row[entity.keyIndex] : .null, entity: reported)
            }
            change = read
        }
        if window == nil {
            countsSeen = nil
        } else if countsSeen == nil {
            // A new window: the consumer reads the counts when it likes.
            countsSeen = ResultsCounts(total: engine.count, sections: engine.sectionInfos())
        } else if countsMayChange {
            let counts = ResultsCounts(total: engine.count, sections: engine.sectionInfos())
            if counts != countsSeen {
                countsSeen = counts
                if change == nil { change = QueryChange() }
                change?.counts = counts
            }
        }
        if change?.describeAttributeChanges(for: engine.query.attributeRelevance, rows: { key in
            (seen[key] ?? nil, self.engine.row(forKey: key))
        }) == false {
            change = nil
        }
        // Without edits the change starts from what was shown (kept frozen, not as arrays).
        if change != nil { previousShown = edits.isEmpty ? oldShown : .sections(start) }
        return change
    }
}
