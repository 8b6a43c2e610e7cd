import RosterUpdates

extension IncrementalResults {
    /// Applies a commit's touched rows by sorting them and merging them into the untouched
    /// rows, in memory, and diffs the two orders by ids: the path of a bulk commit. It costs
    /// O(*n* + *k* log *k*) for *n* rows and *k* touched rows, with no tree search per row
    /// and nothing read from the store (re-fetching the results cost the same order, plus
    /// SQLite stepping every row).
    ///
    /// The untouched rows keep their order among themselves, so only the touched rows need
    /// sorting; a row that stays keeps its id, with its sort values replaced, and a new row
    /// gets one. The new results share this one's arena and cache: these results must not
    /// be used afterwards.
    ///
    /// - Returns: the results after the commit, and the change (nil when there is none),
    ///   the same change ``apply(touched:)`` reports.
    func resorting(touched: [Value: TouchedRow]) -> (results: IncrementalResults, change: QueryChange?) {
        var counts = sectionCounts
        // Ids of the touched rows that stay (they keep their id) and of new rows: the merge
        // places both among the untouched rows.
        var added: [Int32] = []
        var staying: [Int32] = []
        var leaving: [(id: Int32, key: Value)] = []
        var rowsNow: [(key: Value, row: [Value])] = []
        // Every touched key's id first, the look-ups' cache misses overlapped; then the rows
        // in the same order (a dictionary's keys and values go in one order).
        let keys = Array(touched.keys)
        let oldIDs = arena.ids(forKeys: keys)
        // By index, each touched row's parts read where they are: a copy of the whole
        // `TouchedRow` would retain its row before too, which the re-sort never reads
        // (another cache miss a row at 1M).
        for (offset, index) in zip(keys.indices, touched.values.indices) {
            let key = keys[offset]
            let oldID = oldIDs[offset] >= 0 ? oldIDs[offset] : nil
            let newRow = touched.values[index].after.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            switch (oldID, newRow) {
            case (nil, nil):
                continue
            case let (_?, row?) where !touched.values[index].isChanged:
                // Every value is as it was (see `apply(touched:)`).
                cache.replace(row, forKey: key)
            case let (id?, row?):
                let (oldName, newName) = (arena.sectionName(id), query.sectionName(of: row))
                if oldName != newName {
                    Self.count(-1, in: oldName, &counts)
                    Self.count(1, in: newName, &counts)
                }
                arena.replaceSortValues(id, with: row)
                staying.append(id)
                rowsNow.append((key, row))
            case let (id?, nil):
                Self.count(-1, in: arena.sectionName(id), &counts)
                leaving.append((id, key))
            case let (nil, row?):
                let id = arena.allocate(row)
                Self.count(1, in: query.sectionName(of: row), &counts)
                added.append(id)
                rowsNow.append((key, row))
            }
        }
        guard !leaving.isEmpty || !staying.isEmpty || !added.isEmpty else { return (self, nil) }

        // The untouched rows in their order, with the placed rows merged in by the sort. The
        // staying rows are taken in their old order, which most of them keep (a bulk update
        // moves few rows): the sort then finds long runs already in order, and compares
        // about once a row instead of log k times.
        let arena = arena
        let (leavingMark, stayingMark): (UInt8, UInt8) = (1, 2)
        var marks = [UInt8](repeating: 0, count: arena.capacity)
        for (id, _) in leaving { marks[Int(id)] = leavingMark }
        for id in staying { marks[Int(id)] = stayingMark }
        var untouched: [Int32] = []
        untouched.reserveCapacity(tree.count)
        var placed: [Int32] = []
        placed.reserveCapacity(staying.count + added.count)
        for id in tree.elements {
            switch marks[Int(id)] {
            case 0: untouched.append(id)
            case stayingMark: placed.append(id)
            default: break
            }
        }
        placed.append(contentsOf: added)
        placed.sort { arena.compare($0, $1) < 0 }
        let order = Self.merge(untouched, placed, by: arena)

        let resorted = IncrementalResults(
            sharingArenaOf: self,
            tree: CountedBTree(sorted: order, compare: tree.compare),
            sectionNames: CountedBTree(sorted: mergedSectionNames(counts), compare: sectionNames.compare),
            sectionCounts: counts)
        // The marks: the old ids of the touched rows that stay and changed values (2), and of
        // those that leave (1); the diff asks only of rows that stay whether they changed.
        let change = Self.change(from: self, to: resorted, touched: touched, touchedIDs: marks)

        // Only now: the diff read the leaving rows' keys and values.
        for (id, key) in leaving {
            arena.release(id)
            cache.remove(key)
        }
        // The cache never serves an old row. It takes the commit's rows only when it has room
        // for them all (always, when it holds every row): filling it would evict the rows the
        // list read last — those it shows — for rows of a bulk commit in no useful order, at
        // a look-up and an eviction each (a tenth of a bulk commit's instructions).
        let hasRoom = cache.count + rowsNow.count <= cache.capacity
        for item in rowsNow {
            if hasRoom { cache.store(item.row, forKey: item.key) } else { cache.replace(item.row, forKey: item.key) }
        }
        return (resorted, change)
    }

    /// Merges two runs of ids, each sorted by the arena's order, into one. Each id of `b`
    /// finds its place in `a` by galloping from the last place (steps of 1, 2, 4, … then
    /// halving), so a few touched rows among many untouched ones cost O(*k* log(*n* / *k*))
    /// comparisons rather than one per row, and the runs between are copied whole.
    static func merge(_ a: [Int32], _ b: [Int32], by arena: Arena) -> [Int32] {
        var merged: [Int32] = []
        merged.reserveCapacity(a.count + b.count)
        var start = 0
        for id in b {
            // The first index at or after `start` whose row sorts after `id`.
            var low = start, step = 1, high = start
            while high < a.count && arena.compare(a[high], id) < 0 {
                low = high + 1
                high += step
                step *= 2
            }
            high = min(high, a.count)
            while low < high {
                let middle = (low + high) / 2
                if arena.compare(a[middle], id) < 0 { low = middle + 1 } else { high = middle }
            }
            merged.append(contentsOf: a[start..<low])
            merged.append(id)
            start = low
        }
        merged.append(contentsOf: a[start...])
        return merged
    }

    /// The names of the sections that hold rows by `counts`, in order: this results' names
    /// that keep rows, merged with the new ones, which alone are sorted.
    private func mergedSectionNames(_ counts: [Value: Int]) -> [Value] {
        let compare = sectionNames.compare
        let kept = sectionNames.elements.filter { counts[$0, default: 0] > 0 }
        let added = counts.keys.filter { sectionCounts[$0] == nil }.sorted { compare($0, $1) < 0 }
        guard !added.isEmpty else { return kept }
        var names: [Value] = []
        names.reserveCapacity(kept.count + added.count)
        var next = 0
        for name in kept {
            while next < added.count && compare(added[next], name) < 0 {
                names.append(added[next])
                next += 1
            }
            names.append(name)
        }
        names.append(contentsOf: added[next...])
        return names
    }

    /// Adds `delta` to a section's count, dropping the section at zero.
    private static func count(_ delta: Int, in name: Value, _ counts: inout [Value: Int]) {
        let count = counts[name, default: 0] + delta
        counts[name] = count > 0 ? count : nil
    }
}
