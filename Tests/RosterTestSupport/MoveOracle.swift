import RosterUpdates

/// The fewest object moves that can turn `old` into `new`, and the sections to keep for
/// them, by brute force over every set of sections present in both: deliberately not the
/// algorithm under test.
///
/// A set of sections can stay when it has the same order in both snapshots. An object that
/// stays in the results moves unless its section stays and it is in a longest run of that
/// section's objects that keep their order. Among the sets with the fewest moves, the one
/// with most sections wins, then the one whose old indexes come first lexicographically —
/// the tie order that Docs/ChangeConventions.md states.
///
/// - Returns: The number of moves, and the identifiers of the sections kept, in old order;
///   nil when more than 16 sections are present in both (too many to try every set).
public func fewestMoves<S: Hashable, I: Hashable>(
    from old: [ListSection<S, I>], to new: [ListSection<S, I>]
) -> (moves: Int, keptSections: [S])? {
    var newLocation: [I: (section: Int, item: Int)] = [:]
    for (sectionIndex, section) in new.enumerated() {
        for (itemIndex, item) in section.items.enumerated() { newLocation[item] = (sectionIndex, itemIndex) }
    }
    var newSectionIndex: [S: Int] = [:]
    for (index, section) in new.enumerated() { newSectionIndex[section.id] = index }
    let common = old.indices.filter { newSectionIndex[old[$0].id] != nil }
    guard common.count <= 16 else { return nil }

    let stayingCount = old.reduce(0) { count, section in count + section.items.filter { newLocation[$0] != nil }.count }
    var inPlaceByOldIndex: [Int: Int] = [:]
    for oldIndex in common {
        let namesake = newSectionIndex[old[oldIndex].id]
        let landing = old[oldIndex].items.compactMap { item in
            newLocation[item].flatMap { $0.section == namesake ? $0.item : nil }
        }
        inPlaceByOldIndex[oldIndex] = longestIncreasingLength(landing)
    }

    var best: (moves: Int, kept: [Int]) = (stayingCount, [])
    for mask in 1..<(1 << common.count) {
        let kept = common.indices.filter { mask & (1 << $0) != 0 }.map { common[$0] }
        let newOrder = kept.compactMap { newSectionIndex[old[$0].id] }
        guard zip(newOrder, newOrder.dropFirst()).allSatisfy({ $0 < $1 }) else { continue }
        let moves = stayingCount - kept.reduce(0) { $0 + (inPlaceByOldIndex[$1] ?? 0) }
        let isBetter = moves < best.moves
            || (moves == best.moves && kept.count > best.kept.count)
            || (moves == best.moves && kept.count == best.kept.count && kept.lexicographicallyPrecedes(best.kept))
        if isBetter { best = (moves, kept) }
    }
    return (best.moves, best.kept.map { old[$0].id })
}

/// The length of a longest strictly increasing subsequence, by quadratic dynamic programming:
/// deliberately not the algorithm under test.
public func longestIncreasingLength(_ values: [Int]) -> Int {
    var bestEndingAt = [Int](repeating: 1, count: values.count)
    for later in values.indices {
        for earlier in 0..<later where values[earlier] < values[later] {
            bestEndingAt[later] = max(bestEndingAt[later], bestEndingAt[earlier] + 1)
        }
    }
    return bestEndingAt.max() ?? 0
}

/// How many move events a group holds.
public func moveCount<S, I>(_ group: ChangeGroup<S, I>) -> Int {
    group.objectChanges.filter { $0.type == .move }.count
}
