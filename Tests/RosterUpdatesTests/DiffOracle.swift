import Foundation
import RosterUpdates
import RosterTestSupport

/// Checks everything the contract says about the diff of `old` → `new` and the batches made of
/// it, against independent brute-force computations.
///
/// - Returns: The first problem found, described for a person, or nil.
func diffProblem(old: Snapshot, new: Snapshot, updated: Set<String>) -> String? {
    let group = SnapshotDiff.changes(from: old, to: new) { updated.contains($0) }
    var context: String { "\(describe(old)) → \(describe(new)), updated \(updated.sorted())" }
    if let problem = eventOrderProblem(group) ?? eventContentProblem(group, old: old, new: new, updated: updated) {
        return "\(problem) for \(context)\n  group: \(group)"
    }
    do {
        let applied = try group.apply(to: old)
        if applied != new {
            return "group.apply gives \(describe(applied)) for \(context)"
        }
    } catch {
        return "group.apply throws \(error) for \(context)\n  group: \(group)"
    }
    let expectedReloads = group.objectChanges.filter { $0.type == .update }.compactMap { $0.from }.sorted()
    for keepsMoves in [false, true] {
        let batch = BatchAdapter(keepsMoves: keepsMoves).batch(for: group)
        do {
            try batch.validate(old: old, new: new)
        } catch {
            return "batch (keepsMoves: \(keepsMoves)) rejected: \(error) for \(context)\n  batch: \(batch)"
        }
        if !keepsMoves && !batch.moveItems.isEmpty {
            return "batch without keepsMoves has moves for \(context)"
        }
        if batch.reloadItems != expectedReloads {
            return "batch reloads \(batch.reloadItems), expected \(expectedReloads) for \(context)"
        }
    }
    return nil
}

/// Section deletes, section inserts, then object inserts, deletes, moves, updates, each ascending.
private func eventOrderProblem(_ group: Group) -> String? {
    let sectionKeys = group.sectionChanges.map { [$0.type == .delete ? 0 : 1, $0.index] }
    let objectRank: [ObjectChangeType: Int] = [.insert: 0, .delete: 1, .move: 2, .update: 3]
    let objectKeys = group.objectChanges.map { change -> [Int] in
        let ordering = change.type == .delete || change.type == .update ? change.from : change.to
        return [objectRank[change.type]!] + Array(ordering ?? [])
    }
    for keys in [sectionKeys, objectKeys] {
        for (earlier, later) in zip(keys, keys.dropFirst()) where !earlier.lexicographicallyPrecedes(later) {
            return "events out of order (\(earlier) before \(later))"
        }
    }
    return nil
}

private func eventContentProblem(_ group: Group, old: Snapshot, new: Snapshot, updated: Set<String>) -> String? {
    let oldPaths = pathsByItem(old)
    let newPaths = pathsByItem(new)
    let deletedSections = Set(group.sectionChanges.filter { $0.type == .delete }.map { $0.section })
    let insertedSections = Set(group.sectionChanges.filter { $0.type == .insert }.map { $0.section })
    for change in group.sectionChanges {
        let sections = change.type == .delete ? old : new
        guard sections.indices.contains(change.index), sections[change.index].id == change.section else {
            return "section event \(change) does not name its section"
        }
    }
    let kept = old.map { $0.id }.filter { !deletedSections.contains($0) }
    guard kept == new.map({ $0.id }).filter({ !insertedSections.contains($0) }) else {
        return "the sections that stay are not the same, in the same order, before and after"
    }
    guard let best = fewestMoves(from: old, to: new) else { return "too many sections for the oracle" }
    guard kept == best.keptSections else {
        return "sections \(kept) stay, but \(best.keptSections) should (\(best.moves) moves, ties by most kept, then earliest)"
    }

    var eventsByItem: [String: ObjectChange<String>] = [:]
    for change in group.objectChanges {
        guard eventsByItem.updateValue(change, forKey: change.item) == nil else { return "two events for \(change.item)" }
        guard change.from == (change.type == .insert ? nil : oldPaths[change.item]),
              change.to == (change.type == .delete ? nil : newPaths[change.item])
        else { return "event \(change) has wrong paths" }
    }

    var expectedMoveCount = 0
    for section in old {
        var inPlaceNewIndexes: [Int] = []
        for item in section.items {
            guard let to = newPaths[item] else {
                guard eventsByItem[item]?.type == .delete else { return "\(item) leaves without a delete" }
                continue
            }
            let staysInSection = !deletedSections.contains(section.id) && new[to.section].id == section.id
            if staysInSection {
                inPlaceNewIndexes.append(to.item)
            } else {
                expectedMoveCount += 1
                guard eventsByItem[item]?.type == .move else { return "\(item) changes section without a move" }
            }
            let isMoved = eventsByItem[item]?.type == .move
            let expected: ObjectChangeType? = isMoved ? .move : (updated.contains(item) ? .update : nil)
            guard eventsByItem[item]?.type == expected else { return "\(item) gets \(String(describing: eventsByItem[item]?.type)), expected \(String(describing: expected))" }
        }
        expectedMoveCount += inPlaceNewIndexes.count - longestIncreasingLength(inPlaceNewIndexes)
    }
    for item in newPaths.keys where oldPaths[item] == nil {
        guard eventsByItem[item]?.type == .insert else { return "\(item) arrives without an insert" }
    }
    let moveCount = group.objectChanges.filter { $0.type == .move }.count
    guard moveCount == expectedMoveCount else { return "\(moveCount) moves, but \(expectedMoveCount) suffice" }
    guard moveCount == best.moves else { return "\(moveCount) moves, but \(best.moves) suffice with other sections kept" }
    return nil
}

/// A snapshot in one line: `a:[p1,p2] b:[p3]`.
func describe(_ snapshot: Snapshot) -> String {
    "{" + snapshot.map { "\($0.id):[\($0.items.joined(separator: ","))]" }.joined(separator: " ") + "}"
}
