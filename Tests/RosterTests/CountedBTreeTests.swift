import RosterTestSupport
import Testing
@testable import Roster

/// Checks `CountedBTree` against a sorted array that does the same edits the slow way.
@Suite struct CountedBTreeTests {
    // MARK: Seeded random edits

    @Test("random edits match a sorted array after every step", arguments: CountedBTreeShape.small, [1, 2, 3] as [UInt64])
    func randomEditsMatchASortedArray(shape: CountedBTreeShape, seed: UInt64) {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ UInt64(shape.leaf))
        var tree = IntTree(compare: intOrder, capacities: shape.capacities)
        var reference: [Int] = []
        let valueRange = 600
        for step in 0..<3_000 {
            // Alternate growing and shrinking phases so trees get deep, then empty out.
            let insertChance = (step / 600).isMultiple(of: 2) ? 75 : 20
            let value = Int.random(in: 0..<valueRange, using: &random)
            let expectedRank = reference.sortedInsertionIndex(of: value)
            let isPresent = reference.holds(value, at: expectedRank)
            if !isPresent && Int.random(in: 0..<100, using: &random) < insertChance {
                let rank = tree.insert(value)
                reference.insert(value, at: expectedRank)
                #expect(rank == expectedRank, "insert \(value) at step \(step)")
            } else {
                let rank = tree.remove(value)
                if isPresent { reference.remove(at: expectedRank) }
                #expect(rank == (isPresent ? expectedRank : nil), "remove \(value) at step \(step)")
            }
            let probes = [value, Int.random(in: -1...valueRange, using: &random)]
            let matched = expectTree(tree, matches: reference, probes: probes, using: &random,
                                     context: "seed \(seed) \(shape) step \(step)")
            if !matched { return }
            if step % 500 == 499 {
                #expect(tree._invariantViolation() == nil, "seed \(seed) \(shape) step \(step)")
                guard expectEveryPosition(tree, matches: reference) else { return }
            }
        }
        tree._checkInvariants()
    }

    @Test("edits by rank, mixed with edits by comparison, match a sorted array", arguments: CountedBTreeShape.all, [4, 5] as [UInt64])
    func editsByRankMatchASortedArray(shape: CountedBTreeShape, seed: UInt64) {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ UInt64(shape.leaf))
        // Even values, so that an odd value always fits between two neighbours.
        var reference = (0..<300).map { $0 * 4 }
        var tree = IntTree(sorted: reference, compare: intOrder, capacities: shape.capacities)
        for step in 0..<600 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !reference.isEmpty:
                let rank = Int.random(in: 0..<reference.count, using: &random)
                let removed = tree[rank]
                tree.removeSubrange(rank..<(rank + 1))
                #expect(removed == reference.remove(at: rank), "remove at \(rank), step \(step)")
            case 1:
                // A value that sorts at `rank`: between its neighbours.
                let rank = Int.random(in: 0...reference.count, using: &random)
                let low = rank == 0 ? -1_000_000 : reference[rank - 1]
                let high = rank == reference.count ? 1_000_000 : reference[rank]
                guard high - low > 1 else { continue }
                let value = Int.random(in: (low + 1)..<high, using: &random)
                tree.insert(contentsOf: [value], atRank: rank)
                reference.insert(value, at: rank)
            case 2 where reference.count > 20:
                // A run moved as a block: removed by rank, shifted past its neighbours,
                // inserted by rank, as a renamed section is; runs longer than a leaf too.
                let start = Int.random(in: 0..<(reference.count - 10), using: &random)
                let length = Int.random(in: 1...min(reference.count - start, step.isMultiple(of: 3) ? 200 : 10), using: &random)
                let run = Array(reference[start..<(start + length)])
                tree.removeSubrange(start..<(start + length))
                reference.removeSubrange(start..<(start + length))
                // Shifted so that no other value falls inside the run (else back where it was).
                let shift = Int.random(in: -3_000...3_000, using: &random)
                let target = reference.sortedInsertionIndex(of: run[0] + shift)
                let fits = target == reference.sortedInsertionIndex(of: run[length - 1] + shift + 1)
                let moved = fits ? run.map { $0 + shift } : run
                let rank = fits ? target : start
                tree.insert(contentsOf: moved, atRank: rank)
                reference.insert(contentsOf: moved, at: rank)
            default:
                let value = Int.random(in: -1_000...2_000, using: &random)
                let rank = reference.sortedInsertionIndex(of: value)
                if reference.holds(value, at: rank) { continue }
                #expect(tree.insert(value) == rank)
                reference.insert(value, at: rank)
            }
            #expect(tree.count == reference.count)
            if step % 10 == 9 {
                #expect(tree._invariantViolation() == nil, "seed \(seed) \(shape) step \(step)")
                guard expectEveryPosition(tree, matches: reference) else { return }
            }
        }
        tree._checkInvariants()
        _ = expectEveryPosition(tree, matches: reference)
    }

    @Test("removing an element that is absent changes nothing")
    func removingAnAbsentElementChangesNothing() {
        var tree = IntTree(sorted: Array(stride(from: 0, to: 200, by: 2)), compare: intOrder,
                           capacities: .init(leaf: 4, inner: 4))
        for absent in [-5, 1, 99, 199, 500] {
            #expect(tree.remove(absent) == nil)
        }
        #expect(tree.elements == Array(stride(from: 0, to: 200, by: 2)))
        tree._checkInvariants()
        var empty = IntTree(compare: intOrder)
        #expect(empty.remove(3) == nil)
        #expect(empty.isEmpty && empty.elements.isEmpty && empty.insertionRank(of: 3) == 0)
    }

    // MARK: Exhaustive small cases

    @Test("every insertion order of 1…6, then removals in several orders", arguments: CountedBTreeShape.tiny)
    func everyInsertionOrderThenRemovals(shape: CountedBTreeShape) {
        let values = Array(1...6)
        for insertionOrder in permutations(of: values) {
            var tree = IntTree(compare: intOrder, capacities: shape.capacities)
            guard replay(insertions: insertionOrder, into: &tree, reference: []) else { return }
            let removalOrders = [values, values.reversed(), insertionOrder, insertionOrder.reversed()]
            for removalOrder in removalOrders {
                guard replay(removals: removalOrder, from: tree, reference: values) else { return }
            }
        }
    }

    @Test("every removal order of 1…6 from trees built in a few ways", arguments: CountedBTreeShape.tiny)
    func everyRemovalOrderFromAFewTrees(shape: CountedBTreeShape) {
        let values = Array(1...6)
        var trees = [IntTree(sorted: values, compare: intOrder, capacities: shape.capacities)]
        for insertionOrder in [values, values.reversed(), [4, 1, 6, 2, 5, 3]] {
            var tree = IntTree(compare: intOrder, capacities: shape.capacities)
            guard replay(insertions: insertionOrder, into: &tree, reference: []) else { return }
            trees.append(tree)
        }
        for tree in trees {
            for removalOrder in permutations(of: values) {
                guard replay(removals: removalOrder, from: tree, reference: values) else { return }
            }
        }
    }

    // MARK: Bulk build

    @Test("a bulk-built tree of any size is sound and takes random edits", arguments: CountedBTreeShape.all)
    func bulkBuildOfManySizesThenRandomEdits(shape: CountedBTreeShape) {
        let leaf = shape.leaf
        let twoLevels = leaf * shape.inner
        let sizes = [0, 1, 2, 3, leaf - 1, leaf, leaf + 1, 2 * leaf, 2 * leaf + 1,
                     twoLevels - 1, twoLevels, twoLevels + 1, 1_000, 10_000]
        var random = SplitMix64(seed: UInt64(leaf * 1_000 + shape.inner))
        for size in Set(sizes.filter { $0 >= 0 }).sorted() {
            var reference = (0..<size).map { $0 * 3 }
            var tree = IntTree(sorted: reference, compare: intOrder, capacities: shape.capacities)
            #expect(tree._invariantViolation() == nil, "size \(size) \(shape) after build")
            guard expectEveryPosition(tree, matches: reference) else { return }
            let edits = size > 2_000 ? 300 : 200
            for step in 0..<edits {
                let value = Int.random(in: -3...(3 * size + 3), using: &random)
                let expectedRank = reference.sortedInsertionIndex(of: value)
                if reference.holds(value, at: expectedRank) {
                    #expect(tree.remove(value) == expectedRank)
                    reference.remove(at: expectedRank)
                } else {
                    #expect(tree.insert(value) == expectedRank)
                    reference.insert(value, at: expectedRank)
                }
                let matched = expectTree(tree, matches: reference, probes: [value], using: &random,
                                         checksAllElements: size <= 2_000,
                                         context: "size \(size) \(shape) edit \(step)")
                if !matched { return }
            }
            #expect(tree._invariantViolation() == nil, "size \(size) \(shape) after edits")
            guard expectEveryPosition(tree, matches: reference) else { return }
        }
    }

    @Test("piece sizes stay within capacity and at least half full")
    func pieceSizesStayWithinBounds() {
        for capacity in 2...40 {
            for total in 1...(capacity * 12) {
                let sizes = IntTree.pieceSizes(total: total, capacity: capacity, minimum: capacity / 2)
                let fits = sizes.reduce(0, +) == total && sizes.allSatisfy { $0 <= capacity && $0 >= 1 }
                    && (sizes.count == 1 || sizes.allSatisfy { $0 >= capacity / 2 })
                #expect(fits, "capacity \(capacity) total \(total): \(sizes)")
                if !fits { return }
            }
        }
    }

    // MARK: Copies

    @Test("changing a copy leaves the original as it was, and the other way round")
    func copiesAreIndependent() {
        let original = Array(0..<500).map { $0 * 2 }
        var tree = IntTree(sorted: original, compare: intOrder, capacities: .init(leaf: 4, inner: 4))
        var copy = tree
        var copyReference = original
        for value in stride(from: 0, to: 1_000, by: 3) {
            let rank = copyReference.sortedInsertionIndex(of: value)
            if copyReference.holds(value, at: rank) {
                copy.remove(value)
                copyReference.remove(at: rank)
            } else {
                copy.insert(value)
                copyReference.insert(value, at: rank)
            }
        }
        #expect(tree.elements == original)
        #expect(copy.elements == copyReference)
        tree._checkInvariants()
        copy._checkInvariants()

        for value in original.prefix(300) { tree.remove(value) }
        #expect(tree.elements == Array(original.dropFirst(300)))
        #expect(copy.elements == copyReference)
        tree._checkInvariants()
        copy._checkInvariants()
    }

    @Test("snapshots taken between random edits keep their contents")
    func snapshotsKeepTheirContents() {
        var random = SplitMix64(seed: 77)
        var tree = IntTree(sorted: Array(0..<300), compare: intOrder, capacities: .init(leaf: 3, inner: 4))
        var reference = Array(0..<300)
        var snapshots: [(tree: IntTree, elements: [Int])] = []
        for step in 0..<3_000 {
            let value = Int.random(in: 0..<400, using: &random)
            let rank = reference.sortedInsertionIndex(of: value)
            if reference.holds(value, at: rank) {
                tree.remove(value)
                reference.remove(at: rank)
            } else {
                tree.insert(value)
                reference.insert(value, at: rank)
            }
            if step % 25 == 0 { snapshots.append((tree, reference)) }
        }
        #expect(tree.elements == reference)
        for (index, snapshot) in snapshots.enumerated() {
            #expect(snapshot.tree.elements == snapshot.elements, "snapshot \(index)")
            #expect(snapshot.tree._invariantViolation() == nil, "snapshot \(index)")
        }
    }

    // MARK: Elements that carry more than their key

    @Test("element(equalTo:) returns the stored element for a probe that only has its key")
    func elementEqualToReturnsTheStoredElement() {
        let rows = (0..<1_000).map { KeyedRow(key: $0 * 2, payload: "row \($0)") }
        var tree = CountedBTree<KeyedRow>(sorted: rows, compare: KeyedRow.compareKeys,
                                          capacities: .init(leaf: 8, inner: 4))
        #expect(tree.element(equalTo: KeyedRow(key: 500, payload: ""))?.payload == "row 250")
        #expect(tree.element(equalTo: KeyedRow(key: 501, payload: "")) == nil)
        #expect(tree.remove(KeyedRow(key: 0, payload: "")) == 0)
        #expect(tree.rank(of: KeyedRow(key: 2, payload: "")) == 0)
        #expect(tree[0].payload == "row 1")
    }
}

