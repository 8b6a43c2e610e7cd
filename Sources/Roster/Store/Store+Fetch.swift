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

    /// How many of a query's committed results sort before `row`.
    func committedRank(of row: [Value], in query: BoundQuery) throws(StoreError) -> Int {
        try storage.committedRank(of: row, in: query)
    }

    /// The keys and sort values of a query's committed results, in order.
    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan {
        try storage.orderedScan(query)
    }
}
