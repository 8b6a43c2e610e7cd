/// Which sections and items stay in place between two snapshots, chosen so that the fewest
/// items move.
///
/// Sections are matched by identifier. Sections have no moves, so the sections that stay
/// must keep their relative order; every other old section is deleted and every other new
/// section inserted, and each staying item of such a section becomes a move. A section that
/// stays keeps a longest run of its items in order, so each candidate section is weighed by
/// the length of that run, and the heaviest increasing run of sections stays (a weighted
/// longest increasing subsequence; under a pure reversal, the heaviest section). Ties, in
/// this order: fewest moves, then most sections kept, then the sections earliest in the old
/// order. Items that change section move whichever sections stay.
struct SectionMatching<SectionID: Hashable & Sendable> {
    /// For each old section, its index among the new sections if it stays, or nil if deleted.
    let keptNewIndexByOldIndex: [Int?]
    /// For each new section, whether it is an old section that stays (false: inserted).
    let isNewSectionKept: [Bool]

    /// Chooses the sections that stay.
    ///
    /// - Parameters:
    ///   - old: The old sections' identifiers, in order.
    ///   - new: The new sections' identifiers, in order.
    ///   - itemsKeptInPlace: For an old section and its namesake among the new sections (old
    ///     index, new index), how many of its items stay in order if that section stays.
    /// - Complexity: O(*s* log *s*) for *s* sections, expected (hashing), plus the calls to
    ///   `itemsKeptInPlace`, one per section present in both.
    init(old: [SectionID], new: [SectionID], itemsKeptInPlace: (_ oldIndex: Int, _ newIndex: Int) -> Int) {
        var newIndexByID: [SectionID: Int] = [:]
        newIndexByID.reserveCapacity(new.count)
        for (index, id) in new.enumerated() {
            newIndexByID[id] = index
        }

        var commonOldIndexes: [Int] = []
        var commonNewIndexes: [Int] = []
        var weights: [(count: Int, preferred: Int)] = []
        for (oldIndex, id) in old.enumerated() {
            if let newIndex = newIndexByID[id] {
                commonOldIndexes.append(oldIndex)
                commonNewIndexes.append(newIndex)
                // Items kept in place first (fewest moves), then one for the section (most kept).
                weights.append((itemsKeptInPlace(oldIndex, newIndex), 1))
            }
        }

        var keptNewIndexByOldIndex = [Int?](repeating: nil, count: old.count)
        var isNewSectionKept = [Bool](repeating: false, count: new.count)
        // Among equally heavy runs it keeps the earliest sections in old order.
        let staysInOrder = heaviestIncreasingSubsequenceMembers(commonNewIndexes, weights: weights)
        for (position, isInOrder) in staysInOrder.enumerated() where isInOrder {
            keptNewIndexByOldIndex[commonOldIndexes[position]] = commonNewIndexes[position]
            isNewSectionKept[commonNewIndexes[position]] = true
        }
        self.keptNewIndexByOldIndex = keptNewIndexByOldIndex
        self.isNewSectionKept = isNewSectionKept
    }
}
