/// Indexes that serve a query's order: what lets a window open without reading every row.
extension SQLiteStorage {
    func hasIndex(serving query: BoundQuery) throws(StoreError) -> Bool {
        do {
            // SQLite's plan says "USE TEMP B-TREE FOR ORDER BY" (or "FOR RIGHT PART OF
            // ORDER BY") when no index gives the rows in order.
            let statement = try writer.prepare("EXPLAIN QUERY PLAN " + query.orderSQL)
            try statement.bind(query.predicate.arguments)
            while try statement.step() {
                if case let .string(detail) = statement.column(3), detail.contains("TEMP B-TREE FOR") && detail.contains("ORDER BY") {
                    return false
                }
            }
            return true
        } catch {
            throw .database(error)
        }
    }

    func createIndex(serving query: BoundQuery) throws(StoreError) {
        guard !isInTransaction else { throw .transaction("an index is created outside a transaction") }
        let sort = query.sort
        // A sort on a key path reads another table: no index on this one serves it.
        guard !sort.attributeIndexes.contains(where: { $0 >= query.entity.storedAttributeCount }) else {
            throw .invalidWindow("no index can serve an order by a key path (\(sort.orderBySQL)): it reads another entity's table")
        }
        // Named by its columns and directions, so that asking twice creates one index.
        let signature = zip(sort.attributeIndexes, sort.ascending).map { "\($0.0)\($0.1 ? "a" : "d")" }.joined(separator: "_")
        let name = Identifier.quoted("\(query.entity.name)_roster_sort_\(signature)")
        let sql = "CREATE INDEX IF NOT EXISTS \(name) ON \(Identifier.quoted(query.entity.name))(\(sort.orderBySQL))"
        do {
            // Under the write lock, so that no other schema change falls between the reads.
            try writer.execute("BEGIN IMMEDIATE")
            let versionBefore = try writer.schemaVersion()
            try writer.execute(sql)
            let versionAfter = try writer.schemaVersion()
            try writer.execute("COMMIT")
            // The store's own change is no news to its schema check.
            if versionBefore == knownSchemaVersion { knownSchemaVersion = versionAfter }
        } catch {
            if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
            throw .database(error)
        }
    }
}
