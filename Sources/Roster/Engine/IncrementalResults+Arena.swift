@_spi(RosterEngine) import RosterUpdates

extension IncrementalResults {
    /// What the engine keeps of each row: its key and its sort values (the key excepted),
    /// in columns indexed by id (``ValueColumn``: 8 bytes a value for numbers, 16 for
    /// strings).
    final class Arena {
        let query: BoundQuery
        /// For each sort key: where its value is — `nil` for the key itself (read from
        /// ``keys``), else its column in ``sortColumns``.
        let slots: [Int?]
        // Read at every comparison of a tree search (millions in a bulk commit): the
        // dynamic exclusivity check of each read was 10 % of it. No access to them ever
        // overlaps another (the arena is used from one thread, and no method holds one
        // across a call that writes them), so the check is off for these two.
        @exclusivity(unchecked) private(set) var keys: ValueColumn
        @exclusivity(unchecked) private var sortColumns: [ValueColumn]
        /// The sort's columns in order (the key's where the key is) and their directions:
        /// what comparing two rows walks, without looking up slots.
        @exclusivity(unchecked) private var order: [(column: ValueColumn, ascending: Bool)] = []
        private var index = KeyIndex()
        var freeIDs: [Int32] = []
        /// The frozen orders that read this arena's keys (``FrozenOrder``).
        let generations = FrozenGenerations()
        /// Ids released while a frozen order that may list them lives, with the latest
        /// generation at their release: their keys stay until no frozen order of that
        /// generation or older does.
        private var quarantined: [(generation: Int, id: Int32)] = []
        private var quarantineStart = 0
        /// The section value the probe id (-1) stands for.
        var probeSection: Value = .null

        init(query: BoundQuery) {
            self.query = query
            var slots: [Int?] = []
            var columns: [ValueColumn] = []
            let attributes = query.entity.attributes
            for index in query.sort.attributeIndexes {
                if index == query.entity.keyIndex {
                    slots.append(nil)
                } else {
                    slots.append(columns.count)
                    columns.append(ValueColumn(type: attributes[index].type))
                }
            }
            self.slots = slots
            keys = ValueColumn(type: attributes[query.entity.keyIndex].type)
            sortColumns = columns
            noteOrder()
        }

        private func noteOrder() {
            order = slots.indices.map { position in
                (slots[position].map { sortColumns[$0] } ?? keys, query.sort.ascending[position])
            }
        }

        /// How many ids there are, free ones included.
        var capacity: Int { keys.count }

        /// Takes the rows of a fetch, in order (row *i* becomes id *i*), with each key's
        /// `hashValue` (its low 32 bits), into an empty arena, and indexes the keys in a table sized for them.
        func adopt(keys: ValueColumn, sortColumns: [ValueColumn], keyHashes: [UInt32]) {
            precondition(self.keys.count == 0, "only an empty arena adopts a fetch")
            precondition(sortColumns.count == self.sortColumns.count && sortColumns.allSatisfy { $0.count == keys.count } && keyHashes.count == keys.count,
                         "a row needs its key, its hash and one value per sort key")
            self.keys = keys
            self.sortColumns = sortColumns
            noteOrder()
            index.insertAll(hashes: keyHashes)
        }

        func allocate(_ row: [Value]) -> Int32 {
            let key = query.key(of: row)
            if quarantineStart < quarantined.count { freeQuarantined() }
            let id: Int32
            if let free = freeIDs.popLast() {
                id = free
                keys[Int(id)] = key
                for (position, slot) in slots.enumerated() {
                    if let slot { sortColumns[slot][Int(id)] = row[query.sort.attributeIndexes[position]] }
                }
            } else {
                id = Int32(keys.count)
                keys.append(key)
                for (position, slot) in slots.enumerated() {
                    if let slot { sortColumns[slot].append(row[query.sort.attributeIndexes[position]]) }
                }
            }
            index.insert(id, key: key, keyOf: { self.keys[Int($0)] })
            return id
        }

        /// Replaces the sort values of row `id` with those of `row`, which has the same key.
        func replaceSortValues(_ id: Int32, with row: [Value]) {
            for (position, slot) in slots.enumerated() {
                if let slot { sortColumns[slot][Int(id)] = row[query.sort.attributeIndexes[position]] }
            }
        }

        /// The id of the row with this key, if it is in the results.
        func id(forKey key: Value) -> Int32? {
            index.id(for: key, keyOf: { self.keys[Int($0)] })
        }

