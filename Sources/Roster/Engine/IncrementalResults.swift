import RosterUpdates

/// A live query's results kept in an order-statistic tree, so that a commit that touches
/// *k* rows costs O(*k* log *n*) — the positions, the sections and the moves — however
/// many rows the results hold.
///
/// Only what ordering needs stays in memory: each row's key and its sort values, in an
/// arena indexed by small integer ids. Whether a touched row's other values changed comes
/// with the change itself (``TouchedRow``: the change log keeps before-images), so the
/// results need nothing else of a row. The tree orders ids by the query's sort (which
/// ends with the key, so no two rows tie); a second tree holds the section names in
/// order. Whole objects are loaded on demand, a batch at a time, into a bounded cache
/// (``RowCache``).
///
/// A row's index path comes from its rank: its section is the section name's rank among
/// the names, its item the rank minus where the section starts (found with a probe that
/// sorts before every row of the section). Which rows move is decided like
/// ``SnapshotDiff`` — as few as possible, edited rows rather than untouched ones, the
/// earliest kept on a tie — looking only at the touched rows and the runs of untouched
/// rows between them, which never change order among themselves.
final class IncrementalResults {
    let query: BoundQuery
    let arena: Arena
    private(set) var tree: CountedBTree<Int32>
    private(set) var sectionNames: CountedBTree<Value>
    private(set) var sectionCounts: [Value: Int] = [:]
    let cache: RowCache

    static let probeID: Int32 = -1

    /// - Parameters:
    ///   - rows: the results in order, complete.
    ///   - loader: loads complete rows by key, for objects not in the cache.
    ///   - cacheCapacity: how many whole rows to keep; `.max` keeps them all (and never loads).
    init(query: BoundQuery, rows: [[Value]], cacheCapacity: Int = 4_096, loader: @escaping ([Value]) -> [Value: [Value]]) {
        self.query = query
        let arena = Arena(query: query)
        self.arena = arena
        cache = RowCache(capacity: cacheCapacity, loader: loader)
        let sectionAscending = query.sort.ascending.first ?? true
        tree = CountedBTree(compare: Self.comparator(arena: arena, query: query))
        sectionNames = CountedBTree(compare: { a, b in
            let order = Value.compare(a, b)
            return sectionAscending ? order : -order
        })
        var ids: [Int32] = []
        ids.reserveCapacity(rows.count)
        var names: [Value] = []
        for row in rows {
            ids.append(arena.allocate(row))
            let name = query.sectionName(of: row)
            if sectionCounts[name, default: 0] == 0 { names.append(name) }
            sectionCounts[name, default: 0] += 1
        }
        // The first rows are the ones a list shows first: keep them at hand.
        for row in rows.prefix(cache.capacity / 2) { cache.store(row, forKey: query.key(of: row)) }
        tree = CountedBTree(sorted: ids, compare: tree.compare)
        sectionNames = CountedBTree(sorted: names, compare: sectionNames.compare)
    }

    /// Takes the results from a scan of the store: the key and sort values of each row,
    /// in order (``StorageBackend/orderedScan(_:)``). Row *i* becomes id *i*. Objects are
    /// loaded when asked for.
    init(query: BoundQuery, scan: OrderedScan, loader: @escaping ([Value]) -> [Value: [Value]]) {
        self.query = query
        let arena = Arena(query: query)
        self.arena = arena
        cache = RowCache(capacity: 4_096, loader: loader)
        let sectionAscending = query.sort.ascending.first ?? true
        let compare = Self.comparator(arena: arena, query: query)
        let (names, counts) = Self.sections(of: scan, query: query, slots: arena.slots)
        arena.adopt(keys: scan.keys, sortColumns: scan.sortColumns, keyHashes: scan.keyHashes)
        sectionCounts = counts
        tree = CountedBTree(sorted: 0..<Int32(scan.count), compare: compare)
        sectionNames = CountedBTree(sorted: names, compare: { a, b in
            let order = Value.compare(a, b)
            return sectionAscending ? order : -order
        })
    }

