import Foundation
import Testing
@testable import RosterUpdates

@Suite("Which objects move")
struct MovePreferenceTests {
    @Test func theEditedObjectMovesRatherThanItsUnchangedNeighbour() {
        // p1 was edited so that it now sorts after p2: one move either way; p1 is the one.
        let old: Snapshot = [Section(id: "s", items: ["p2", "p1"])]
        let new: Snapshot = [Section(id: "s", items: ["p1", "p2"])]
        let movingP1 = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 == "p1" })
        #expect(movingP1.objectChanges == [objectMove("p1", from: path(0, 1), to: path(0, 0))])
        let movingP2 = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 == "p2" })
        #expect(movingP2.objectChanges == [objectMove("p2", from: path(0, 0), to: path(0, 1))])
    }

    @Test func preferenceNeverCostsAnExtraMove() {
        // Moving the one edited item c would take one move; keeping it and moving a, b would take two.
        let old: Snapshot = [Section(id: "s", items: ["a", "b", "c"])]
        let new: Snapshot = [Section(id: "s", items: ["c", "a", "b"])]
        let group = SnapshotDiff.changes(from: old, to: new, isUpdated: { $0 != "c" })
        #expect(group.objectChanges.filter { $0.type == .move }.map(\.item) == ["c"])
    }

    @Test func weightedSubsequenceIsLongestThenMostPreferredOnEveryPermutationOfFive() {
        var random = SplitMix64(seed: 11)
        for permutation in permutations(Array(0..<5)) {
            let preferred = permutation.map { _ in Bool.random(using: &random) }
            let members = longestIncreasingSubsequenceMembers(permutation, preferring: preferred)
            let chosen = permutation.indices.filter { members[$0] }
            #expect(zip(chosen, chosen.dropFirst()).allSatisfy { permutation[$0] < permutation[$1] })
            #expect(chosen.count == longestIncreasingLength(permutation))
            let bestPreferred = bestPreferredCount(permutation, preferred, length: chosen.count)
            #expect(chosen.filter { preferred[$0] }.count == bestPreferred, "\(permutation) \(preferred)")
        }
    }

    private func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[Int]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// By brute force over every subset: the most preferred values an increasing run of `length` can hold.
    private func bestPreferredCount(_ values: [Int], _ preferred: [Bool], length: Int) -> Int {
        var best = -1
        for mask in 0..<(1 << values.count) {
            let chosen = values.indices.filter { mask & (1 << $0) != 0 }
            guard chosen.count == length, zip(chosen, chosen.dropFirst()).allSatisfy({ values[$0] < values[$1] }) else { continue }
            best = max(best, chosen.filter { preferred[$0] }.count)
        }
        return best
    }
}