// MARK: - Helpers

private typealias IntTree = CountedBTree<Int>

private func intOrder(_ first: Int, _ second: Int) -> Int {
    first < second ? -1 : (first == second ? 0 : 1)
}

/// Node capacities a test runs with; small ones make deep trees out of few elements.
struct CountedBTreeShape: Sendable, CustomTestStringConvertible {
    let leaf: Int
    let inner: Int

    /// The smallest shapes, for exhaustive cases over six elements.
    static let tiny = [CountedBTreeShape(leaf: 2, inner: 4), CountedBTreeShape(leaf: 3, inner: 4)]
    /// Small shapes for random edits of a few hundred elements.
    static let small = tiny + [CountedBTreeShape(leaf: 4, inner: 5), CountedBTreeShape(leaf: 7, inner: 6)]
    /// Small shapes and the standard one.
    static let all = small + [CountedBTreeShape(leaf: 128, inner: 64)]

    var capacities: CountedBTree<Int>.Capacities { .init(leaf: leaf, inner: inner) }
    var testDescription: String { "leaf \(leaf) inner \(inner)" }
}

/// A row whose order depends on its key alone.
private struct KeyedRow: Equatable {
    let key: Int
    let payload: String

    static func compareKeys(_ first: KeyedRow, _ second: KeyedRow) -> Int {
        intOrder(first.key, second.key)
    }
}


