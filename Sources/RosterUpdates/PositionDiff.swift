import Foundation

/// A snapshot as ``PositionDiff`` sees it: its sections' identifiers and item counts. Items
/// are numbered by position, `0..<total`, section after section.
@_spi(RosterEngine) public struct SnapshotShape<SectionID> {
    /// The sections' identifiers, in order.
    public var sections: [SectionID]
    /// Each section's item count, in the same order.
    public var counts: [Int]

    /// A shape of these sections, with these item counts.
    public init(sections: [SectionID], counts: [Int]) {
        self.sections = sections
        self.counts = counts
    }

    /// Where each section starts among the positions, and the total.
    var startsAndTotal: (starts: [Int], total: Int) {
        var starts: [Int] = []
        starts.reserveCapacity(counts.count)
        var total = 0
        for count in counts {
            starts.append(total)
            total += count
        }
        return (starts, total)
    }
}

/// ``SnapshotDiff``'s rules, worked on positions rather than items: the one
/// implementation of them. ``SnapshotDiff`` finds where each old item went with a hash
/// table of items; a caller that already knows (the incremental engine, whose rows carry
/// ids and hashed keys) calls this directly and never builds the snapshots.
///
/// Items are touched only to name them in the callbacks, and `isUpdated` only for items
/// that stay, so the cost is O(*n*) for *n* items plus O(*r* log *r*) for the *r* runs of
/// staying items that keep their neighbours — few, when a change is small against its
/// results.
///
/// Not API: public only under the SPI `RosterEngine`. The work on positions is not generic
/// over the items; only naming them is, inlined into the caller, so that Roster's engine
/// builds its object changes specialized (generic code looked up the metadata of
/// `ObjectChange<Item>` three times a change, a tenth of the diff of a bulk commit).
@_spi(RosterEngine) public enum PositionDiff {
    /// The callbacks that turn `old` into `new`.
    ///
    /// - Parameters:
    ///   - old: the old snapshot's sections and counts.
    ///   - new: the new snapshot's sections and counts.
    ///   - newPosition: for each old position, the item's position in `new`, or -1 when the
    ///     item left. No two old positions name the same new position.
    ///   - oldItem: the item at an old position.
    ///   - newItem: the item at a new position.
    ///   - isUpdated: whether the item at an old position, which stays, changed its values.
    @inlinable
    public static func changes<S: Hashable & Sendable, I: Hashable & Sendable>(
        from old: SnapshotShape<S>, to new: SnapshotShape<S>, newPosition: [Int32],
        oldItem: (Int) -> I, newItem: (Int) -> I, isUpdated: (Int) -> Bool
    ) -> ChangeGroup<S, I> {
        let (sectionChanges, events) = plan(from: old, to: new, newPosition: newPosition, isUpdated: isUpdated)
        var objectChanges: [ObjectChange<I>] = []
        objectChanges.reserveCapacity(events.count)
        for event in events {
            objectChanges.append(ObjectChange(type: event.type, item: event.isOld ? oldItem(event.position) : newItem(event.position),
                                              from: event.from, to: event.to))
        }
        return ChangeGroup(sectionChanges: sectionChanges, objectChanges: objectChanges)
    }

    /// One object change, its item named by position: an old position (`isOld`) for
    /// deletes and updates, a new one for inserts and moves.
    @usableFromInline
    struct Event {
        @usableFromInline let type: ObjectChangeType
        @usableFromInline let position: Int
        @usableFromInline let isOld: Bool
        @usableFromInline let from: IndexPath?
        @usableFromInline let to: IndexPath?
    }

