import RosterUpdates

/// A ``LiveResults``' whole results at one change, as a ``ResultsSnapshot`` holds them
/// without copying every key: a ``FrozenOrder`` of its engine, read under the live results'
/// lock, and turned into sections of keys the first time someone asks (then kept).
///
/// A change costs O(sections) to snapshot this way, whatever the number of rows, and a
/// consumer that reads a change's batch and group but not its snapshot never pays O(n).
final class FrozenSections: Sendable {
    /// The order, readable only under `lock`.
    private let order: FrozenOrder
    private let lock: OwnerLock
    private let materialized = Locked<[ListSection<Value, Value>]?>(nil)

    /// Runs `body` under the lock of the live results whose engine the order reads.
    typealias OwnerLock = @Sendable (_ body: () -> Void) -> Void

    init(_ results: IncrementalResults, lock: @escaping OwnerLock) {
        order = FrozenOrder(results: results)
        self.lock = lock
    }

    /// Every section, in order, with its number of rows. O(1).
    var sectionInfos: [SectionInfo] { order.sections }

    /// Where each section starts among the rows. O(1).
    var starts: [Int] { order.starts }

    /// How many rows. O(1).
    var count: Int { order.count }

    /// The sections of keys, made once. Takes the owner's lock: call it outside it.
    var sections: [ListSection<Value, Value>] {
        if let sections = materialized.withLock({ $0 }) { return sections }
        var made: [ListSection<Value, Value>] = []
        lock { made = order.listSections }
        return materialized.withLock { kept in
            if kept == nil { kept = made }
            return kept ?? made
        }
    }

    /// ``sections``, for the owner, which holds its lock already; not kept (the owner
    /// holds its latest frozen order until the next change: keeping the arrays would hold
    /// every key twice).
    var sectionsUnderLock: [ListSection<Value, Value>] {
        materialized.withLock({ $0 }) ?? order.listSections
    }

    /// The key of the row at a rank. Takes the owner's lock. O(log n).
    func key(atRank rank: Int) -> Value {
        if let sections = materialized.withLock({ $0 }) {
            let section = Self.section(containing: rank, starts: order.starts)
            return sections[section].items[rank - order.starts[section]]
        }
        var key = Value.null
        lock { key = order.key(atRank: rank) }
        return key
    }

    /// The index of the last section that starts at or before `rank`.
    static func section(containing rank: Int, starts: [Int]) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= rank { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

extension EngineLock {
    /// The lock, as the frozen orders of a ``LiveResults``' snapshots take it.
    var frozenReads: FrozenSections.OwnerLock {
        { body in self.withLock(body) }
    }
}
