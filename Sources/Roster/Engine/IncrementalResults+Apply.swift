import RosterUpdates

extension IncrementalResults {
    /// What a commit did to one key, as this query sees it.
    struct Touch {
        let key: Value
        /// The row's id before the commit, if it was in the results.
        let oldID: Int32?
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
        touches.reserveCapacity(touched.count)
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
            touches.append(Touch(key: key, oldID: oldID, oldName: oldID.map { arena.sectionName($0) },
                                 newRow: newRow, newName: newRow.map { query.sectionName(of: $0) }))
        }
        guard !touches.isEmpty else { return nil }
        // The touches stay in the dictionary's order: nothing below depends on it (every
        // list of changes is sorted by rank, and the moves within a section are chosen
        // from elements sorted by their ranks), so sorting the keys (8 % of a bulk commit)
        // bought nothing. What is noted of a touch is kept at its index.
        let blocks = renamedSections(touches)
        var inBlock = [Bool](repeating: false, count: blocks.isEmpty ? 0 : touches.count)
        for block in blocks { for member in block.members { inBlock[member] = true } }
        func isInBlock(_ index: Int) -> Bool { !inBlock.isEmpty && inBlock[index] }

        // 1. Before any change: old ranks, paths and section geometry.
        var old = [(rank: Int, path: IndexPath)?](repeating: nil, count: touches.count)
        var before = SectionGeometry()
        // Old names, then new ones: a commit's rows often share both (a renamed feed's), and
        // the geometry skips a name equal to the last it recorded without hashing it.
        for touch in touches { if let name = touch.oldName { before.record(name, from: self) } }
        for touch in touches { if let name = touch.newName { before.record(name, from: self) } }
        // A path is the rank less its section's start, in its section's index: both noted
        // in the geometry, so no section is looked up again per row. A renamed section's
        // rows are where the section was, in the order the block lists them.
        for block in blocks {
            let start = before.start[block.from, default: 0]
            let section = before.index[block.from, default: 0]
            for (offset, member) in block.members.enumerated() {
                old[member] = (start + offset, IndexPath(item: offset, section: section))
            }
        }
        for (index, touch) in touches.enumerated() where !isInBlock(index) {
            guard let name = touch.oldName, let rank = rank(ofKey: touch.key) else { continue }
            old[index] = (rank, before.path(ofRank: rank, in: name))
        }

        // 2. Change the tree and the arena: renamed sections first, as blocks, then row by
        //    row. The cache keeps only the last rows it can hold: storing every row of a
        //    bulk commit would only evict the ones stored before.
        let firstCached = touches.count - cache.capacity
        // Whether any row left or entered the tree: when none did, every touched row kept
        // its sort values, so every rank, section and path is as it was.
        var treeChanged = !blocks.isEmpty
        for block in blocks { move(block, touches: touches) }
        for (index, touch) in touches.enumerated() where !isInBlock(index) {
            if let id = touch.oldID, let newRow = touch.newRow, arena.compare(id, newRow) == 0 {
                replaceInPlace(key: touch.key, with: newRow, caching: index >= firstCached)
            } else {
                treeChanged = true
                if touch.oldName != nil { remove(key: touch.key) }
                if let newRow = touch.newRow { insert(newRow, caching: index >= firstCached) }
            }
        }

        // 3. After: new ranks, paths and section geometry.
        var new = treeChanged ? [(rank: Int, path: IndexPath)?](repeating: nil, count: touches.count) : old
        var after = treeChanged ? SectionGeometry() : before
        if treeChanged { for name in before.names { after.record(name, from: self) } }
        for block in blocks {
            let start = after.start[block.to, default: 0]
            let section = after.index[block.to, default: 0]
            for (offset, member) in block.members.enumerated() {
                new[member] = (start + offset, IndexPath(item: offset, section: section))
            }
        }
        for (index, touch) in touches.enumerated() where treeChanged && !isInBlock(index) {
            guard let name = touch.newName, let rank = rank(ofKey: touch.key) else { continue }
            new[index] = (rank, after.path(ofRank: rank, in: name))
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

        // 5. Objects, each kind in the order of its paths: ranks order rows as their index
        //    paths do, and compare as integers (IndexPath's own comparison is far slower).
        var inserts: [(rank: Int, change: ObjectChange<Value>)] = []
        var deletes: [(rank: Int, change: ObjectChange<Value>)] = []
        var moves: [(rank: Int, change: ObjectChange<Value>)] = []
        var updates: [(rank: Int, change: ObjectChange<Value>)] = []
        var staying: [Value: [Int]] = [:]  // same-section candidates (touch indexes), by section
        // Ranks within their section of the touched rows each section held and holds.
        var oldTouched: [Value: [Int]] = [:]
        var newTouched: [Value: [Int]] = [:]
        change.removedRows = removedRows
        for (index, touch) in touches.enumerated() {
            switch (touch.oldName, touch.newName, old[index], new[index]) {
            case let (nil, .some, _, to?):
                inserts.append((to.rank, ObjectChange(type: .insert, item: touch.key, from: nil, to: to.path)))
            case let (.some, nil, from?, _):
                deletes.append((from.rank, ObjectChange(type: .delete, item: touch.key, from: from.path, to: nil)))
            case let (.some(oldName), .some(newName), from?, to?):
                if oldName != newName {
                    moves.append((to.rank, ObjectChange(type: .move, item: touch.key, from: from.path, to: to.path)))
                } else {
                    staying[oldName, default: []].append(index)
                }
            default:
                break
            }
        }
        if !staying.isEmpty && treeChanged {
            // Only sections with staying rows choose moves, from every touched row they held and hold.
            for (index, touch) in touches.enumerated() {
                if let name = touch.oldName, let from = old[index] { oldTouched[name, default: []].append(from.path.item) }
                if let name = touch.newName, let to = new[index] { newTouched[name, default: []].append(to.path.item) }
            }
        }
        for (name, candidates) in staying {
            // Nothing moved when the tree did not change: every staying row is an update.
            let moved = !treeChanged ? [:] : movedItems(in: name, candidates: candidates, touches: touches, old: old, new: new,
                                   oldTouched: oldTouched[name, default: []].sorted(), newTouched: newTouched[name, default: []].sorted(),
                                   before: before, after: after)
            for (key, paths) in moved {
                moves.append((paths.newRank, ObjectChange(type: .move, item: key, from: paths.from, to: paths.to)))
            }
            for candidate in candidates where moved[touches[candidate].key] == nil {
                guard let from = old[candidate], let to = new[candidate] else { continue }
                updates.append((from.rank, ObjectChange(type: .update, item: touches[candidate].key, from: from.path, to: to.path)))
            }
        }
        change.group.sectionChanges.sort { ($0.type == .delete ? 0 : 1, $0.index) < ($1.type == .delete ? 0 : 1, $1.index) }
        func inOrder(_ changes: [(rank: Int, change: ObjectChange<Value>)]) -> [ObjectChange<Value>] {
            // A renamed section's moves come in order already. Otherwise the positions are
            // sorted, not the changes themselves: each swap of a change retains and
            // releases its key, paths and names.
            if zip(changes, changes.dropFirst()).allSatisfy({ $0.rank < $1.rank }) { return changes.map(\.change) }
            return changes.indices.sorted { changes[$0].rank < changes[$1].rank }.map { changes[$0].change }
        }
        change.group.objectChanges = inOrder(inserts) + inOrder(deletes) + inOrder(moves) + inOrder(updates)
        change.oldSectionCounts = Dictionary(uniqueKeysWithValues: change.group.sectionChanges
            .filter { $0.type == .delete }.map { ($0.index, before.count[$0.section, default: 0]) })
        return change.group.isEmpty ? nil : change
    }

