extension Store {
    /// The committed rows a query selects, in order, read on the reading connection (so a
    /// transaction in progress on this store is not seen).
    func fetchCommittedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] {
        do {
            let statement = try reader.prepare(query.selectSQL)
            try statement.bind(query.predicate.arguments)
            var rows: [[Value]] = []
            let attributes = query.entity.attributes
            while try statement.step() {
                rows.append(attributes.indices.map { statement.column($0, as: attributes[$0].type) })
            }
            return rows
        } catch {
            throw .database(error)
        }
    }
}
