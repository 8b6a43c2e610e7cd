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

extension Store {
    /// The committed rows of these keys (those that exist), read on the reading connection.
    func fetchCommittedRows(_ entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]] {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        var rows: [Value: [Value]] = [:]
        var start = 0
        do {
            while start < keys.count {
                let chunk = Array(keys[start..<min(start + 500, keys.count)])
                start += chunk.count
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let statement = try reader.prepare("SELECT \(columns) FROM \(Identifier.quoted(entity.name)) WHERE \(Identifier.quoted(entity.key.name)) IN (\(placeholders))")
                try statement.bind(chunk)
                while try statement.step() {
                    let row = entity.attributes.indices.map { statement.column($0, as: entity.attributes[$0].type) }
                    rows[row[entity.keyIndex]] = row
                }
            }
        } catch {
            throw .database(error)
        }
        return rows
    }
}

extension Store {
    /// Runs SQL with the query's arguments and hands each row to `body` as the live
    /// statement, without building rows.
    func forEachCommittedRow(_ sql: String, arguments: [Value], _ body: (Statement) -> Void) throws(StoreError) {
        do {
            let statement = try reader.prepare(sql)
            try statement.bind(arguments)
            while try statement.step() { body(statement) }
        } catch {
            throw .database(error)
        }
    }
}