        /// The ids of the rows with these keys, in order, -1 for a key not in the results:
        /// ``id(forKey:)`` of each, with the look-ups' cache misses overlapped.
        func ids(forKeys keys: [Value]) -> [Int32] {
            index.ids(for: keys, keyOf: { self.keys[Int($0)] })
        }

        func release(_ id: Int32) {
            index.remove(key: keys[Int(id)], keyOf: { self.keys[Int($0)] })
            for slot in sortColumns.indices { sortColumns[slot].clear(at: Int(id)) }
            if generations.oldestLive != nil {
                // A frozen order may list it: its key stays, and the id waits.
                quarantined.append((generations.latest, id))
            } else {
                keys.clear(at: Int(id))
                freeIDs.append(id)
            }
        }

        /// Frees the quarantined ids no living frozen order lists.
        private func freeQuarantined() {
            let oldest = generations.oldestLive
            while quarantineStart < quarantined.count {
                let (generation, id) = quarantined[quarantineStart]
                if let oldest, generation >= oldest { break }
                keys.clear(at: Int(id))
                freeIDs.append(id)
                quarantineStart += 1
            }
            if quarantineStart == quarantined.count {
                quarantined.removeAll(keepingCapacity: true)
                quarantineStart = 0
            }
        }

        /// The value of sort key `position` for row `id`.
        @inline(__always)
        func sortValue(_ id: Int32, _ position: Int) -> Value {
            guard let slot = slots[position] else { return keys[Int(id)] }
            return sortColumns[slot][Int(id)]
        }

        /// The section name of row `id` (the first sort value of a sectioned query).
        func sectionName(_ id: Int32) -> Value {
            query.sectionIndex == nil ? .null : sortValue(id, 0)
        }

        /// Compares two rows by the query's sort.
        func compare(_ a: Int32, _ b: Int32) -> Int {
            order.withUnsafeBufferPointer { order in
                for (column, ascending) in order {
                    let result = column.compare(Int(a), Int(b))
                    if result != 0 { return ascending ? result : -result }
                }
                return 0
            }
        }

        /// Compares row `id` with a complete row.
        func compare(_ id: Int32, _ row: [Value]) -> Int {
            let ascending = query.sort.ascending
            for (position, index) in query.sort.attributeIndexes.enumerated() {
                let order = Value.compare(sortValue(id, position), row[index])
                if order != 0 { return ascending[position] ? order : -order }
            }
            return 0
        }

        /// What is known of a row without loading it: its key and sort values, other values null.
        func partialRow(_ id: Int) -> [Value] {
            var row = [Value](repeating: .null, count: query.entity.attributes.count)
            for (position, index) in query.sort.attributeIndexes.enumerated() {
                row[index] = sortValue(Int32(id), position)
            }
            return row
        }
    }
}

/// Complete rows of a live query's results, loaded on demand a batch at a time and kept
/// within a bound (least recently used out first, by the package's one ``LRUCache``).
final class RowCache {
    /// How many rows one load fetches around the one asked for (like `fetchBatchSize`).
    static let batchSize = 64
    var capacity: Int { rows.capacity }
    /// How many rows it holds.
    var count: Int { rows.count }
    private let loader: ([Value]) -> [Value: [Value]]
    private var rows: LRUCache<Value, [Value]>

    init(capacity: Int, loader: @escaping ([Value]) -> [Value: [Value]]) {
        rows = LRUCache(capacity: max(capacity, 1))
        self.loader = loader
    }

    func row(forKey key: Value) -> [Value]? { rows.value(for: key) }

    func store(_ row: [Value], forKey key: Value) { rows.insert(row, for: key) }

    func remove(_ key: Value) { rows.removeValue(for: key) }

    /// Replaces the cached row with this key, if there is one.
    func replace(_ row: [Value], forKey key: Value) { rows.replaceValue(row, for: key) }

    /// The rows for these keys: cached ones, and the rest loaded in one go (only the
    /// last `capacity` of them are kept).
    func rows(for keys: [Value]) -> [Value: [Value]] {
        var result: [Value: [Value]] = [:]
        var missing: [Value] = []
        for key in keys {
            if let row = rows.peek(key) { result[key] = row } else { missing.append(key) }
        }
        guard !missing.isEmpty else { return result }
        for (key, row) in loader(missing) {
            result[key] = row
        }
        for key in missing.suffix(capacity) {
            if let row = result[key] { store(row, forKey: key) }
        }
        return result
    }
}