    /// The section changes, and the object changes by position in callback order: inserts,
    /// deletes, moves, updates.
    @usableFromInline
    static func plan<S: Hashable & Sendable>(
        from old: SnapshotShape<S>, to new: SnapshotShape<S>, newPosition: [Int32], isUpdated: (Int) -> Bool
    ) -> (sections: [SectionChange<S>], events: [Event]) {
        let (oldStarts, oldTotal) = old.startsAndTotal
        let (newStarts, newTotal) = new.startsAndTotal
        precondition(newPosition.count == oldTotal, "one new position per old item")

        var newSectionOfPosition = [Int32](repeating: 0, count: newTotal)
        for (section, start) in newStarts.enumerated() {
            for position in start..<(start + new.counts[section]) { newSectionOfPosition[position] = Int32(section) }
        }
        var oldPosition = [Int32](repeating: -1, count: newTotal)
        for (position, target) in newPosition.enumerated() where target >= 0 { oldPosition[Int(target)] = Int32(position) }

        let runs = InPlaceRuns(old: old, new: new, oldStarts: oldStarts, newStarts: newStarts, newPosition: newPosition,
                               newSectionOfPosition: newSectionOfPosition, isUpdated: isUpdated)
        let sections = SectionMatching(old: old.sections, new: new.sections) { oldIndex, _ in runs.keptCount[oldIndex] }

        var sectionChanges: [SectionChange<S>] = []
        for (oldIndex, keptAs) in sections.keptNewIndexByOldIndex.enumerated() where keptAs == nil {
            sectionChanges.append(SectionChange(type: .delete, index: oldIndex, section: old.sections[oldIndex]))
        }
        for (newIndex, isKept) in sections.isNewSectionKept.enumerated() where !isKept {
            sectionChanges.append(SectionChange(type: .insert, index: newIndex, section: new.sections[newIndex]))
        }

        // A staying item moves unless its section stays and it is in that section's run.
        var staysInPlace = runs.isInRun
        for (section, keptAs) in sections.keptNewIndexByOldIndex.enumerated() where keptAs == nil {
            for position in oldStarts[section]..<(oldStarts[section] + old.counts[section]) { staysInPlace[position] = false }
        }
        func oldPath(_ position: Int) -> IndexPath {
            let section = Self.section(of: position, starts: oldStarts)
            return IndexPath(item: position - oldStarts[section], section: section)
        }

        // Index paths are made only for the changes: most positions of a large snapshot
        // have none.
        var inserts: [Event] = []
        var moves: [Event] = []
        for (section, start) in newStarts.enumerated() {
            for position in start..<(start + new.counts[section]) {
                let from = Int(oldPosition[position])
                if from < 0 {
                    inserts.append(Event(type: .insert, position: position, isOld: false, from: nil,
                                         to: IndexPath(item: position - start, section: section)))
                } else if !staysInPlace[from] {
                    moves.append(Event(type: .move, position: position, isOld: false, from: oldPath(from),
                                       to: IndexPath(item: position - start, section: section)))
                }
            }
        }

        var deletes: [Event] = []
        var updates: [Event] = []
        for (section, start) in oldStarts.enumerated() {
            for position in start..<(start + old.counts[section]) {
                let target = Int(newPosition[position])
                if target < 0 {
                    deletes.append(Event(type: .delete, position: position, isOld: true,
                                         from: IndexPath(item: position - start, section: section), to: nil))
                } else if staysInPlace[position] && isUpdated(position) {
                    let newSection = Int(newSectionOfPosition[target])
                    updates.append(Event(type: .update, position: position, isOld: true,
                                         from: IndexPath(item: position - start, section: section),
                                         to: IndexPath(item: target - newStarts[newSection], section: newSection)))
                }
            }
        }

        return (sectionChanges, inserts + deletes + moves + updates)
    }

    /// The section a position falls in: the last whose start is at or before it.
    private static func section(of position: Int, starts: [Int]) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// For each old section whose identifier is among the new sections: which of its items stay
/// in place if the section stays — a heaviest run of the items that land in its namesake
/// whose new order agrees with their old order.
///
/// Items that are neighbours in both orders are weighed as one element
/// (``heaviestIncreasingSubsequenceMembers(_:weights:)`` allows it): a small change to a
/// large section leaves few such runs.
private struct InPlaceRuns<S: Hashable & Sendable> {
    /// Per old section, how many items stay in place if it stays (0 for a section not in `new`).
    private(set) var keptCount: [Int]
    /// Per old position, whether the item is in its section's in-place run.
    private(set) var isInRun: [Bool]

    init(old: SnapshotShape<S>, new: SnapshotShape<S>, oldStarts: [Int], newStarts: [Int], newPosition: [Int32],
         newSectionOfPosition: [Int32], isUpdated: (Int) -> Bool) {
        var newIndexByID: [S: Int] = [:]
        newIndexByID.reserveCapacity(new.sections.count)
        for (index, id) in new.sections.enumerated() { newIndexByID[id] = index }
        keptCount = [Int](repeating: 0, count: old.sections.count)
        isInRun = [Bool](repeating: false, count: newPosition.count)

        var runStarts: [Int] = []
        var runEnds: [Int] = []
        var runFirstItems: [Int] = []
        var weights: [(count: Int, preferred: Int)] = []
        for (section, id) in old.sections.enumerated() {
            guard let namesake = newIndexByID[id] else { continue }
            runStarts.removeAll(keepingCapacity: true)
            runEnds.removeAll(keepingCapacity: true)
            runFirstItems.removeAll(keepingCapacity: true)
            weights.removeAll(keepingCapacity: true)
            var lastItem = -2
            let start = oldStarts[section]
            for position in start..<(start + old.counts[section]) {
                let target = Int(newPosition[position])
                guard target >= 0, Int(newSectionOfPosition[target]) == namesake else { continue }
                let item = target - newStarts[namesake]
                // Among equally few moves, keep unchanged items in place and move edited ones.
                let preferred = isUpdated(position) ? 0 : 1
                if let end = runEnds.last, end == position, item == lastItem + 1 {
                    runEnds[runEnds.count - 1] = position + 1
                    weights[weights.count - 1].count += 1
                    weights[weights.count - 1].preferred += preferred
                } else {
                    runStarts.append(position)
                    runEnds.append(position + 1)
                    runFirstItems.append(item)
                    weights.append((1, preferred))
                }
                lastItem = item
            }
            let staysInOrder = heaviestIncreasingSubsequenceMembers(runFirstItems, weights: weights)
            for (run, isInOrder) in staysInOrder.enumerated() where isInOrder {
                keptCount[section] += runEnds[run] - runStarts[run]
                for position in runStarts[run]..<runEnds[run] { isInRun[position] = true }
            }
        }
    }
}
