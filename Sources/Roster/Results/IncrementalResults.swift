import RosterUpdates

/// A live query's results kept in an order-statistic tree, so that a commit that touches
/// *k* rows costs O(*k* log *n*) — the positions, the sections and the moves — however
/// many rows the results hold.
///
/// Rows live in an arena and are named by small integer ids; the tree orders ids by the
/// query's sort (which ends with the key, so no two rows tie). A second tree holds the
/// section names in order. A row's index path is found from its rank: its section is the
/// section name's rank among the names, its item the rank minus where the section starts
/// (found with a probe that sorts before every row of the section).
///
/// Which rows move is decided like ``SnapshotDiff`` (as few as possible, edited rows
/// rather than untouched ones), but only looking at the touched rows and the runs of
/// untouched rows between them: untouched rows never change order among themselves.
final class IncrementalResults {
    let query: BoundQuery
    private let arena: Arena
    private var tree: CountedBTree<Int32>
    private var sectionNames: CountedBTree<Value>
    private var sectionCounts: [Value: Int] = [:]

    /// Rows by id, keys to ids, and the probe used to find where a section starts.
    final class Arena {
        var rows: [[Value]] = []
        var idByKey: [Value: Int32] = [:]
        var freeIDs: [Int32] = []
        /// The section value the probe id (-1) stands for.
        var probeSection: Value = .null

        func allocate(_ row: [Value], key: Value) -> Int32 {
            let id: Int32
            if let free = freeIDs.popLast() {
                id = free
                rows[Int(id)] = row
            } else {
                id = Int32(rows.count)
                rows.append(row)
            }
            idByKey[key] = id
            return id
        }

        func release(_ id: Int32, key: Value) {
            idByKey[key] = nil
            rows[Int(id)] = []
            freeIDs.append(id)
        }
    }

    static let probeID: Int32 = -1

    init(query: BoundQuery, rows: [[Value]]) {
        self.query = query
        let arena = Arena()
        self.arena = arena
        let sort = query.sort
        let sectionIndex = query.sectionIndex
        let sectionAscending = sort.ascending.first ?? true
        tree = CountedBTree(compare: Self.rowComparator(arena: arena, sort: sort, sectionIndex: sectionIndex))
        sectionNames = CountedBTree(compare: { a, b in
            let order = Value.compare(a, b)
            return sectionAscending ? order : -order
        })
        var ids: [Int32] = []
        ids.reserveCapacity(rows.count)
        var names: [Value] = []
        for row in rows {
            ids.append(arena.allocate(row, key: query.key(of: row)))
            let name = query.sectionName(of: row)
            if sectionCounts[name, default: 0] == 0 { names.append(name) }
            sectionCounts[name, default: 0] += 1
        }
        tree = CountedBTree(sorted: ids, compare: tree.compare)
        sectionNames = CountedBTree(sorted: names, compare: sectionNames.compare)
    }

    private static func rowComparator(arena: Arena, sort: BoundSort, sectionIndex: Int?) -> (Int32, Int32) -> Int {
        { a, b in
            if a == b { return 0 }
            if a == probeID || b == probeID {
                // The probe sorts before every row of its section and after earlier sections.
                guard let sectionIndex else { return a == probeID ? -1 : 1 }
                let other = a == probeID ? b : a
                var order = Value.compare(arena.probeSection, arena.rows[Int(other)][sectionIndex])
                if sort.ascending.first == false { order = -order }
                let probeFirst = order <= 0
                return (a == probeID) == probeFirst ? -1 : 1
            }
            return sort.compare(arena.rows[Int(a)], arena.rows[Int(b)])
        }
    }

    // MARK: Reading

    var count: Int { tree.count }
    var numberOfSections: Int { sectionNames.count }

    /// The rows in order. O(n).
    var rows: [[Value]] { tree.elements.map { arena.rows[Int($0)] } }

    /// The row with this key, if it is in the results.
    func row(forKey key: Value) -> [Value]? { arena.idByKey[key].map { arena.rows[Int($0)] } }

    /// Where section `name` starts among the rows.
    private func sectionStart(_ name: Value) -> Int {
        guard query.sectionIndex != nil else { return 0 }
        arena.probeSection = name
        return tree.insertionRank(of: Self.probeID)
    }

    /// The index path of the row at `rank`. O(log n).
    func indexPath(ofRank rank: Int) -> IndexPath {
        guard query.sectionIndex != nil else { return IndexPath(item: rank, section: 0) }
        let name = query.sectionName(of: arena.rows[Int(tree[rank])])
        let section = sectionNames.rank(of: name) ?? 0
        return IndexPath(item: rank - sectionStart(name), section: section)
    }

    /// The rank of the row at an index path. O(log n).
    func rank(of indexPath: IndexPath) -> Int {
        guard query.sectionIndex != nil else { return indexPath.item }
        return sectionStart(sectionNames[indexPath.section]) + indexPath.item
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

    /// The row at a rank.
    func row(atRank rank: Int) -> [Value] { arena.rows[Int(tree[rank])] }

    /// The index path of the row with this key. O(log n).
    func indexPath(for key: Value) -> IndexPath? {
        guard let id = arena.idByKey[key], let rank = tree.rank(of: id) else { return nil }
        return indexPath(ofRank: rank)
    }

    /// The results as sections of keys. O(n).
    var snapshot: [Section<Value, Value>] {
        var sections: [Section<Value, Value>] = []
        sections.reserveCapacity(sectionNames.count)
        var current: [Value] = []
        var currentName: Value?
        tree.forEach(in: 0..<tree.count) { id in
            let row = arena.rows[Int(id)]
            let name = query.sectionName(of: row)
            if currentName != name {
                if let currentName { sections.append(Section(id: currentName, items: current)) }
                currentName = name
                current = []
            }
            current.append(query.key(of: row))
        }
        if let currentName { sections.append(Section(id: currentName, items: current)) }
        return sections
    }
}

extension IncrementalResults {
    /// The rank of the row with this key.
    func rank(ofKey key: Value) -> Int? {
        arena.idByKey[key].flatMap { tree.rank(of: $0) }
    }

    /// A section's object count, index (where it is or would be) and start.
    func sectionFacts(_ name: Value) -> (count: Int, index: Int, start: Int) {
        guard query.sectionIndex != nil else { return (tree.count, 0, 0) }
        return (sectionCounts[name, default: 0], sectionNames.insertionRank(of: name), sectionStart(name))
    }

    /// Replaces a row whose sort position does not change.
    func replaceInPlace(key: Value, with row: [Value]) {
        guard let id = arena.idByKey[key] else { return }
        arena.rows[Int(id)] = row
    }

    /// Removes the row with this key.
    func remove(key: Value) {
        guard let id = arena.idByKey[key] else { return }
        let name = query.sectionName(of: arena.rows[Int(id)])
        tree.remove(id)
        arena.release(id, key: key)
        let remaining = sectionCounts[name, default: 1] - 1
        if remaining == 0 {
            sectionCounts[name] = nil
            sectionNames.remove(name)
        } else {
            sectionCounts[name] = remaining
        }
    }

    /// Inserts a row.
    func insert(_ row: [Value], key: Value) {
        let id = arena.allocate(row, key: key)
        tree.insert(id)
        let name = query.sectionName(of: row)
        let count = sectionCounts[name, default: 0]
        if count == 0 { sectionNames.insert(name) }
        sectionCounts[name] = count + 1
    }
}
