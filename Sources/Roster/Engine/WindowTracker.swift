import RosterUpdates

/// Where a window stands over a live query's results, and the rows its consumer last saw
/// in it: the one place that places a ``ResultsWindow``.
///
/// The owner (``ResultsController``) keeps its results whole in an engine; after every
/// change it places the window again (``place(in:)``) and diffs what the window shows now
/// with ``shown``, so that the consumer hears the change of the window only.
struct WindowTracker: Sendable {
    /// The window, with its anchor as it stands now (an anchor that left the results has
    /// been replaced by its nearest neighbour that stayed).
    private(set) var window: ResultsWindow
    /// The window's rows as its consumer last saw them, as sections of keys: the owner's
    /// to diff with; placing does not read it.
    var shown: [ListSection<Value, Value>] = []
    /// The ranks the window covered when last placed.
    private(set) var ranks: Range<Int> = 0..<0
    /// The first rank past the window as it would stand with rows enough: a change only
    /// to rows at or past it (before and after) leaves the window as it is.
    private(set) var reach = Int.max
    /// The keys the window covered when last placed, in order (from rank
    /// `ranks.lowerBound`): where the neighbours of an anchor that left are looked for.
    private var placedKeys: [Value] = []
    /// Whether an anchored window was placed over no rows at all (the results emptied): the
    /// first row of the results, when rows enter again, is its anchor — the old anchor's
    /// too, should it be among them (Docs/ScriptFormat.md, windows).
    private var isEmptied = false

    /// A window not placed yet; `placedKeys` and `firstRank` say where it stood, when known
    /// (a resume token's rows), for an anchor that left the results before it is placed.
    init(_ window: ResultsWindow, placedKeys: [Value] = [], firstRank: Int = 0) {
        self.window = window
        self.placedKeys = placedKeys
        ranks = firstRank..<firstRank
    }

    /// Checks that an anchored window's anchor is in `engine`'s results.
    ///
    /// - Throws: ``StoreError/Code/invalidWindow`` when it is not.
    static func check(_ window: ResultsWindow, in engine: any ResultsEngine, entity: String) throws(StoreError) {
        guard case let .anchored(key, _, _) = window, engine.rank(ofKey: key) == nil else { return }
        throw anchorMissing(key, entity: entity)
    }

    /// The error for an anchored window whose anchor is not in the results.
    static func anchorMissing(_ key: Value, entity: String) -> StoreError {
        .invalidWindow("the window's anchor \(entity) \(key) is not in the live query's results", key: key)
    }

    /// Places the window over `engine`'s results and returns the rows it shows now, as
    /// sections of keys (``shown`` is left as it was: the caller diffs the two).
    ///
    /// An anchored window whose anchor row left the results takes as its anchor the first
    /// row that stayed among those it covered below the anchor when last placed, else the
    /// nearest that stayed above it, else the row now at the anchor's old rank; with no
    /// rows at all it keeps its anchor and shows nothing, until rows enter: the first of
    /// them is its anchor.
    ///
    /// - Complexity: O(log *n* + the window's size), plus O(window · log *n*) when the
    ///   anchor left.
    mutating func place(in engine: any ResultsEngine) -> [ListSection<Value, Value>] {
        let count = engine.count
        switch window {
        case let .offset(offset, length):
            let lower = min(offset, count)
            ranks = lower..<(length >= count - lower ? count : lower + length)
            reach = offset + min(length, Int.max - offset)
        case let .anchored(key, before, after):
            guard let (anchor, rank) = anchorRow(key, in: engine) else {
                ranks = 0..<0
                reach = Int.max
                isEmptied = true
                break
            }
            isEmptied = false
            window = .anchored(key: anchor, before: before, after: after)
            ranks = (before >= rank ? 0 : rank - before)..<(after >= count - rank - 1 ? count : rank + after + 1)
            reach = rank + 1 + min(after, Int.max - rank - 1)
        }
        let sections = engine.sections(inRanks: ranks)
        placedKeys = sections.flatMap(\.items)
        return sections
    }

    /// The anchor row and its rank: `key`'s, or its nearest neighbour's that stayed
    /// (``ScrollPosition``'s rule), else the row now at the anchor's old rank.
    private func anchorRow(_ key: Value, in engine: any ResultsEngine) -> (Value, Int)? {
        if isEmptied { return engine.count > 0 ? (engine.key(atRank: 0), 0) : nil }
        if let found = ScrollPosition.nearest(to: key, among: placedKeys, locate: { engine.rank(ofKey: $0) }) { return found }
        guard engine.count > 0 else { return nil }
        let rank = min(ranks.lowerBound + (placedKeys.firstIndex(of: key) ?? 0), engine.count - 1)
        return (engine.key(atRank: rank), rank)
    }
}

extension ListSection where SectionID == Value, ItemID == Value {
    /// Rows in order, as sections: consecutive rows with the same section name form one.
    static func grouping(_ rows: some Sequence<(key: Value, section: Value)>) -> [ListSection<Value, Value>] {
        var sections: [ListSection<Value, Value>] = []
        var items: [Value] = []
        var name: Value?
        for (key, section) in rows {
            if let current = name, current != section {
                sections.append(ListSection(id: current, items: items))
                items = []
            }
            name = section
            items.append(key)
        }
        if let name { sections.append(ListSection(id: name, items: items)) }
        return sections
    }
}
