import Testing
import RosterUpdates

/// Every pair of small snapshots, checked against the brute-force oracle.
@Suite("SnapshotDiff exhaustive")
struct SnapshotDiffExhaustiveTests {
    /// Every snapshot of up to three of the items a, b, c over the section names X, Y, Z.
    static let threeItemSnapshots = allSnapshots(items: ["a", "b", "c"], sectionIDs: ["X", "Y", "Z"])
    /// Every snapshot holding all four items a, b, c, d over the section names X, Y.
    static let fourItemSnapshots = allSnapshots(items: ["a", "b", "c", "d"], sectionIDs: ["X", "Y"])
        .filter { $0.reduce(0) { $0 + $1.items.count } == 4 }

    @Test func generatorListsEverySnapshotOnce() {
        // 1 empty + 9 of one item + 54 of two + 126 of three; 24 orders × (2 + 3·2) for four.
        #expect(Self.threeItemSnapshots.count == 190)
        #expect(Set(Self.threeItemSnapshots).count == 190)
        #expect(Self.fourItemSnapshots.count == 192)
        #expect(Set(Self.fourItemSnapshots).count == 192)
    }

    /// All 36,100 pairs, in slices that run in parallel.
    @Test(arguments: 0..<4)
    func everyPairOfThreeItemSnapshotsDiffsCorrectly(slice: Int) {
        let olds = Array(Self.threeItemSnapshots.enumerated()).filter { $0.offset % 4 == slice }.map(\.element)
        checkAllPairs(olds: olds, news: Self.threeItemSnapshots)
    }

    /// One four-item snapshot per order of a, b, c, d (24, cut and named in each of the 8 ways
    /// in turn) against all 192: 4,608 pairs, which keeps the suite fast in debug builds.
    @Test(arguments: 0..<2)
    func fourItemSnapshotsDiffCorrectlyAgainstEveryOther(slice: Int) {
        // The generator lists the 8 cuttings and namings of each order together.
        let olds = stride(from: slice, to: 24, by: 2).map { order in Self.fourItemSnapshots[order * 8 + order % 8] }
        checkAllPairs(olds: olds, news: Self.fourItemSnapshots)
    }

    /// Checks every old snapshot against every new one, with a different set of updated items
    /// for each pair.
    private func checkAllPairs(olds: [Snapshot], news: [Snapshot]) {
        let universe = ["a", "b", "c", "d"]
        var failures = 0
        for (oldIndex, old) in olds.enumerated() {
            for (newIndex, new) in news.enumerated() {
                let pairNumber = oldIndex * news.count + newIndex
                let updated = Set(universe.enumerated().filter { (pairNumber + $0.offset) % 3 == 0 }.map(\.element))
                if let problem = diffProblem(old: old, new: new, updated: updated) {
                    failures += 1
                    Issue.record(Comment(rawValue: problem))
                    if failures >= 5 { return }
                }
            }
        }
    }
}

/// Every snapshot over `items` and `sectionIDs`: every ordered choice of items, cut into
/// non-empty sections in every way, each section named by a distinct identifier.
func allSnapshots(items: [String], sectionIDs: [String]) -> [Snapshot] {
    var snapshots: [Snapshot] = []
    for arrangement in orderedSubsets(of: items) {
        for blocks in compositions(of: arrangement, maxBlocks: sectionIDs.count) {
            for names in orderedSubsets(of: sectionIDs) where names.count == blocks.count {
                snapshots.append(zip(names, blocks).map { ListSection(id: $0, items: $1) })
            }
        }
    }
    return snapshots
}

/// Every ordered selection of distinct elements, the empty one included.
private func orderedSubsets(of elements: [String]) -> [[String]] {
    var result: [[String]] = [[]]
    for (index, element) in elements.enumerated() {
        var rest = elements
        rest.remove(at: index)
        result += orderedSubsets(of: rest).map { [element] + $0 }
    }
    return result
}

/// Every way to cut `elements` into at most `maxBlocks` consecutive non-empty blocks
/// (the empty list has one way: no blocks).
private func compositions(of elements: [String], maxBlocks: Int) -> [[[String]]] {
    guard !elements.isEmpty else { return [[]] }
    guard maxBlocks > 0 else { return [] }
    var result: [[[String]]] = []
    for firstLength in 1...elements.count {
        let first = Array(elements.prefix(firstLength))
        for rest in compositions(of: Array(elements.dropFirst(firstLength)), maxBlocks: maxBlocks - 1) {
            result.append([first] + rest)
        }
    }
    return result
}