    /// Which staying rows of section `name` move, and their paths: the rows outside the
    /// heaviest run that keeps its order. Untouched rows never change order among
    /// themselves, so they are merged into blocks between the touched ones.
    ///
    /// - Parameters:
    ///   - oldTouched: the ranks within the section of every touched row it held, sorted.
    ///   - newTouched: the same for the rows it holds now.
    private func movedItems(in name: Value, candidates: [Int], touches: [Touch],
                            old: [(rank: Int, path: IndexPath)?], new: [(rank: Int, path: IndexPath)?],
                            oldTouched: [Int], newTouched: [Int],
                            before: SectionGeometry, after: SectionGeometry) -> [Value: (from: IndexPath, to: IndexPath, newRank: Int)] {
        let oldStart = before.start[name]!
        let newStart = after.start[name]!
        let untouchedCount = before.count[name, default: 0] - oldTouched.count
        // How many untouched rows come before a touched row at `rank`.
        func untouchedBefore(_ rank: Int, in touched: [Int]) -> Int { rank - lowerBound(touched, rank) }

        // Small, so that sorting moves little: a candidate is its index in `candidates`.
        struct Element {
            var oldKey: (Int, Int, Int)
            var newKey: (Int, Int, Int)
            var weight: (count: Int, preferred: Int)
            var candidate: Int?
            var block: Range<Int>?
        }
        var cuts: Set<Int> = [0, untouchedCount]
        var elements: [Element] = []
        for (index, candidate) in candidates.enumerated() {
            guard let from = old[candidate], let to = new[candidate] else { continue }
            let oldRank = from.rank - oldStart
            let newRank = to.rank - newStart
            let uOld = untouchedBefore(oldRank, in: oldTouched)
            let uNew = untouchedBefore(newRank, in: newTouched)
            cuts.insert(uOld)
            cuts.insert(uNew)
            // Every candidate's values changed (unchanged rows are not touches): not preferred.
            elements.append(Element(oldKey: (uOld, 0, oldRank), newKey: (uNew, 0, newRank), weight: (1, 0), candidate: index, block: nil))
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

        var moved: [Value: (from: IndexPath, to: IndexPath, newRank: Int)] = [:]
        let oldSection = before.index[name]!
        let newSection = after.index[name]!
        for (index, element) in elements.enumerated() where !kept[index] {
            if let candidate = element.candidate {
                let touch = candidates[candidate]
                guard let from = old[touch], let to = new[touch] else { continue }
                moved[touches[touch].key] = (from.path, to.path, to.rank)
            } else if let block = element.block {
                // Untouched rows that must move (rare: touched rows landed around them).
                for untouched in block {
                    let oldRank = rankOfUntouched(untouched, touched: oldTouched)
                    let newRank = rankOfUntouched(untouched, touched: newTouched)
                    let key = self.key(atRank: newStart + newRank)
                    moved[key] = (IndexPath(item: oldRank, section: oldSection), IndexPath(item: newRank, section: newSection), newStart + newRank)
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

    /// The index path of the row at `rank`, in section `name` (recorded).
    func path(ofRank rank: Int, in name: Value) -> IndexPath {
        IndexPath(item: rank - start[name, default: 0], section: index[name, default: 0])
    }

    /// The name recorded last: a commit's rows often share a section, and comparing is
    /// cheaper than hashing.
    private var lastRecorded: Value?

    mutating func record(_ name: Value, from results: IncrementalResults) {
        guard name != lastRecorded else { return }
        lastRecorded = name
        guard count[name] == nil else { return }
        names.append(name)
        let facts = results.sectionFacts(name)
        count[name] = facts.count
        index[name] = facts.index
        start[name] = facts.start
    }
}
