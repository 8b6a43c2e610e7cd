import Foundation
import Testing
import RosterTestSupport
@testable import RosterUpdates

@Suite("Which objects move")
struct MovePreferenceTests {
    @Test func theEditedObjectMovesRatherThanItsUnchangedNeighbour() {
        // p1 was edited so that it now sorts after p2: one move either way; p1 is the one.
        let old: Snapshot = [ListSection(id: "s", items: ["p2", "p1"])]
        let new: Snapshot = [ListSection(id: "s", items: ["p1", "p2"])]
        let movingP1 = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 == "p1" })
        #expect(movingP1.objectChanges == [objectMove("p1", from: path(0, 1), to: path(0, 0))])
        let movingP2 = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 == "p2" })
        #expect(movingP2.objectChanges == [objectMove("p2", from: path(0, 0), to: path(0, 1))])
    }

    @Test func preferenceNeverCostsAnExtraMove() {
        // Moving the one edited item c would take one move; keeping it and moving a, b would take two.
        let old: Snapshot = [ListSection(id: "s", items: ["a", "b", "c"])]
        let new: Snapshot = [ListSection(id: "s", items: ["c", "a", "b"])]
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 != "c" })
        #expect(group.objectChanges.filter { $0.type == .move }.map(\.item) == ["c"])
    }

    @Test func theSectionThatKeepsMostObjectsStaysWhenSectionsReverse() {
        // Keeping A and re-inserting B would move b1, b2, b3; keeping B moves only a1.
        let old: Snapshot = [ListSection(id: "A", items: ["a1"]), ListSection(id: "B", items: ["b1", "b2", "b3"])]
        let new: Snapshot = [ListSection(id: "B", items: ["b1", "b2", "b3"]), ListSection(id: "A", items: ["a1"])]
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { _ in false })
        #expect(group.sectionChanges == [sectionDelete(0, "A"), sectionInsert(1, "A")])
        #expect(group.objectChanges == [objectMove("a1", from: path(0, 0), to: path(1, 0))])
    }

    @Test func sectionsThatKeepFewerObjectsInOrderGiveWayToOneThatKeepsMore() {
        // Order A B C → C A B. Keeping A and B (the longest run of sections) moves c1…c4;
        // keeping C alone moves a1 and b1, which is fewer.
        let old: Snapshot = [
            ListSection(id: "A", items: ["a1"]), ListSection(id: "B", items: ["b1"]), ListSection(id: "C", items: ["c1", "c2", "c3", "c4"]),
        ]
        let new: Snapshot = [old[2], old[0], old[1]]
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { _ in false })
        #expect(group.sectionChanges == [sectionDelete(0, "A"), sectionDelete(1, "B"), sectionInsert(1, "A"), sectionInsert(2, "B")])
        #expect(group.objectChanges.map(\.item) == ["a1", "b1"])
    }

    @Test func onATieOfMovesMoreSectionsStay() {
        // A B C → B C A. Keeping A alone moves b1 and c1; keeping B and C moves a1 and a2.
        let old: Snapshot = [ListSection(id: "A", items: ["a1", "a2"]), ListSection(id: "B", items: ["b1"]), ListSection(id: "C", items: ["c1"])]
        let new: Snapshot = [old[1], old[2], old[0]]
        // Two moves either way, so the two sections stay.
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { _ in false })
        #expect(group.sectionChanges == [sectionDelete(0, "A"), sectionInsert(2, "A")])
    }

    @Test func onATieOfMovesAndSectionsTheEarliestOldSectionStays() {
        let old: Snapshot = [ListSection(id: "A", items: ["a1", "a2"]), ListSection(id: "B", items: ["b1", "b2"])]
        let new: Snapshot = [old[1], old[0]]
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { _ in false })
        #expect(group.sectionChanges == [sectionDelete(1, "B"), sectionInsert(0, "B")])
        #expect(group.objectChanges.map(\.item) == ["b1", "b2"])
    }

    @Test func heaviestSubsequenceMatchesBruteForceOnEveryPermutationOfFive() {
        var random = SplitMix64(seed: 11)
        for permutation in permutations(Array(0..<5)) {
            for _ in 0..<3 {
                let weights = permutation.map { _ in (count: Int.random(in: 0...3, using: &random), preferred: Int.random(in: 0...1, using: &random)) }
                let members = heaviestIncreasingSubsequenceMembers(permutation, weights: weights)
                let chosen = permutation.indices.filter { members[$0] }
                #expect(chosen == bruteForceChoice(permutation, weights), "\(permutation) \(weights)")
            }
        }
    }

    /// By brute force over every subset: the heaviest increasing one, weights compared as
    /// (count, preferred); of those, the one keeping the earliest positions.
    private func bruteForceChoice(_ values: [Int], _ weights: [(count: Int, preferred: Int)]) -> [Int] {
        var best: (weight: (Int, Int), chosen: [Int])?
        for mask in 0..<(1 << values.count) {
            let chosen = values.indices.filter { mask & (1 << $0) != 0 }
            guard zip(chosen, chosen.dropFirst()).allSatisfy({ values[$0] < values[$1] }) else { continue }
            let weight = chosen.reduce((0, 0)) { ($0.0 + weights[$1].count, $0.1 + weights[$1].preferred) }
            if let current = best {
                if weight > current.weight || (weight == current.weight && chosen.lexicographicallyPrecedes(current.chosen)) {
                    best = (weight, chosen)
                }
            } else {
                best = (weight, chosen)
            }
        }
        return best?.chosen ?? []
    }

    private func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[Int]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

}
