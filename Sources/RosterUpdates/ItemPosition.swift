import Foundation

/// A two-element index path as two integers: what ``BatchAdapter`` sorts, de-duplicates
/// and searches. `IndexPath` keeps its indexes behind a storage enum, so each of the
/// million comparisons and hashes of a batch of 10,000 reloads went through it (most of
/// what building that batch cost); two integers compare in a few instructions.
@usableFromInline
struct ItemPosition: Comparable, Hashable {
    @usableFromInline var section: Int
    @usableFromInline var item: Int

    @inlinable
    init(_ path: IndexPath) {
        section = path.section
        item = path.item
    }

    @inlinable
    var indexPath: IndexPath { IndexPath(item: item, section: section) }

    /// Section first, then item: `IndexPath`'s order for two-element paths.
    @inlinable
    static func < (lhs: ItemPosition, rhs: ItemPosition) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.item < rhs.item
    }
}

extension Array where Element == ItemPosition {
    /// The positions sorted ascending, each once.
    @inlinable
    func sortedUnique() -> [ItemPosition] {
        var sorted = self.sorted()
        guard sorted.count > 1 else { return sorted }
        var kept = 1
        for index in 1..<sorted.count where sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }

    /// Whether this array, sorted ascending, holds `position` (binary search).
    @inlinable
    func sortedContains(_ position: ItemPosition) -> Bool {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] == position
    }
}
