import RosterUpdates

/// A query's results as a sorted array of whole rows, replaced whole and diffed.
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

    struct SectionStart: Sendable {
        let name: Value
        let start: Int
    }

    init(query: BoundQuery, rows: [[Value]]) {
        self.query = query
        setRows(rows)
    }

    // MARK: Changes

    /// Stores new values of rows that keep their place: only attributes that neither sort,
    /// section nor filter them changed. Rows of keys not in the results are ignored.
    mutating func refresh(_ newRows: [Value: [Value]]) {
        for (key, row) in newRows {
            guard let path = indexPath(for: key) else { continue }
            rows[sectionStarts[path.section].start + path.item] = row
            rowByKey[key] = row
        }
    }

    /// Replaces the query and its results (after a re-fetch, or a sort or predicate
    /// change): the difference between the old and the new, objects whose stored values
    /// differ from what was held being updates.
    ///
    /// - Returns: the change, or nil when the results did not change.
    mutating func replace(query newQuery: BoundQuery, rows newRows: [[Value]]) -> QueryChange? {
        let old = snapshot
        let oldRowByKey = rowByKey
        query = newQuery
        setRows(newRows)
        let newRowByKey = rowByKey
        return QueryChange.diff(from: old, to: snapshot, isUpdated: { key in
            guard let before = oldRowByKey[key], let after = newRowByKey[key] else { return false }
            return before != after
        }, removedRow: { oldRowByKey[$0] }).change
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
    var snapshot: [ListSection<Value, Value>] {
        Self.snapshot(rows: rows, starts: sectionStarts, keyIndex: query.entity.keyIndex)
    }

    private static func snapshot(rows: [[Value]], starts: [SectionStart], keyIndex: Int) -> [ListSection<Value, Value>] {
        starts.indices.map { index in
            let end = index + 1 < starts.count ? starts[index + 1].start : rows.count
            return ListSection(id: starts[index].name, items: rows[starts[index].start..<end].map { $0[keyIndex] })
        }
    }

    /// The rows of section `index`, as a range of `rows`.
    func sectionRange(_ index: Int) -> Range<Int> {
        precondition(index >= 0 && index < sectionStarts.count, "section \(index) is outside the results (\(sectionStarts.count) sections)")
        let end = index + 1 < sectionStarts.count ? sectionStarts[index + 1].start : rows.count
        return sectionStarts[index].start..<end
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
