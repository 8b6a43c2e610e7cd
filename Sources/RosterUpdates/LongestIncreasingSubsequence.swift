/// Marks a longest strictly increasing subsequence of `values`.
///
/// Patience sorting with binary search: among equally long subsequences it keeps the one
/// that ends on the smallest values, so the answer is deterministic.
///
/// - Parameter values: The sequence, typically new positions listed in old order.
/// - Returns: One flag per value, true for the values in the subsequence.
/// - Complexity: O(*n* log *n*) time, O(*n*) space.
func longestIncreasingSubsequenceMembers(_ values: [Int]) -> [Bool] {
    // tailIndexes[k]: index (into values) of the smallest tail of an increasing run of length k + 1.
    var tailIndexes: [Int] = []
    tailIndexes.reserveCapacity(values.count)
    // predecessor[i]: index of the value before values[i] in the best run ending at i.
    var predecessor = [Int](repeating: -1, count: values.count)

    for (index, value) in values.enumerated() {
        var low = 0
        var high = tailIndexes.count
        while low < high {
            let middle = (low + high) / 2
            if values[tailIndexes[middle]] < value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low > 0 {
            predecessor[index] = tailIndexes[low - 1]
        }
        if low == tailIndexes.count {
            tailIndexes.append(index)
        } else {
            tailIndexes[low] = index
        }
    }

    var isMember = [Bool](repeating: false, count: values.count)
    var cursor = tailIndexes.last ?? -1
    while cursor >= 0 {
        isMember[cursor] = true
        cursor = predecessor[cursor]
    }
    return isMember
}

/// Marks the increasing subsequence of `values` with the greatest total weight, weights
/// compared as (count, preferred) pairs; among several, the one that keeps the earliest
/// elements.
///
/// The diff uses it so that moves are as few as possible and, among equally few, edited
/// items move rather than unchanged ones. Because the choice depends only on which
/// elements are kept, a caller may merge runs of elements that are consecutive in both
/// orders into one weighted element (the incremental live query does, for untouched
/// rows) and get the same answer.
///
/// - Parameters:
///   - values: Distinct non-negative integers (new positions listed in old order).
///   - weights: One (count, preferred) pair per value.
/// - Returns: One flag per value, true for the values kept.
/// - Complexity: O(*n* log *m*) for *n* values below *m*, with a Fenwick tree of maxima.
package func heaviestIncreasingSubsequenceMembers(_ values: [Int], weights: [(count: Int, preferred: Int)]) -> [Bool] {
    guard let largest = values.max() else { return [] }
    typealias Weight = (count: Int, preferred: Int)
    func isHeavier(_ a: Weight, _ b: Weight) -> Bool { (a.count, a.preferred) > (b.count, b.preferred) }
    // tree over reversed values: position p holds the best chain starting at a value >= largest - p + 1.
    var tree = [Weight](repeating: (0, 0), count: largest + 2)
    var bestStart = [Weight](repeating: (0, 0), count: values.count)
    var best: Weight = (0, 0)
    for index in values.indices.reversed() {
        // The best chain that starts after `index` on a larger value.
        var found: Weight = (0, 0)
        var position = largest - values[index]  // values above v[index] map to 1...largest - v
        while position > 0 {
            if isHeavier(tree[position], found) { found = tree[position] }
            position -= position & -position
        }
        let chain: Weight = (found.count + weights[index].count, found.preferred + weights[index].preferred)
        bestStart[index] = chain
        if isHeavier(chain, best) { best = chain }
        position = largest - values[index] + 1
        while position < tree.count {
            if isHeavier(chain, tree[position]) { tree[position] = chain }
            position += position & -position
        }
    }
    var isMember = [Bool](repeating: false, count: values.count)
    var remaining = best
    var last = -1
    for index in values.indices where remaining.count > 0 {
        guard values[index] > last, bestStart[index] == remaining else { continue }
        isMember[index] = true
        remaining = (remaining.count - weights[index].count, remaining.preferred - weights[index].preferred)
        last = values[index]
    }
    return isMember
}
