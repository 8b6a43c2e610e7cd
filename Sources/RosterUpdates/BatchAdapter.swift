import Foundation

/// Turns a group of NSFetchedResultsController-style callbacks into one batch that a list
/// view's `performBatchUpdates` accepts.
///
/// Item operations that a section change already covers are dropped: a list view rejects an
/// item operation inside a section that it deletes or inserts. Unless ``keepsMoves`` is set,
/// each move becomes a delete of its before-path and an insert of its after-path.
///
/// ```swift
/// let group = SnapshotDiff.changes(from: old, to: new) { changedKeys.contains($0) }
/// let batch = BatchAdapter().batch(for: group)
/// collectionView.performBatchUpdates { /* batch.deleteSections, batch.insertItems, ... */ }
/// ```
public struct BatchAdapter: Sendable {
    /// Whether moves stay moves (`moveItems`) instead of being split into a delete and an insert.
    ///
    /// A move out of a deleted section, into an inserted section, of an item that is also
    /// updated, or that names changed values (``ObjectChange/changedAttributes``), is split
    /// even then: a kept move would show the old values.
    public var keepsMoves: Bool

    /// The attributes whose change needs a new cell, or nil to reload every updated item.
    ///
    /// When set, an update that names its changed attributes
    /// (``ObjectChange/changedAttributes``, from a live query that asks for them) and
    /// changed none of these is put in ``BatchUpdate/reconfigureItems``, by its after-path;
    /// every other update is reloaded as before. `[]` reconfigures every update that names
    /// its attributes.
    public var reloadingAttributes: Set<String>?

    /// Creates an adapter.
    ///
    /// - Parameters:
    ///   - keepsMoves: Whether to keep moves as moves; false splits every move.
    ///   - reloadingAttributes: The attributes whose change needs a new cell; nil reloads
    ///     every update.
    public init(keepsMoves: Bool = false, reloadingAttributes: Set<String>? = nil) {
        self.keepsMoves = keepsMoves
        self.reloadingAttributes = reloadingAttributes
    }

    /// Whether an update is reconfigured rather than reloaded: it names its changed
    /// attributes and none of them is in ``reloadingAttributes`` (which is set).
    ///
    /// - Parameter change: An object change; only updates are ever reconfigured.
    /// - Returns: true for an update whose cell can keep its type and size.
    @inlinable
    public func reconfigures<I>(_ change: ObjectChange<I>) -> Bool {
        guard change.type == .update, let reloading = reloadingAttributes, let changed = change.changedAttributes else { return false }
        return !changed.contains(where: reloading.contains)
    }