extension [Int] {
    /// The number of elements less than `value`, in this sorted array.
    fileprivate func sortedInsertionIndex(of value: Int) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether `value` sits at `rank`, its insertion rank in this sorted array.
    fileprivate func holds(_ value: Int, at rank: Int) -> Bool {
        rank < count && self[rank] == value
    }
}

/// Compares the tree's answers with `reference` for the given probes and for a few
/// positions and ranges drawn from `random`, recording one issue listing every mismatch.
///
/// - Returns: Whether everything matched, so a long run can stop at its first bad step.
@discardableResult
private func expectTree(
    _ tree: IntTree, matches reference: [Int], probes: [Int], using random: inout SplitMix64,
    checksAllElements: Bool = true, context: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    var problems: [String] = []
    if tree.count != reference.count || tree.isEmpty != reference.isEmpty {
        problems.append("count \(tree.count), expected \(reference.count)")
    }
    if checksAllElements && tree.elements != reference { problems.append("elements differ") }
    for probe in probes {
        let rank = reference.sortedInsertionIndex(of: probe)
        let isPresent = reference.holds(probe, at: rank)
        if tree.insertionRank(of: probe) != rank { problems.append("insertionRank(of: \(probe))") }
        if tree.rank(of: probe) != (isPresent ? rank : nil) { problems.append("rank(of: \(probe))") }
        if tree.element(equalTo: probe) != (isPresent ? probe : nil) { problems.append("element(equalTo: \(probe))") }
    }
    if !reference.isEmpty {
        for rank in [0, reference.count - 1, Int.random(in: 0..<reference.count, using: &random)]
        where tree[rank] != reference[rank] {
            problems.append("[\(rank)]")
        }
        let lower = Int.random(in: 0...reference.count, using: &random)
        let upper = Int.random(in: lower...Swift.min(reference.count, lower + 40), using: &random)
        var visited: [Int] = []
        tree.forEach(in: lower..<upper) { visited.append($0) }
        if visited != Array(reference[lower..<upper]) { problems.append("forEach(in: \(lower)..<\(upper))") }
    }
    #expect(problems.isEmpty, "\(context()): \(problems.joined(separator: ", "))", sourceLocation: sourceLocation)
    return problems.isEmpty
}

