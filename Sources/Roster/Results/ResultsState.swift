import RosterUpdates

/// A live query's results and the rules that move them from one state to the next.
///
/// `ResultsState` is a value: the re-fetch-and-diff engine (``RefetchingResults``) keeps
/// one and feeds it each re-fetch; it reports the change group it returns. It never
/// touches the database.
struct ResultsState: Sendable {
    /// The query, bound to its entity.
    private(set) var query: BoundQuery
    /// The results: rows in order.
    private(set) var rows: [[Value]] = []
    /// The rows by key.
    private(set) var rowByKey: [Value: [Value]] = [:]
    /// Where each section starts in `rows`, and its name.
    private(set) var sectionStarts: [SectionStart] = []
    /// Edits the user already made on screen, to be taken into account by the next change.
    var pendingUserEdits: [UserEdit] = []

    struct SectionStart: Sendable {
        let name: Value
        let start: Int
    }

    init(query: BoundQuery, rows: [[Value]]) {
        self.query = query
        setRows(rows)
    }

    // MARK: Changes

    /// Replaces the query and its results (after a sort or predicate change, or a re-fetch).
    /// Objects whose stored values differ from what was held are updates.
    mutating func replace(query newQuery: BoundQuery, rows newRows: [[Value]]) -> ResultsDelta? {
        apply([.replace(newQuery, newRows)])
    }

    /// Applies several steps in order and reports them as one change: the difference
    /// between the results before the first step (as the user left them, with
    /// ``pendingUserEdits``) and after the last. This is how ``LiveResults`` coalesces
    /// commits that arrived while its consumer was busy.
    ///
    /// - Returns: the change, or nil when the results did not change.
    mutating func apply(_ steps: [ResultsStep]) -> ResultsDelta? {
        let baselineRows = rows
        let baselineRowByKey = rowByKey
        let baselineStarts = sectionStarts
        let baselineKeyIndex = query.entity.keyIndex
        var candidates: Set<Value>? = []  // keys whose rows may have changed; nil means any
        var edits = pendingUserEdits
        var changedRows = false
        for step in steps {
            switch step {
            case let .touched(touched):
                if absorb(touched: touched.mapValues(\.after)) {
                    changedRows = true
                    candidates?.formUnion(touched.keys)
                }
            case let .replace(newQuery, newRows):
                query = newQuery
                setRows(newRows)
                changedRows = true
                candidates = nil
            case let .userEdits(newEdits):
                edits.append(contentsOf: newEdits)
            case .resync:
                assertionFailure("a resync step must be replaced by a re-fetch before it is applied")
            }
        }
        pendingUserEdits = []
        guard changedRows || !edits.isEmpty else { return nil }
        var old = Self.snapshot(rows: baselineRows, starts: baselineStarts, keyIndex: baselineKeyIndex)
        for edit in edits { edit.apply(to: &old) }
        var updated: Set<Value> = []
        for key in candidates.map(Array.init) ?? Array(rowByKey.keys) {
            if let before = baselineRowByKey[key], let after = rowByKey[key], before != after { updated.insert(key) }
        }
        let group = SnapshotDiff.changes(from: old, to: snapshot, isUpdated: { updated.contains($0) })
        guard !group.isEmpty else { return nil }
        var removedRows: [Value: [Value]] = [:]
        for change in group.objectChanges where change.type == .delete {
            removedRows[change.item] = baselineRowByKey[change.item]
        }
        return ResultsDelta(group: group, oldSnapshot: old, removedRows: removedRows)
    }

    /// Applies touched rows without reporting; returns whether the results changed.
    private mutating func absorb(touched: [Value: [Value]?]) -> Bool {
        var removed: Set<Value> = []
        var added: [[Value]] = []
        // Rows may carry attributes added to the entity after this query was bound: not shown.
        let width = query.entity.attributes.count
        for (key, current) in touched {
            let old = rowByKey[key]
            let new = current.map { $0.count > width ? Array($0.prefix(width)) : $0 }.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            guard old != new else { continue }
            if old != nil { removed.insert(key) }
            if let new { added.append(new) }
        }
        guard !removed.isEmpty || !added.isEmpty else { return false }
        let keyIndex = query.entity.keyIndex
        let kept = removed.isEmpty ? rows : rows.filter { !removed.contains($0[keyIndex]) }
        let sort = query.sort
        added.sort { sort.compare($0, $1) < 0 }
        setRows(Self.merge(kept, added, sort: sort))
        return true
    }

