/// Marks the increasing subsequence of `values` with the greatest total weight, weights
/// compared as (count, preferred) pairs; among several, the one that keeps the earliest
/// elements.
///
/// The diff uses it twice: inside a section, so that moves are as few as possible and,
/// among equally few, edited items move rather than unchanged ones; and across sections,
/// weighing each section by the items it keeps in place, so that the sections that stay
/// are the ones that save the most moves. Because the choice depends only on which
/// elements are kept, a caller may merge runs of elements that are consecutive in both
/// orders into one weighted element (the incremental live query does, for untouched
/// rows) and get the same answer.
///
/// - Parameters:
///   - values: Distinct non-negative integers (new positions listed in old order).
///   - weights: One (count, preferred) pair per value, neither negative.
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
    for index in values.indices where remaining != (0, 0) {
        guard values[index] > last, bestStart[index] == remaining else { continue }
        isMember[index] = true
        remaining = (remaining.count - weights[index].count, remaining.preferred - weights[index].preferred)
        last = values[index]
    }
    return isMember
}