    /// Results over `base`'s arena and cache with another order: what
    /// ``resorting(touched:)`` makes. `base` must not be used once they are.
    init(sharingArenaOf base: IncrementalResults, tree: CountedBTree<Int32>, sectionNames: CountedBTree<Value>, sectionCounts: [Value: Int]) {
        query = base.query
        arena = base.arena
        cache = base.cache
        self.tree = tree
        self.sectionNames = sectionNames
        self.sectionCounts = sectionCounts
    }

    private static func comparator(arena: Arena, query: BoundQuery) -> (Int32, Int32) -> Int {
        let firstAscending = query.sort.ascending.first ?? true
        let sectioned = query.sectionIndex != nil
        return { a, b in
            if a == b { return 0 }
            if a == probeID || b == probeID {
                // The probe sorts before every row of its section and after earlier sections.
                guard sectioned else { return a == probeID ? -1 : 1 }
                let other = a == probeID ? b : a
                var order = Value.compare(arena.probeSection, arena.sectionName(other))
                if !firstAscending { order = -order }
                return (a == probeID) == (order <= 0) ? -1 : 1
            }
            return arena.compare(a, b)
        }
    }

    // MARK: Reading

    var count: Int { tree.count }
    var numberOfSections: Int { sectionNames.count }

    /// Every row, in order: loads what the cache lacks. O(n).
    var rows: [[Value]] {
        let keys = tree.elements.map { arena.keys[Int($0)] }
        let loaded = cache.rows(for: keys)
        return keys.compactMap { loaded[$0] }
    }


    /// The complete rows with these keys: cached ones, and the rest loaded in one go (the
    /// cache keeps no more of them than it holds). O(keys).
    func rows(forKeys keys: [Value]) -> [Value: [Value]] {
        cache.rows(for: keys)
    }

    /// The complete row with this key, if it is in the results.
    func row(forKey key: Value) -> [Value]? {
        guard let id = arena.id(forKey: key), let rank = tree.rank(of: id) else { return nil }
        return row(atRank: rank)
    }

    /// The complete row at a rank; loads it and its neighbours when it is not cached. Nil
    /// when it cannot be loaded: the load failed (the loader reports why), or another
    /// connection deleted the row in a commit not delivered yet.
    func row(atRank rank: Int) -> [Value]? {
        let key = arena.keys[Int(tree[rank])]
        if let row = cache.row(forKey: key) { return row }
        let window = max(0, rank - RowCache.batchSize / 4)..<min(tree.count, rank + RowCache.batchSize)
        var keys: [Value] = []
        tree.forEach(in: window) { keys.append(arena.keys[Int($0)]) }
        return cache.rows(for: keys)[key]
    }

    /// Where section `name` starts among the rows.
    func sectionStart(_ name: Value) -> Int {
        guard query.sectionIndex != nil else { return 0 }
        arena.probeSection = name
        return tree.insertionRank(of: Self.probeID)
    }

    /// The index path of the row at `rank`. O(log n).
    func indexPath(ofRank rank: Int) -> IndexPath {
        guard query.sectionIndex != nil else { return IndexPath(item: rank, section: 0) }
        let name = arena.sectionName(tree[rank])
        let section = sectionNames.rank(of: name) ?? 0
        return IndexPath(item: rank - sectionStart(name), section: section)
    }

    /// The range of ranks of section `index`.
    func sectionRange(_ index: Int) -> Range<Int> {
        precondition(index >= 0 && index < sectionNames.count, "section \(index) is outside the results (\(sectionNames.count) sections)")
        let name = sectionNames[index]
        let start = sectionStart(name)
        return start..<(start + sectionCounts[name, default: 0])
    }

    /// The name of section `index`.
    func sectionName(_ index: Int) -> Value { sectionNames[index] }

    /// The index path of the row with this key. O(log n).
    func indexPath(for key: Value) -> IndexPath? {
        guard let rank = rank(ofKey: key) else { return nil }
        return indexPath(ofRank: rank)
    }

    /// The row with this key from the cache, or its key and sort values.
    func knownRow(forKey key: Value) -> [Value]? {
        guard let id = arena.id(forKey: key) else { return nil }
        return cache.row(forKey: key) ?? arena.partialRow(Int(id))
    }

    func heldRow(forKey key: Value) -> [Value]? {
        arena.id(forKey: key) == nil ? nil : cache.row(forKey: key)
    }

    /// The rank of the row with this key. O(log n).
    func rank(ofKey key: Value) -> Int? {
        arena.id(forKey: key).flatMap { tree.rank(of: $0) }
    }