/// Compares every position, and ranges starting at each position, with `reference`.
@discardableResult
private func expectEveryPosition(
    _ tree: IntTree, matches reference: [Int], sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    var problems: [String] = []
    if tree.elements != reference { problems.append("elements differ") }
    for (rank, value) in reference.enumerated() {
        if tree[rank] != value { problems.append("[\(rank)]") }
        if tree.rank(of: value) != rank { problems.append("rank(of: \(value))") }
    }
    let stride = Swift.max(reference.count / 50, 1)
    for lower in Swift.stride(from: 0, through: reference.count, by: stride) {
        let upper = Swift.min(reference.count, lower + 2 * stride + 5)
        var visited: [Int] = []
        tree.forEach(in: lower..<upper) { visited.append($0) }
        if visited != Array(reference[lower..<upper]) { problems.append("forEach(in: \(lower)..<\(upper))") }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: ", "))", sourceLocation: sourceLocation)
    return problems.isEmpty
}

/// Inserts `insertions` into `tree` one by one, checking everything after each step.
private func replay(insertions: [Int], into tree: inout IntTree, reference: [Int]) -> Bool {
    var reference = reference
    var random = SplitMix64(seed: 5)
    for value in insertions {
        let expectedRank = reference.sortedInsertionIndex(of: value)
        reference.insert(value, at: expectedRank)
        let rank = tree.insert(value)
        guard rank == expectedRank, tree._invariantViolation() == nil,
              expectEveryPosition(tree, matches: reference),
              expectTree(tree, matches: reference, probes: [value, 0, 7], using: &random,
                         context: "inserting \(insertions)")
        else {
            Issue.record("inserting \(insertions): went wrong at \(value)")
            return false
        }
    }
    return true
}

/// Removes `removals` from a copy of `tree` one by one, checking everything after each step.
private func replay(removals: [Int], from tree: IntTree, reference: [Int]) -> Bool {
    var tree = tree
    var reference = reference
    var random = SplitMix64(seed: 6)
    for value in removals {
        let expectedRank = reference.sortedInsertionIndex(of: value)
        reference.remove(at: expectedRank)
        let rank = tree.remove(value)
        guard rank == expectedRank, tree._invariantViolation() == nil,
              expectEveryPosition(tree, matches: reference),
              expectTree(tree, matches: reference, probes: [value, 0, 7], using: &random,
                         context: "removing \(removals)")
        else {
            Issue.record("removing \(removals): went wrong at \(value)")
            return false
        }
    }
    return true
}

/// Every ordering of `values`, in lexicographic order of positions.
private func permutations(of values: [Int]) -> [[Int]] {
    guard values.count > 1 else { return [values] }
    return values.indices.flatMap { index in
        var rest = values
        let first = rest.remove(at: index)
        return permutations(of: rest).map { [first] + $0 }
    }
}