    /// Coalesces one group of callbacks into a batch.
    ///
    /// - Parameter group: The callbacks of one change, with NSFetchedResultsController's
    ///   conventions (every object leaving a deleted section or entering an inserted one has
    ///   its own event).
    /// - Returns: The batch: every list sorted ascending, no path twice, no item operation
    ///   inside a deleted or inserted section, no path both reloaded and deleted.
    /// - Complexity: O(*e* log *e*) for *e* events.
    @inlinable
    public func batch<S, I>(for group: ChangeGroup<S, I>) -> BatchUpdate {
        var deletedSections = Set<Int>()
        var insertedSections = Set<Int>()
        for change in group.sectionChanges {
            switch change.type {
            case .delete: deletedSections.insert(change.index)
            case .insert: insertedSections.insert(change.index)
            }
        }

        // Lists, sorted and de-duplicated at the end (a set of `IndexPath`s hashed and
        // compared each path through Foundation's storage enum).
        var deletes: [ItemPosition] = []
        var inserts: [ItemPosition] = []
        var moves: [(to: ItemPosition, from: ItemPosition)] = []
        var reloadCandidates: [ItemPosition] = []
        var reconfigured: [ItemPosition] = []

        func deleteUnlessCovered(_ path: ItemPosition) {
            if deletedSections.isEmpty || !deletedSections.contains(path.section) { deletes.append(path) }
        }
        func insertUnlessCovered(_ path: ItemPosition) {
            if insertedSections.isEmpty || !insertedSections.contains(path.section) { inserts.append(path) }
        }
        func crossesSectionChange(from: ItemPosition, to: ItemPosition) -> Bool {
            (!deletedSections.isEmpty && deletedSections.contains(from.section))
                || (!insertedSections.isEmpty && insertedSections.contains(to.section))
        }

        // An updated item that also moves needs fresh content at its destination: split its
        // move. (Only a group that keeps moves and has some needs the set.)
        var updatedSources = Set<ItemPosition>()
        if keepsMoves && group.objectChanges.contains(where: { $0.type == .move }) {
            for change in group.objectChanges where change.type == .update {
                if let from = change.from { updatedSources.insert(ItemPosition(from)) }
            }
        }

        for change in group.objectChanges {
            // Only the paths an event's type uses are read (the other may be anything), one
            // at a time (a switch over a tuple of both copied them: twice the cost of the
            // whole batch); an event without the path it needs says nothing a list view can
            // use.
            switch change.type {
            case .delete:
                if let from = change.from { deleteUnlessCovered(ItemPosition(from)) }
            case .insert:
                if let to = change.to { insertUnlessCovered(ItemPosition(to)) }
            case .move:
                guard let fromPath = change.from, let toPath = change.to else { break }
                let (from, to) = (ItemPosition(fromPath), ItemPosition(toPath))
                // A move that changed values (it names them) needs fresh content too.
                if keepsMoves && !crossesSectionChange(from: from, to: to) && !updatedSources.contains(from)
                    && (change.changedAttributes?.isEmpty ?? true) {
                    moves.append((to, from))
                } else {
                    deleteUnlessCovered(from)
                    insertUnlessCovered(to)
                }
            case .update:
                guard let fromPath = change.from else { break }
                let from = ItemPosition(fromPath)
                guard let toPath = change.to else {
                    reloadCandidates.append(from)
                    break
                }
                let to = ItemPosition(toPath)
                if crossesSectionChange(from: from, to: to) {
                    deleteUnlessCovered(from)
                    insertUnlessCovered(to)
                } else if reconfigures(change) {
                    reconfigured.append(to)
                } else {
                    reloadCandidates.append(from)
                }
            }
        }

        let deleted = deletes.sortedUnique()
        let inserted = inserts.sortedUnique()
        // One move per destination: the last one named for it.
        var keptMoves: [(to: ItemPosition, from: ItemPosition)] = []
        for move in moves.enumerated().sorted(by: { ($0.element.to, $0.offset) < ($1.element.to, $1.offset) }).map(\.element) {
            if let last = keptMoves.last, last.to == move.to { keptMoves[keptMoves.count - 1] = move } else { keptMoves.append(move) }
        }
        let moveSources = keptMoves.map(\.from).sorted()
        let moveDestinations = keptMoves.map(\.to)
        if !deletedSections.isEmpty || !deleted.isEmpty || !moveSources.isEmpty {
            reloadCandidates.removeAll {
                deletedSections.contains($0.section) || deleted.sortedContains($0) || moveSources.sortedContains($0)
            }
        }
        // An item that also moved (a group with both for one item) arrives by its insert or
        // move, with fresh content: nothing to reconfigure.
        if !inserted.isEmpty || !moveDestinations.isEmpty {
            reconfigured.removeAll { inserted.sortedContains($0) || moveDestinations.sortedContains($0) }
        }

        return BatchUpdate(
            deleteSections: deletedSections.sorted(),
            insertSections: insertedSections.sorted(),
            deleteItems: deleted.map(\.indexPath),
            insertItems: inserted.map(\.indexPath),
            reloadItems: reloadCandidates.sortedUnique().map(\.indexPath),
            moveItems: keptMoves.map { ItemMove(from: $0.from.indexPath, to: $0.to.indexPath) },
            reconfigureItems: reconfigured.sorted().map(\.indexPath)
        )
    }
}
