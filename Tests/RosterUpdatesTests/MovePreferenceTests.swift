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

    @Test func heaviestSubsequenceMatchesBruteForceOnEveryPermutationOfFive() {
        var random = SplitMix64(seed: 11)
        for permutation in permutations(Array(0..<5)) {
            for _ in 0..<3 {
                let weights = permutation.map { _ in (count: Int.random(in: 1...3, using: &random), preferred: Int.random(in: 0...1, using: &random)) }
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
