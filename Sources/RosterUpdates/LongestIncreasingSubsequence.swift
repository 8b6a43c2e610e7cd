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

/// Marks a longest strictly increasing subsequence of `values` that, among all the
/// longest ones, holds as many `preferred` values as it can.
///
/// The diff uses it so that, when several sets of moves are equally small, the objects
/// that stay in place are the ones whose values did not change: an edited row that sorts
/// elsewhere is the one reported as moving, as a person reading the list would say.
///
/// - Parameters:
///   - values: Distinct non-negative integers (new positions listed in old order).
///   - preferred: One flag per value.
/// - Returns: One flag per value, true for the values in the subsequence.
/// - Complexity: O(*n* log *m*) time for *n* values below *m*, with a Fenwick tree of maxima.
func longestIncreasingSubsequenceMembers(_ values: [Int], preferring preferred: [Bool]) -> [Bool] {
    guard let largest = values.max() else { return [] }
    // tree[i]: the best (length, preferred count, end index) of a run ending on a value in i's range.
    typealias Best = (length: Int, preferred: Int, end: Int)
    var tree = [Best](repeating: (0, 0, -1), count: largest + 2)
    func better(_ a: Best, _ b: Best) -> Bool { (a.length, a.preferred) > (b.length, b.preferred) }
    var predecessor = [Int](repeating: -1, count: values.count)
    var overall: Best = (0, 0, -1)
    for (index, value) in values.enumerated() {
        // The best run ending on a value below `value`.
        var best: Best = (0, 0, -1)
        var position = value  // Fenwick positions are 1-based: values 0..<value live at 1...value.
        while position > 0 {
            if better(tree[position], best) { best = tree[position] }
            position -= position & -position
        }
        let candidate: Best = (best.length + 1, best.preferred + (preferred[index] ? 1 : 0), index)
        predecessor[index] = best.end
        if better(candidate, overall) { overall = candidate }
        position = value + 1
        while position < tree.count {
            if better(candidate, tree[position]) { tree[position] = candidate }
            position += position & -position
        }
    }
    var isMember = [Bool](repeating: false, count: values.count)
    var cursor = overall.end
    while cursor >= 0 {
        isMember[cursor] = true
        cursor = predecessor[cursor]
    }
    return isMember
}
