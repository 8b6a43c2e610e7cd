/// What live queries read: the committed state, never an open transaction's writes.
extension Store {
    /// The committed rows a query selects, in order.
    func fetchCommittedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] {
        try storage.committedRows(query)
    }

    /// The committed rows of these keys (those that exist).
    func fetchCommittedRows(_ entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]] {
        try storage.committedRows(of: entity, keys: keys)
    }

    /// The committed rows of a range of ranks of a query's results (a window), in order.
    func fetchCommittedRows(_ query: BoundQuery, ranks: Range<Int>) throws(StoreError) -> [[Value]] {
        try storage.committedRows(query, ranks: ranks)
    }

    /// Up to `before` committed results just above `row` and `after` just below it, in order.
    func committedNeighbours(of row: [Value], in query: BoundQuery, before: Int, after: Int) throws(StoreError) -> (above: [[Value]], below: [[Value]]) {
        try storage.committedNeighbours(of: row, in: query, before: before, after: after)
    }

    /// The keys and sort values of a query's committed results, in order.
    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan {
        try storage.orderedScan(query)
    }

    /// The query's aggregates over its committed results (nil when it has none), read in
    /// the current read transaction.
    func fetchAggregates(_ query: BoundQuery) throws(StoreError) -> AggregateTracker? {
        guard var tracker = AggregateTracker(query: query), let aggregates = query.aggregates else { return nil }
        var read = aggregates.referencedAttributes
        if let section = query.sectionIndex { read.insert(section) }
        try storage.forEachCommittedRow(query, reading: read) { tracker.include($0) }
        return tracker
    }

    /// Whether an index serves the request's order: then a window over its results
    /// (``ResultsWindow``) opens without sorting every row, and its first window reads only
    /// about as many index entries as the rows before it. Without one, SQLite sorts the
    /// whole results to find the window (it still reads only the window's whole rows).
    ///
    /// - Throws: ``StoreError`` when the request does not fit the store.
    public func hasIndex(serving request: FetchRequest) throws -> Bool {
        try storage.hasIndex(serving: bind(request))
    }

    /// Creates an index that serves the request's order (its sort keys with their
    /// directions, the section attribute first, then the key), unless it exists. A store
    /// never creates one unasked: an index costs every write.
    ///
    /// - Throws: ``StoreError`` when the request does not fit the store, or inside a
    ///   transaction (``StoreError/Code/transaction``).
    public func createIndex(serving request: FetchRequest) throws {
        try storage.createIndex(serving: bind(request))
    }
}
