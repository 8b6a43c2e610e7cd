extension IncrementalResults {
    /// A section whose every row moved, in one commit, to a name no row had, each keeping
    /// its other sort values: what renaming a feed does to a list sectioned by
    /// `feed.title`. Its rows keep their order among themselves, so they move as one block
    /// (``move(_:touches:)``) instead of one search per row on the way out,
    /// on the way in and for each rank.
    struct SectionBlock {
        /// The section's name before the commit.
        let from: Value
        /// Its name now, which no section had before.
        let to: Value
        /// The touches of its rows, as indexes into the commit's touches, in the rows' order.
        let members: [Int]
        /// The rows' ids, in the same order.
        let ids: [Int32]
    }

    /// The renamed sections among a commit's touches. O(k) for k touches, plus O(log n +
    /// the section's size) for each section that qualifies.
    func renamedSections(_ touches: [Touch]) -> [SectionBlock] {
        guard query.sectionIndex != nil, touches.count > 1 else { return [] }
        // The touches that change section, grouped by their new section; a run of touches
        // with one new name (a block's) is grouped without hashing it again.
        var groups: [(name: Value, members: [Int])] = []
        var groupOfName: [Value: Int] = [:]
        // Names that rows entering the results arrive in: a block must be alone in its new
        // section, or its rows' places there are not the section's start plus their order.
        // (A row that stays in its section is in a name some row had: never a block's.)
        var entered: Set<Value> = []
        for (index, touch) in touches.enumerated() {
            guard let newName = touch.newName else { continue }
            guard let oldName = touch.oldName else {
                entered.insert(newName)
                continue
            }
            guard oldName != newName else { continue }
            if let last = groups.indices.last, groups[last].name == newName {
                groups[last].members.append(index)
            } else if let group = groupOfName[newName] {
                groups[group].members.append(index)
            } else {
                groupOfName[newName] = groups.count
                groups.append((newName, [index]))
            }
        }
        var blocks: [SectionBlock] = []
        let sortCount = query.sort.attributeIndexes.count
        for (newName, members) in groups where members.count > 1 && sectionCounts[newName] == nil && !entered.contains(newName) {
            guard let from = touches[members[0]].oldName, sectionCounts[from] == members.count,
                  members.allSatisfy({ touches[$0].oldName == from }) else { continue }
            // Every sort value after the section's is as it was: the order among them holds.
            var memberOfID: [Int32: Int] = [:]
            memberOfID.reserveCapacity(members.count)
            let keepsOrder = members.allSatisfy { member in
                guard let id = touches[member].oldID, let row = touches[member].newRow else { return false }
                memberOfID[id] = member
                return (1..<sortCount).allSatisfy { arena.sortValue(id, $0) == row[query.sort.attributeIndexes[$0]] }
            }
            guard keepsOrder else { continue }
            let start = sectionStart(from)
            var ids: [Int32] = []
            var ordered: [Int] = []
            ids.reserveCapacity(members.count)
            ordered.reserveCapacity(members.count)
            tree.forEach(in: start..<(start + members.count)) { id in
                ids.append(id)
                if let member = memberOfID[id] { ordered.append(member) }
            }
            guard ordered.count == members.count else { continue }
            blocks.append(SectionBlock(from: from, to: newName, members: ordered, ids: ids))
        }
        return blocks
    }
}
