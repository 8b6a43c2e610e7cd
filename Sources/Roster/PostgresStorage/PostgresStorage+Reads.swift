#if PostgreSQL
/// Reads of committed state, on the reading connection: what live queries fetch.
extension PostgresStorage {
    func committedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] {
        let server = ServerQuery(query)
        let rows = try readRows(server.select(), server.arguments, entity: query.entity)
        return server.isFilteredInSwift ? rows.filter(query.predicate.evaluate) : rows
    }

    func committedRows(_ query: BoundQuery, ranks: Range<Int>) throws(StoreError) -> [[Value]] {
        let server = ServerQuery(query)
        guard !server.isFilteredInSwift else {
            let rows = try committedRows(query)
            return Array(rows[min(ranks.lowerBound, rows.count)..<min(ranks.upperBound, rows.count)])
        }
        let bounds: [Value] = [.integer(Int64(ranks.count)), .integer(Int64(ranks.lowerBound))]
        return try readRows(server.select(window: true), server.arguments + bounds, entity: query.entity)
    }

    /// The rows above and below `row` in the query's results. The server reads the whole
    /// results and picks them (windows over PostgreSQL are not yet read by ranges).
    func committedNeighbours(of row: [Value], in query: BoundQuery, before: Int, after: Int) throws(StoreError) -> (above: [[Value]], below: [[Value]]) {
        let rows = try committedRows(query)
        let (before, after) = (max(before, 0), max(after, 0))
        // By the row's sort values (the key among them), wherever its key stands now.
        let place = rows.firstIndex { query.sort.compare($0, row) >= 0 } ?? rows.count
        let below = place < rows.count && query.sort.compare(rows[place], row) == 0 ? place + 1 : place
        return (Array(rows[max(place - before, 0)..<place]), Array(rows[below..<min(below + after, rows.count)]))
    }

    /// The server's neighbours come from the whole results (see above).
    var readsNeighboursByRange: Bool { false }

    func hasIndex(serving query: BoundQuery) throws(StoreError) -> Bool {
        try reading { connection throws(ServerError) in
            try connection.query("SELECT to_regclass($1) IS NOT NULL", [.string(names.qualified(sortIndexName(query)))]).text(0, 0) == "t"
        }
    }

    func createIndex(serving query: BoundQuery) throws(StoreError) {
        guard !isInTransaction else { throw .transaction("an index is created outside a transaction") }
        guard !query.sort.attributeIndexes.contains(where: { $0 >= query.entity.storedAttributeCount }) else {
            throw .invalidWindow("no index can serve an order by a key path: it reads another entity's table")
        }
        let sql = "CREATE INDEX IF NOT EXISTS \(Identifier.quoted(sortIndexName(query))) ON \(names.table(query.entity.name))(\(ServerQuery.orderBy(query.sort, entity: query.entity)))"
        try writing { connection throws(ServerError) in try connection.execute(sql) }
    }

    /// The name of the index that serves a query's order: by its columns and directions.
    private func sortIndexName(_ query: BoundQuery) -> String {
        let signature = zip(query.sort.attributeIndexes, query.sort.ascending).map { "\($0.0)\($0.1 ? "a" : "d")" }.joined(separator: "_")
        return "_roster_sort_\(query.entity.name)_\(signature)"
    }

    func committedRows(of entity: Entity, whereColumn column: String, in values: [Value]) throws(StoreError) -> [[Value]] {
        var rows: [[Value]] = []
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        var start = 0
        while start < values.count {
            let chunk = Array(values[start..<min(start + 1_000, values.count)])
            start += chunk.count
            let list = chunk.indices.map { "$\($0 + 1)::\(ServerQuery.castType(of: chunk[$0]))" }.joined(separator: ", ")
            let sql = "SELECT \(columns) FROM \(entity.readSource) WHERE \(Identifier.quoted(column)) IN (\(list))"
            rows += try readRows(sql, chunk, entity: entity)
        }
        return rows
    }

    func committedRows(of entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]] {
        let rows = try committedRows(of: entity, whereColumn: entity.key.name, in: keys)
        return Dictionary(rows.map { ($0[entity.keyIndex], $0) }, uniquingKeysWith: { first, _ in first })
    }

    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan {
        let types = query.orderColumns.map { query.entity.attributes[$0].type }
        var scan = OrderedScan(keyType: types[0], sortTypes: Array(types.dropFirst()))
        let notesRuns = query.sectionIndex != nil && scan.width > 0
        var previous = [Value](repeating: .null, count: scan.width)
        func add(_ values: [Value]) {
            var firstIsNew = scan.keys.count == 0
            scan.keys.append(values[0])
            scan.keyHashes.append(UInt32(truncatingIfNeeded: values[0].hashValue))
            for position in previous.indices {
                let value = values[position + 1]
                let isSame = scan.keys.count > 1 && value == previous[position]
                if position == 0 && !isSame { firstIsNew = true }
                if isSame { scan.sortColumns[position].appendRepeatingLast() } else { scan.sortColumns[position].append(value) }
                previous[position] = value
            }
            if firstIsNew && notesRuns { scan.firstValueRuns.append(scan.keys.count - 1) }
        }
        let server = ServerQuery(query)
        if server.isFilteredInSwift {
            for row in try committedRows(query) { add(query.orderColumns.map { row[$0] }) }
            return scan
        }
        let columns = query.orderColumns.map { Identifier.quoted(query.entity.attributes[$0].name) }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(query.entity.readSource) WHERE \(server.condition) ORDER BY \(ServerQuery.orderBy(query.sort, entity: query.entity))"
        let rows = try reading { connection throws(ServerError) in try connection.query(sql, server.arguments) }
        var values = [Value](repeating: .null, count: types.count)
        for row in 0..<rows.count {
            for column in types.indices { values[column] = rows.value(row, column, as: types[column]) }
            add(values)
        }
        return scan
    }

    func forEachCommittedRow(_ query: BoundQuery, reading attributes: Set<Int>, _ body: ([Value]) -> Void) throws(StoreError) {
        let server = ServerQuery(query)
        if server.isFilteredInSwift {
            for row in try committedRows(query) { body(row) }
            return
        }
        let entity = query.entity
        let read = attributes.sorted()
        let columns = read.isEmpty ? "1" : read.map { Identifier.quoted(entity.attributes[$0].name) }.joined(separator: ", ")
        let rows = try reading { connection throws(ServerError) in
            try connection.query("SELECT \(columns) FROM \(entity.readSource) WHERE \(server.condition)", server.arguments)
        }
        var row = [Value](repeating: .null, count: entity.attributes.count)
        for index in 0..<rows.count {
            for (column, attribute) in read.enumerated() { row[attribute] = rows.value(index, column, as: entity.attributes[attribute].type) }
            body(row)
        }
    }

    /// Every row of a `SELECT` of the entity's attributes, in order.
    func readRows(_ sql: String, _ arguments: [Value], entity: Entity) throws(StoreError) -> [[Value]] {
        let rows = try reading { connection throws(ServerError) in try connection.query(sql, arguments) }
        let attributes = entity.attributes
        return (0..<rows.count).map { row in attributes.indices.map { rows.value(row, $0, as: attributes[$0].type) } }
    }
}
#endif
