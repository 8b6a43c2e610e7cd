import RosterUpdates

/// How a ``ResultsController`` keeps its results current.
public enum ResultsEngineKind: Sendable, Hashable {
    /// Keep the results in an order-statistic tree and work out each commit's change from
    /// the rows it touched: O(k log n) for k touched rows. The default.
    case incremental
    /// Re-run the query after every commit that touches the entity and diff the old
    /// results against the new ones: O(n log n) per commit. The simple path, kept as a
    /// cross-check; it reports exactly the same changes.
    case refetchAndDiff
}

/// The results behind a ``ResultsController``, whichever way they are kept.
protocol ResultsEngine: AnyObject {
    var query: BoundQuery { get }
    var count: Int { get }
    var numberOfSections: Int { get }
    var snapshot: [ListSection<Value, Value>] { get }
    var rows: [[Value]] { get }
    func sectionName(_ index: Int) -> Value
    func sectionRange(_ index: Int) -> Range<Int>
    /// The whole row at a rank; nil when it cannot be read now (see ``RowCache``).
    func row(atRank rank: Int) -> [Value]?
    func row(forKey key: Value) -> [Value]?
    func indexPath(for key: Value) -> IndexPath?
    /// The row with this key as far as it is known without loading it (deleted rows).
    func knownRow(forKey key: Value) -> [Value]?
    /// The whole row with this key as the engine holds it, read from nowhere; nil when it
    /// holds only part of it (or the key is not in the results).
    func heldRow(forKey key: Value) -> [Value]?
    /// The rank of the row with this key, or nil when it is not in the results.
    func rank(ofKey key: Value) -> Int?
    /// The key of the row at a rank.
    func key(atRank rank: Int) -> Value
    /// Every section, in order, with its number of rows.
    func sectionInfos() -> [SectionInfo]
    /// The rows of a range of ranks as sections of keys: the sections they fall in, each
    /// with only its rows in the range. O(log n + the range's size).
    func sections(inRanks ranks: Range<Int>) -> [ListSection<Value, Value>]
    /// Applies the rows of touched keys; the change, or nil when nothing changed.
    ///
    /// - Throws: when a read it needs fails; the results are then as they were.
    func apply(touched: [Value: TouchedRow]) throws(StoreError) -> QueryChange?
    /// Stores the new values of rows that keep their place and their answer (only
    /// attributes that neither sort, section nor filter them changed), reporting nothing:
    /// the silent rows of `AttributeRelevance.separatingSilent(_:for:)`.
    func refresh(_ silent: [Value: TouchedRow])
    /// The change from these results to `new` (the same query, re-fetched), given the rows
    /// the commit touched: which staying rows changed, and the rows of those that left.
    func change(to new: any ResultsEngine, touched: [Value: TouchedRow]) -> QueryChange?
}

extension ResultsEngine {
    /// Diffs whole snapshots of keys.
    func change(to new: any ResultsEngine, touched: [Value: TouchedRow]) -> QueryChange? {
        snapshotChange(to: new, touched: touched)
    }

    /// The change to `new` found by diffing whole snapshots of keys.
    func snapshotChange(to new: any ResultsEngine, touched: [Value: TouchedRow]) -> QueryChange? {
        QueryChange.diff(from: snapshot, to: new.snapshot, isUpdated: { touched[$0]?.isChanged ?? false },
                         removedRow: { touched[$0]?.before ?? self.knownRow(forKey: $0) }).change
    }
}

extension IncrementalResults: ResultsEngine {
    func refresh(_ silent: [Value: TouchedRow]) {
        // Sort values stay, so only a cached whole row changes.
        for (key, row) in silent { if let after = row.after { replaceInPlace(key: key, with: after, caching: false) } }
    }

    /// Diffs by ids when `new` is incremental too (``change(from:to:touched:)``), else whole snapshots.
    func change(to new: any ResultsEngine, touched: [Value: TouchedRow]) -> QueryChange? {
        guard let new = new as? IncrementalResults else { return snapshotChange(to: new, touched: touched) }
        return Self.change(from: self, to: new, touched: touched)
    }
}

/// The simple engine: a sorted array of rows, re-fetched and diffed.
final class RefetchingResults: ResultsEngine {
    private(set) var state: ResultsState
    /// Re-runs the query; set by the controller.
    let refetch: (BoundQuery) throws(StoreError) -> [[Value]]

    init(query: BoundQuery, rows: [[Value]], refetch: @escaping (BoundQuery) throws(StoreError) -> [[Value]]) {
        state = ResultsState(query: query, rows: rows)
        self.refetch = refetch
    }

    var query: BoundQuery { state.query }
    var count: Int { state.rows.count }
    var numberOfSections: Int { state.sectionStarts.count }
    var snapshot: [ListSection<Value, Value>] { state.snapshot }
    var rows: [[Value]] { state.rows }
    func sectionName(_ index: Int) -> Value { state.sectionStarts[index].name }
    func sectionRange(_ index: Int) -> Range<Int> { state.sectionRange(index) }
    func row(atRank rank: Int) -> [Value]? { state.rows[rank] }
    func row(forKey key: Value) -> [Value]? { state.rowByKey[key] }
    func indexPath(for key: Value) -> IndexPath? { state.indexPath(for: key) }
    func knownRow(forKey key: Value) -> [Value]? { state.rowByKey[key] }
    func heldRow(forKey key: Value) -> [Value]? { state.rowByKey[key] }
    func rank(ofKey key: Value) -> Int? { state.indexPath(for: key).map { state.sectionRange($0.section).lowerBound + $0.item } }
    func key(atRank rank: Int) -> Value { state.query.key(of: state.rows[rank]) }
    func sectionInfos() -> [SectionInfo] {
        state.sectionStarts.indices.map { SectionInfo(name: state.sectionStarts[$0].name, numberOfObjects: state.sectionRange($0).count) }
    }
    func sections(inRanks ranks: Range<Int>) -> [ListSection<Value, Value>] {
        let query = state.query
        return ListSection.grouping(state.rows[ranks].lazy.map { (key: query.key(of: $0), section: query.sectionName(of: $0)) })
    }

    func apply(touched: [Value: TouchedRow]) throws(StoreError) -> QueryChange? {
        state.replace(query: state.query, rows: try refetch(state.query))
    }

    func refresh(_ silent: [Value: TouchedRow]) {
        state.refresh(silent.compactMapValues(\.after))
    }
}
