/// Reads of committed state, on the reading connection: what live queries fetch.
extension SQLiteStorage {
    func committedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]] {
        do { return try rows(of: query.entity, from: query.selectSQL, binding: query.predicate.arguments) } catch { throw .database(error) }
    }

    func committedRows(_ query: BoundQuery, ranks: Range<Int>) throws(StoreError) -> [[Value]] {
        let bounds: [Value] = [.integer(Int64(ranks.count)), .integer(Int64(ranks.lowerBound))]
        do { return try rows(of: query.entity, from: query.windowSQL, binding: query.predicate.arguments + bounds) } catch { throw .database(error) }
    }

    /// Every row a `SELECT` of the entity's attributes, in order, gives; `cached` keeps the
    /// statement for the next call (the few that every commit to a cold window runs).
    private func rows(of entity: Entity, from sql: String, binding values: [Value], cached: Bool = false) throws(DatabaseError) -> [[Value]] {
        let statement = try cached ? cachedReaderStatement(sql) : reader.prepare(sql)
        defer { if cached { statement.reset() } }
        try statement.bind(values)
        var rows: [[Value]] = []
        let attributes = entity.attributes
        while try statement.step() {
            rows.append(attributes.indices.map { statement.column($0, as: attributes[$0].type) })
        }
        return rows
    }

    /// Two range reads of the order's index at most (a few more for a sort of several keys).
    var readsNeighboursByRange: Bool { true }

    func committedNeighbours(of row: [Value], in query: BoundQuery, before: Int, after: Int) throws(StoreError) -> (above: [[Value]], below: [[Value]]) {
        var above: [[Value]] = []
        var below: [[Value]] = []
        let sortValues = query.sort.sortKey(of: row)
        do {
            for (isAfter, limit) in [(false, before), (true, after)] {
                var rows: [[Value]] = []
                for (sql, values) in query.neighbourSelects(of: sortValues, after: isAfter) where rows.count < limit {
                    rows += try self.rows(of: query.entity, from: sql, binding: query.predicate.arguments + values + [.integer(Int64(limit - rows.count))],
                                          cached: true)
                }
                if isAfter { below = rows } else { above = rows.reversed() }
            }
        } catch {
            throw .database(error)
        }
        return (above, below)
    }

    func committedRows(of entity: Entity, whereColumn column: String, in values: [Value]) throws(StoreError) -> [[Value]] {
        var rows: [[Value]] = []
        try forEachRow(of: entity, where: column, in: values) { rows.append($0) }
        return rows
    }

    func committedRows(of entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]] {
        var rows: [Value: [Value]] = [:]
        rows.reserveCapacity(keys.count)
        try forEachRow(of: entity, where: entity.key.name, in: keys) { rows[$0[entity.keyIndex]] = $0 }
        return rows
    }

    /// Steps `SELECT` of the entity's attributes `WHERE column IN (values)`, 500 values a
    /// statement (under SQLite's default limit of bound parameters), handing `body` each row.
    private func forEachRow(of entity: Entity, where column: String, in values: [Value], _ body: ([Value]) -> Void) throws(StoreError) {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        var start = 0
        do {
            while start < values.count {
                let chunk = Array(values[start..<min(start + 500, values.count)])
                start += chunk.count
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let statement = try cachedReaderStatement("SELECT \(columns) FROM \(entity.readSource) WHERE \(Identifier.quoted(column)) IN (\(placeholders))")
                defer { statement.reset() }
                try statement.bind(chunk)
                while try statement.step() {
                    body(entity.attributes.indices.map { statement.column($0, as: entity.attributes[$0].type) })
                }
            }
        } catch {
            throw .database(error)
        }
    }

    func forEachCommittedRow(_ query: BoundQuery, reading attributes: Set<Int>, _ body: ([Value]) -> Void) throws(StoreError) {
        let entity = query.entity
        let read = attributes.sorted()
        let columns = read.isEmpty ? "1" : read.map { Identifier.quoted(entity.attributes[$0].name) }.joined(separator: ", ")
        var row = [Value](repeating: .null, count: entity.attributes.count)
        do {
            let statement = try reader.prepare("SELECT \(columns) FROM \(entity.readSource) WHERE \(query.predicate.sql)")
            try statement.bind(query.predicate.arguments)
            while try statement.step() {
                for (column, index) in read.enumerated() { row[index] = statement.column(column, as: entity.attributes[index].type) }
                body(row)
            }
        } catch {
            throw .database(error)
        }
    }

    /// Steps ``BoundQuery/orderSQL`` (the key, then the other sort values), which an index
    /// on the sort serves without touching the rows.
    ///
    /// This is the whole of `performFetch` at a million rows, so it stays close to
    /// SQLite's buffers: a sort value byte-for-byte equal to the previous row's is kept
    /// rather than built again (``Statement/column(_:as:reusing:)``), and each key's hash
    /// is taken as it is read.
    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan {
        let types = query.orderColumns.map { query.entity.attributes[$0].type }
        var scan = OrderedScan(keyType: types[0], sortTypes: Array(types.dropFirst()))
        // Only a sectioned query needs to know where its first sort value changes.
        let notesRuns = query.sectionIndex != nil && scan.width > 0
        var previous = [Value](repeating: .null, count: scan.width)
        do {
            let statement = try reader.prepare(query.orderSQL)
            try statement.bind(query.predicate.arguments)
            while try statement.step() {
                let (key, hash) = statement.columnWithHash(0, as: types[0])
                var firstIsNew = scan.keys.count == 0
                scan.keys.append(key)
                scan.keyHashes.append(UInt32(truncatingIfNeeded: hash))
                for position in previous.indices {
                    let (value, isSame) = statement.column(position + 1, as: types[position + 1], reusing: previous[position])
                    if position == 0 && !isSame { firstIsNew = true }
                    previous[position] = value
                    if isSame && scan.keys.count > 1 {
                        scan.sortColumns[position].appendRepeatingLast()
                    } else {
                        scan.sortColumns[position].append(value)
                    }
                }
                if firstIsNew && notesRuns { scan.firstValueRuns.append(scan.keys.count - 1) }
            }
        } catch {
            throw .database(error)
        }
        return scan
    }
}