    /// The key of the row at a rank. O(log n).
    func key(atRank rank: Int) -> Value { arena.keys[Int(tree[rank])] }

    /// Every section, in order, with its number of rows. O(sections).
    func sectionInfos() -> [SectionInfo] {
        sectionNames.elements.map { SectionInfo(name: $0, numberOfObjects: sectionCounts[$0, default: 0]) }
    }

    /// The rows of a range of ranks as sections of keys. O(log n + the range's size).
    func sections(inRanks ranks: Range<Int>) -> [ListSection<Value, Value>] {
        var rows: [(key: Value, section: Value)] = []
        rows.reserveCapacity(ranks.count)
        let sectioned = query.sectionIndex != nil
        tree.forEach(in: ranks) { id in rows.append((arena.keys[Int(id)], sectioned ? arena.sectionName(id) : .null)) }
        return ListSection.grouping(rows)
    }

    /// The results as sections of keys. O(n).
    var snapshot: [ListSection<Value, Value>] {
        (0..<sectionNames.count).map { ListSection(id: sectionNames[$0], items: keys(inSection: $0)) }
    }

    /// The keys of section `index`, in order. O(log n + the section's size).
    func keys(inSection index: Int) -> [Value] {
        let range = sectionRange(index)
        var keys: [Value] = []
        keys.reserveCapacity(range.count)
        tree.forEach(in: range) { keys.append(arena.keys[Int($0)]) }
        return keys
    }

    // MARK: Changing

    /// A section's object count, index (where it is or would be) and start.
    func sectionFacts(_ name: Value) -> (count: Int, index: Int, start: Int) {
        guard query.sectionIndex != nil else { return (tree.count, 0, 0) }
        return (sectionCounts[name, default: 0], sectionNames.insertionRank(of: name), sectionStart(name))
    }

    /// Replaces a row whose sort position does not change.
    ///
    /// - Parameter caching: whether to keep the row in the cache; if not, a row the cache
    ///   holds is still replaced, so that it never serves the old one.
    func replaceInPlace(key: Value, with row: [Value], caching: Bool = true) {
        guard arena.id(forKey: key) != nil else { return }
        if caching { cache.store(row, forKey: key) } else { cache.replace(row, forKey: key) }
    }

    /// Removes the row with this key.
    func remove(key: Value) {
        guard let id = arena.id(forKey: key) else { return }
        let name = arena.sectionName(id)
        tree.remove(id)
        arena.release(id)
        cache.remove(key)
        let remaining = sectionCounts[name, default: 1] - 1
        if remaining == 0 {
            sectionCounts[name] = nil
            sectionNames.remove(name)
        } else {
            sectionCounts[name] = remaining
        }
    }

    /// Moves a renamed section's rows (``SectionBlock``) to where their new name sorts, as
    /// one block: removed and inserted by rank, so no row is compared on the way, and the
    /// new name placed with one search. The rows keep their order among themselves.
    func move(_ block: SectionBlock, touches: [Touch]) {
        guard let first = block.ids.first else { return }
        let start = sectionStart(block.from)
        tree.removeSubrange(start..<(start + block.ids.count))
        for (member, id) in zip(block.members, block.ids) {
            guard let row = touches[member].newRow else { continue }
            arena.replaceSortValues(id, with: row)
            // Moved rows are moved cells, not reloaded ones: the cache keeps the rows it
            // held current and takes no others.
            cache.replace(row, forKey: touches[member].key)
        }
        sectionCounts[block.from] = nil
        sectionNames.remove(block.from)
        tree.insert(contentsOf: block.ids, atRank: tree.insertionRank(of: first))
        sectionNames.insert(block.to)
        sectionCounts[block.to] = block.ids.count
    }

    /// Inserts a row, and keeps it in the row cache unless `caching` is false.
    func insert(_ row: [Value], caching: Bool = true) {
        let id = arena.allocate(row)
        tree.insert(id)
        if caching { cache.store(row, forKey: query.key(of: row)) }
        let name = query.sectionName(of: row)
        let count = sectionCounts[name, default: 0]
        if count == 0 { sectionNames.insert(name) }
        sectionCounts[name] = count + 1
    }
}