    private static func merge(_ first: [[Value]], _ second: [[Value]], sort: BoundSort) -> [[Value]] {
        guard !second.isEmpty else { return first }
        var merged: [[Value]] = []
        merged.reserveCapacity(first.count + second.count)
        var i = 0
        var j = 0
        while i < first.count, j < second.count {
            if sort.compare(first[i], second[j]) <= 0 {
                merged.append(first[i]); i += 1
            } else {
                merged.append(second[j]); j += 1
            }
        }
        merged.append(contentsOf: first[i...])
        merged.append(contentsOf: second[j...])
        return merged
    }

    private mutating func setRows(_ newRows: [[Value]]) {
        rows = newRows
        let keyIndex = query.entity.keyIndex
        rowByKey = Dictionary(uniqueKeysWithValues: newRows.lazy.map { ($0[keyIndex], $0) })
        sectionStarts = []
        var previous: Value?
        for (index, row) in newRows.enumerated() {
            let name = query.sectionName(of: row)
            if index == 0 || name != previous {
                sectionStarts.append(SectionStart(name: name, start: index))
                previous = name
            }
        }
    }

    // MARK: Reading

    /// The results as sections of keys.
    var snapshot: [Section<Value, Value>] {
        Self.snapshot(rows: rows, starts: sectionStarts, keyIndex: query.entity.keyIndex)
    }

    private static func snapshot(rows: [[Value]], starts: [SectionStart], keyIndex: Int) -> [Section<Value, Value>] {
        starts.indices.map { index in
            let end = index + 1 < starts.count ? starts[index + 1].start : rows.count
            return Section(id: starts[index].name, items: rows[starts[index].start..<end].map { $0[keyIndex] })
        }
    }

    /// The rows of section `index`, as a range of `rows`.
    func sectionRange(_ index: Int) -> Range<Int> {
        precondition(index >= 0 && index < sectionStarts.count, "section \(index) is outside the results (\(sectionStarts.count) sections)")
        let end = index + 1 < sectionStarts.count ? sectionStarts[index + 1].start : rows.count
        return sectionStarts[index].start..<end
    }

    /// The row at an index path.
    func row(at indexPath: IndexPath) -> [Value] {
        let range = sectionRange(indexPath.section)
        precondition(indexPath.item >= 0 && indexPath.item < range.count, "index path \(indexPath) is outside the results")
        return rows[range.lowerBound + indexPath.item]
    }

    /// The index path of the object with this key. O(log n).
    func indexPath(for key: Value) -> IndexPath? {
        guard let row = rowByKey[key] else { return nil }
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if query.sort.compare(rows[middle], row) < 0 { low = middle + 1 } else { high = middle }
        }
        var sectionLow = 0
        var sectionHigh = sectionStarts.count - 1
        while sectionLow < sectionHigh {
            let middle = (sectionLow + sectionHigh + 1) / 2
            if sectionStarts[middle].start <= low { sectionLow = middle } else { sectionHigh = middle - 1 }
        }
        return IndexPath(item: low - sectionStarts[sectionLow].start, section: sectionLow)
    }
}

/// One thing that happened to a live query since its last change was reported.
enum ResultsStep: Sendable {
    /// A commit: the rows of the keys it touched, before and now.
    case touched([Value: TouchedRow])
    /// A new query (sort or predicate change) or a re-fetch, with its rows.
    case replace(BoundQuery, [[Value]])
    /// Moves or deletes the user already made on screen.
    case userEdits([UserEdit])
    /// The change log was pruned past what the query read: it must re-fetch (the owner
    /// turns this into ``replace(_:_:)`` before applying).
    case resync
}

/// What one change did to a live query's results.
struct ResultsDelta: Sendable {
    /// The callbacks.
    let group: ChangeGroup<Value, Value>
    /// The results before the change, as the change's `from` paths see them (with the
    /// user's own edits applied).
    let oldSnapshot: [Section<Value, Value>]
    /// The rows of deleted objects, as they were.
    let removedRows: [Value: [Value]]
}
