import Foundation
import Testing
import RosterTestSupport
import RosterUpdates

/// Seeded random snapshots, larger than the exhaustive ones, checked against the same oracle.
@Suite("SnapshotDiff random")
struct SnapshotDiffRandomTests {
    @Test(arguments: 0..<4)
    func randomChangesDiffCorrectly(slice: UInt64) {
        var failures = 0
        for seed in stride(from: slice, to: 240, by: 4) {
            var random = SplitMix64(seed: seed)
            let old = randomSnapshot(itemCount: Int.random(in: 0...60, using: &random), using: &random)
            let new = randomChange(of: old, using: &random)
            let updated = Set(pathsByItem(old).keys.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
            if let problem = diffProblem(old: old, new: new, updated: updated) {
                failures += 1
                Issue.record(Comment(rawValue: "seed \(seed): \(problem)"))
                if failures >= 3 { return }
            }
        }
    }

    /// Random pairs in which the order of the sections changes (reversed or shuffled), as a
    /// sort that flips the section key does: the moves must be the fewest any choice of
    /// staying sections allows.
    @Test(arguments: 0..<4)
    func reorderedSectionsMoveTheFewestObjects(slice: UInt64) {
        var failures = 0
        for seed in stride(from: slice, to: 400, by: 4) {
            var random = SplitMix64(seed: 10_000 + seed)
            let old = randomSnapshot(itemCount: Int.random(in: 1...40, using: &random), using: &random)
            var new = Int.random(in: 0..<3, using: &random) == 0 ? randomChange(of: old, using: &random) : old
            new = Int.random(in: 0..<2, using: &random) == 0 ? new.reversed() : new.shuffled(using: &random)
            let updated = Set(pathsByItem(old).keys.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
            if let problem = diffProblem(old: old, new: new, updated: updated) {
                failures += 1
                Issue.record(Comment(rawValue: "seed \(seed): \(problem)"))
                if failures >= 3 { return }
            }
        }
    }

    /// A hundred thousand items: a quadratic step would take minutes here.
    @Test func hundredThousandItemsDiffAndApplyQuickly() throws {
        var random = SplitMix64(seed: 2026)
        let old: Snapshot = (0..<100).map { section in
            ListSection(id: "s\(section)", items: (0..<1_000).map { "i\(section * 1_000 + $0)" })
        }
        var new = old
        for section in new.indices {
            new[section].items.removeAll { _ in Int.random(in: 0..<50, using: &random) == 0 }
            for _ in 0..<10 {
                let from = Int.random(in: new[section].items.indices, using: &random)
                let item = new[section].items.remove(at: from)
                new[section].items.insert(item, at: Int.random(in: 0...new[section].items.count, using: &random))
            }
            new[section].items.append("n\(section)")
        }
        new.swapAt(10, 90)
        let group = SnapshotDiff.changes(from: old, to: new) { $0.hasSuffix("7") }
        #expect(group.sectionChanges.count == 4)
        #expect(group.objectChanges.filter { $0.type == .insert }.count == 100)
        #expect(try group.apply(to: old) == new)
        let batch = BatchAdapter().batch(for: group)
        try batch.validate(old: old, new: new)
        #expect(batch.insertSections == [10, 90])
    }
}

/// A snapshot of `itemCount` items `i0`, `i1`, … over some of the section names `s0` … `s7`.
func randomSnapshot(itemCount: Int, using random: inout SplitMix64) -> Snapshot {
    let names = Array((0..<8).map { "s\($0)" }.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random)))
    var itemsByName: [String: [String]] = [:]
    for index in 0..<itemCount {
        itemsByName[names.randomElement(using: &random)!, default: []].append("i\(index)")
    }
    return names.compactMap { name in itemsByName[name].map { ListSection(id: name, items: $0) } }
}

/// `snapshot` after random deletes, inserts, moves inside and across sections, and section
/// reorders, renames and removals.
func randomChange(of snapshot: Snapshot, using random: inout SplitMix64) -> Snapshot {
    func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    // Each item gets a section name and a rank; the new snapshot groups and sorts by them.
    var placed: [(item: String, section: String, rank: Double)] = []
    for section in snapshot {
        for (index, item) in section.items.enumerated() where !chance(15) {
            let name = chance(15) ? "s\(Int.random(in: 0..<10, using: &random))" : section.id
            let rank = chance(15) ? Double.random(in: -1...Double(section.items.count), using: &random) : Double(index)
            placed.append((item, name, rank))
        }
    }
    for index in 0..<Int.random(in: 0...8, using: &random) {
        placed.append(("new\(index)", "s\(Int.random(in: 0..<10, using: &random))", Double.random(in: -1...20, using: &random)))
    }

    var order = snapshot.map { $0.id }
    if chance(40), order.count > 1 {
        order.swapAt(Int.random(in: order.indices, using: &random), Int.random(in: order.indices, using: &random))
    }
    for name in (0..<10).map({ "s\($0)" }).shuffled(using: &random) where !order.contains(name) {
        order.insert(name, at: Int.random(in: 0...order.count, using: &random))
    }
    return order.compactMap { name -> ListSection<String, String>? in
        let items = placed.filter { $0.section == name }.sorted { ($0.rank, $0.item) < ($1.rank, $1.item) }.map { $0.item }
        return items.isEmpty ? nil : ListSection(id: name, items: items)
    }
}
