/// Which sections stay between two snapshots: a largest set of sections present in both
/// whose relative order is the same in both. Every other section is deleted or inserted.
struct SectionMatching<SectionID: Hashable & Sendable> {
    /// For each old section, its index among the new sections if it stays, or nil if deleted.
    let keptNewIndexByOldIndex: [Int?]
    /// For each new section, whether it is an old section that stays (false: inserted).
    let isNewSectionKept: [Bool]

    /// Matches the sections of `old` and `new` by identifier.
    ///
    /// - Complexity: O(*s* log *s*) for *s* sections, expected (hashing).
    init<ItemID>(old: [Section<SectionID, ItemID>], new: [Section<SectionID, ItemID>]) {
        var newIndexByID: [SectionID: Int] = [:]
        newIndexByID.reserveCapacity(new.count)
        for (index, section) in new.enumerated() {
            newIndexByID[section.id] = index
        }

        var commonOldIndexes: [Int] = []
        var commonNewIndexes: [Int] = []
        for (oldIndex, section) in old.enumerated() {
            if let newIndex = newIndexByID[section.id] {
                commonOldIndexes.append(oldIndex)
                commonNewIndexes.append(newIndex)
            }
        }

        var keptNewIndexByOldIndex = [Int?](repeating: nil, count: old.count)
        var isNewSectionKept = [Bool](repeating: false, count: new.count)
        let staysInOrder = longestIncreasingSubsequenceMembers(commonNewIndexes)
        for (position, isInOrder) in staysInOrder.enumerated() where isInOrder {
            keptNewIndexByOldIndex[commonOldIndexes[position]] = commonNewIndexes[position]
            isNewSectionKept[commonNewIndexes[position]] = true
        }
        self.keptNewIndexByOldIndex = keptNewIndexByOldIndex
        self.isNewSectionKept = isNewSectionKept
    }
}
