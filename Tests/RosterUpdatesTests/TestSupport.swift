import Foundation
import Testing
import RosterUpdates

/// Snapshots in tests: sections named by strings, items by strings.
typealias Snapshot = [Section<String, String>]
typealias Group = ChangeGroup<String, String>

/// `[section, item]` in one short call.
func path(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

func sectionDelete(_ index: Int, _ name: String) -> SectionChange<String> {
    SectionChange(type: .delete, index: index, section: name)
}

func sectionInsert(_ index: Int, _ name: String) -> SectionChange<String> {
    SectionChange(type: .insert, index: index, section: name)
}

func objectInsert(_ item: String, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .insert, item: item, from: nil, to: to)
}

func objectDelete(_ item: String, from: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .delete, item: item, from: from, to: nil)
}

func objectMove(_ item: String, from: IndexPath, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .move, item: item, from: from, to: to)
}

func objectUpdate(_ item: String, from: IndexPath, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .update, item: item, from: from, to: to)
}

/// A small deterministic random number generator (SplitMix64), so random cases repeat.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The length of a longest strictly increasing subsequence, by quadratic dynamic programming:
/// deliberately not the algorithm under test.
func longestIncreasingLength(_ values: [Int]) -> Int {
    var bestEndingAt = [Int](repeating: 1, count: values.count)
    for later in values.indices {
        for earlier in 0..<later where values[earlier] < values[later] {
            bestEndingAt[later] = max(bestEndingAt[later], bestEndingAt[earlier] + 1)
        }
    }
    return bestEndingAt.max() ?? 0
}

/// Every path of a snapshot, by item.
func pathsByItem(_ snapshot: Snapshot) -> [String: IndexPath] {
    var paths: [String: IndexPath] = [:]
    for (sectionIndex, section) in snapshot.enumerated() {
        for (itemIndex, item) in section.items.enumerated() {
            paths[item] = path(sectionIndex, itemIndex)
        }
    }
    return paths
}
