import RosterUpdates

extension IncrementalResults {
    /// What a commit did to one key, as this query sees it.
    struct Touch {
        let key: Value
        /// The section the row was in, if it was in the results.
        let oldName: Value?
        /// The row now, if it is in the results.
        let newRow: [Value]?
        /// The section the row is in now, if it is in the results.
        let newName: Value?
    }

    /// Applies the rows of the keys a commit touched and returns the change, in
    /// O(k log n) for k touched keys; nil when the results did not change.
    ///
    /// The results are at the backend's cursor, so a key whose row before equals its row
    /// now (written, then written back) is no change; any other key in the results changed.
    func apply(touched: [Value: TouchedRow]) -> QueryChange? {
        var touches: [Touch] = []
        var removedRows: [Value: [Value]] = [:]
        for (key, rows) in touched {
            let oldID = arena.id(forKey: key)
            let newRow = rows.after.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            if oldID == nil && newRow == nil { continue }
            if oldID != nil, let newRow, !rows.isChanged {
                // Every value is as it was. An object loaded between the writes (outside a
                // delivery, from a newer commit) may hold a value since written back.
                cache.replace(newRow, forKey: key)
                continue
            }
            if let oldID, newRow == nil {
                removedRows[key] = rows.before ?? cache.row(forKey: key) ?? arena.partialRow(Int(oldID))
            }
            touches.append(Touch(key: key, oldName: oldID.map { arena.sectionName($0) },
                                 newRow: newRow, newName: newRow.map { query.sectionName(of: $0) }))
        }
        guard !touches.isEmpty else { return nil }
        touches.sort { Value.compare($0.key, $1.key) < 0 }  // a fixed order, whatever the dictionary's

        // 1. Before any change: old ranks, paths and section geometry.
        var old: [Value: (rank: Int, path: IndexPath)] = [:]
        var before = SectionGeometry()
        for touch in touches {
            if let name = touch.oldName { before.record(name, from: self) }
            if let name = touch.newName { before.record(name, from: self) }
        }
        for touch in touches where touch.oldName != nil {
            guard let rank = rank(ofKey: touch.key) else { continue }
            old[touch.key] = (rank, indexPath(ofRank: rank))
        }

        // 2. Change the tree and the arena.
        for touch in touches {
            if let id = arena.id(forKey: touch.key), let newRow = touch.newRow, arena.compare(id, newRow) == 0 {
                replaceInPlace(key: touch.key, with: newRow)
            } else {
                if touch.oldName != nil { remove(key: touch.key) }
                if let newRow = touch.newRow { insert(newRow) }
            }
        }

        // 3. After: new ranks, paths and section geometry.
        var new: [Value: (rank: Int, path: IndexPath)] = [:]
        var after = SectionGeometry()
        for name in before.names { after.record(name, from: self) }
        for touch in touches where touch.newRow != nil {
            guard let rank = rank(ofKey: touch.key) else { continue }
            new[touch.key] = (rank, indexPath(ofRank: rank))
        }

        var change = QueryChange()
        // 4. Sections: with the sort unchanged, sections keep their order; only names that
        //    empty or appear change.
        for name in before.names {
            let wasThere = before.count[name, default: 0] > 0
            let isThere = after.count[name, default: 0] > 0
            if wasThere && !isThere { change.group.sectionChanges.append(SectionChange(type: .delete, index: before.index[name]!, section: name)) }
            if !wasThere && isThere { change.group.sectionChanges.append(SectionChange(type: .insert, index: after.index[name]!, section: name)) }
        }

        // 5. Objects.
        var inserts: [ObjectChange<Value>] = []
        var deletes: [ObjectChange<Value>] = []
        var moves: [ObjectChange<Value>] = []
        var updates: [ObjectChange<Value>] = []
        var staying: [Value: [Touch]] = [:]  // same-section candidates, by section
        change.removedRows = removedRows
        for touch in touches {
            switch (touch.oldName, touch.newName) {
            case (nil, .some):
                inserts.append(ObjectChange(type: .insert, item: touch.key, from: nil, to: new[touch.key]!.path))
            case (.some, nil):
                deletes.append(ObjectChange(type: .delete, item: touch.key, from: old[touch.key]!.path, to: nil))
            case let (.some(oldName), .some(newName)):
                if oldName != newName {
                    moves.append(ObjectChange(type: .move, item: touch.key, from: old[touch.key]!.path, to: new[touch.key]!.path))
                } else {
                    staying[oldName, default: []].append(touch)
                }
            case (nil, nil):
                break
            }
        }
        for (name, candidates) in staying {
            let moved = movedItems(in: name, candidates: candidates, touches: touches, old: old, new: new, before: before, after: after)
            for key in moved.keys.sorted(by: { moved[$0]!.to < moved[$1]!.to }) {
                let paths = moved[key]!
                moves.append(ObjectChange(type: .move, item: key, from: paths.from, to: paths.to))
            }
            for touch in candidates where moved[touch.key] == nil {
                updates.append(ObjectChange(type: .update, item: touch.key, from: old[touch.key]!.path, to: new[touch.key]!.path))
            }
        }
        change.group.sectionChanges.sort { ($0.type == .delete ? 0 : 1, $0.index) < ($1.type == .delete ? 0 : 1, $1.index) }
        inserts.sort { $0.to! < $1.to! }
        deletes.sort { $0.from! < $1.from! }
        moves.sort { $0.to! < $1.to! }
        updates.sort { $0.from! < $1.from! }
        change.group.objectChanges = inserts + deletes + moves + updates
        change.oldSectionCounts = Dictionary(uniqueKeysWithValues: change.group.sectionChanges
            .filter { $0.type == .delete }.map { ($0.index, before.count[$0.section, default: 0]) })
        return change.group.isEmpty ? nil : change
    }

