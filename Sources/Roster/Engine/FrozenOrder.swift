import Foundation
@_spi(RosterEngine) import RosterUpdates

/// The order of an ``IncrementalResults``' rows at one moment, kept while the results move
/// on: what a snapshot of whole results lists, taken in O(sections) instead of copying
/// every key.
///
/// It holds a copy of the results' tree (which shares its nodes until the results change
/// them, copy-on-write) and reads each key from the results' ``IncrementalResults/Arena``,
/// which keeps the key of a row released while a frozen order lives (``FrozenGenerations``),
/// so that no id it lists is given to another row.
///
/// Not thread-safe: the arena it reads is the live results'. Read it where they are
/// changed, under the lock of whoever owns them (``FrozenSections`` does).
final class FrozenOrder: @unchecked Sendable {
    private let tree: CountedBTree<Int32>
    private let arena: IncrementalResults.Arena
    private let generation: Int
    /// Every section, in order, with its number of rows.
    let sections: [SectionInfo]
    /// Where each section starts among the rows.
    let starts: [Int]

    init(results: IncrementalResults) {
        tree = results.tree
        arena = results.arena
        sections = results.sectionInfos()
        var starts: [Int] = []
        starts.reserveCapacity(sections.count)
        var total = 0
        for section in sections {
            starts.append(total)
            total += section.numberOfObjects
        }
        self.starts = starts
        generation = arena.generations.open()
    }

    deinit {
        arena.generations.close(generation)
    }

    /// How many rows.
    var count: Int { tree.count }

    /// The key of the row at a rank. O(log n).
    func key(atRank rank: Int) -> Value { arena.keys[Int(tree[rank])] }

    /// The rows as sections of keys. O(n).
    var listSections: [ListSection<Value, Value>] {
        sections.indices.map { index in
            var keys: [Value] = []
            keys.reserveCapacity(sections[index].numberOfObjects)
            tree.forEach(in: starts[index]..<(starts[index] + sections[index].numberOfObjects)) { keys.append(arena.keys[Int($0)]) }
            return ListSection(id: sections[index].name, items: keys)
        }
    }
}

/// Which frozen orders of an arena live (``FrozenOrder``), by the generation each was
/// taken at: the arena keeps the key of a row it releases until every frozen order taken
/// before the release is gone. Thread-safe: a frozen order ends wherever its last
/// reference goes.
final class FrozenGenerations: @unchecked Sendable {
    private struct State {
        var latest = 0
        /// How many frozen orders live, by generation.
        var live: [Int: Int] = [:]
    }

    private var state = State()
    // NSLock, not Mutex: ThreadSanitizer follows POSIX mutexes (see `Locked`).
    private let lock = NSLock()

    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// A new frozen order's generation.
    func open() -> Int {
        withState { state in
            state.latest += 1
            state.live[state.latest, default: 0] += 1
            return state.latest
        }
    }

    /// A frozen order of this generation ended.
    func close(_ generation: Int) {
        withState { state in
            let remaining = state.live[generation, default: 1] - 1
            state.live[generation] = remaining == 0 ? nil : remaining
        }
    }

    /// The latest generation: a row released now is listed by frozen orders up to it.
    var latest: Int { withState { $0.latest } }

    /// The oldest generation a frozen order lives at; nil when none lives.
    var oldestLive: Int? { withState { $0.live.keys.min() } }
}