    /// Which staying rows of section `name` move, and their paths: the rows outside the
    /// heaviest run that keeps its order. Untouched rows never change order among
    /// themselves, so they are merged into blocks between the touched ones.
    private func movedItems(in name: Value, candidates: [Touch], touches: [Touch],
                            old: [Value: (rank: Int, path: IndexPath)], new: [Value: (rank: Int, path: IndexPath)],
                            before: SectionGeometry, after: SectionGeometry) -> [Value: (from: IndexPath, to: IndexPath)] {
        let oldStart = before.start[name]!
        let newStart = after.start[name]!
        // Ranks within the section of every touched row that was (or is) in it.
        let oldTouched = touches.compactMap { touch -> Int? in
            touch.oldName == name ? old[touch.key]!.rank - oldStart : nil
        }.sorted()
        let newTouched = touches.compactMap { touch -> Int? in
            touch.newName == name ? new[touch.key]!.rank - newStart : nil
        }.sorted()
        let untouchedCount = before.count[name, default: 0] - oldTouched.count
        // How many untouched rows come before a touched row at `rank`.
        func untouchedBefore(_ rank: Int, in touched: [Int]) -> Int { rank - lowerBound(touched, rank) }

        struct Element {
            var oldKey: (Int, Int, Int)
            var newKey: (Int, Int, Int)
            var weight: (count: Int, preferred: Int)
            var candidate: Touch?
            var block: Range<Int>?
        }
        var cuts: Set<Int> = [0, untouchedCount]
        var elements: [Element] = []
        for touch in candidates {
            let oldRank = old[touch.key]!.rank - oldStart
            let newRank = new[touch.key]!.rank - newStart
            let uOld = untouchedBefore(oldRank, in: oldTouched)
            let uNew = untouchedBefore(newRank, in: newTouched)
            cuts.insert(uOld)
            cuts.insert(uNew)
            // Every candidate's values changed (unchanged rows are not touches): not preferred.
            elements.append(Element(oldKey: (uOld, 0, oldRank), newKey: (uNew, 0, newRank), weight: (1, 0), candidate: touch, block: nil))
        }
        let sortedCuts = cuts.sorted()
        for (start, end) in zip(sortedCuts, sortedCuts.dropFirst()) where start < end {
            elements.append(Element(oldKey: (start, 1, 0), newKey: (start, 1, 0), weight: (end - start, end - start), candidate: nil, block: start..<end))
        }
        elements.sort { $0.oldKey < $1.oldKey }
        let newOrder = elements.indices.sorted { elements[$0].newKey < elements[$1].newKey }
        var value = [Int](repeating: 0, count: elements.count)
        for (position, index) in newOrder.enumerated() { value[index] = position }
        let kept = heaviestIncreasingSubsequenceMembers(value, weights: elements.map(\.weight))

        var moved: [Value: (from: IndexPath, to: IndexPath)] = [:]
        let oldSection = before.index[name]!
        let newSection = after.index[name]!
        for (index, element) in elements.enumerated() where !kept[index] {
            if let touch = element.candidate {
                moved[touch.key] = (old[touch.key]!.path, new[touch.key]!.path)
            } else if let block = element.block {
                // Untouched rows that must move (rare: touched rows landed around them).
                for untouched in block {
                    let oldRank = rankOfUntouched(untouched, touched: oldTouched)
                    let newRank = rankOfUntouched(untouched, touched: newTouched)
                    let key = self.key(atRank: newStart + newRank)
                    moved[key] = (IndexPath(item: oldRank, section: oldSection), IndexPath(item: newRank, section: newSection))
                }
            }
        }
        return moved
    }

    /// The rank within a section of its `index`-th untouched row, given the sorted ranks of
    /// the touched rows there.
    private func rankOfUntouched(_ index: Int, touched: [Int]) -> Int {
        var rank = index
        for touchedRank in touched {
            if touchedRank <= rank { rank += 1 } else { break }
        }
        return rank
    }

    private func lowerBound(_ sorted: [Int], _ value: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Section facts noted before or after a commit, for the names it touched.
struct SectionGeometry {
    var names: [Value] = []
    var count: [Value: Int] = [:]
    var index: [Value: Int] = [:]
    var start: [Value: Int] = [:]

    mutating func record(_ name: Value, from results: IncrementalResults) {
        guard count[name] == nil else { return }
        names.append(name)
        let facts = results.sectionFacts(name)
        count[name] = facts.count
        index[name] = facts.index
        start[name] = facts.start
    }
}
