import Foundation

/// An item that a batch moves: from its before-path to its after-path.
public struct ItemMove: Hashable, Sendable {
    /// The item's index path before the update.
    public var from: IndexPath
    /// The item's index path after the update.
    public var to: IndexPath

    /// Creates a move.
    ///
    /// - Parameters:
    ///   - from: The item's before-path.
    ///   - to: The item's after-path.
    public init(from: IndexPath, to: IndexPath) {
        self.from = from
        self.to = to
    }
}

/// The arguments of one `performBatchUpdates` call on a list view (UICollectionView,
/// UITableView): what ``BatchAdapter`` makes of a ``ChangeGroup``.
///
/// Deletes, reloads and move sources refer to the results before the update; inserts,
/// move destinations and reconfigures to the results after it. Every list is sorted ascending and has no
/// duplicates; ``validate(old:new:)`` checks a batch against both snapshots.
public struct BatchUpdate: Hashable, Sendable {
    /// The sections to delete, by before-index, ascending.
    public var deleteSections: [Int]
    /// The sections to insert, by after-index, ascending.
    public var insertSections: [Int]
    /// The items to delete, by before-path, ascending.
    public var deleteItems: [IndexPath]
    /// The items to insert, by after-path, ascending.
    public var insertItems: [IndexPath]
    /// The items to reload (they stay, their content changed), by before-path, ascending.
    public var reloadItems: [IndexPath]
    /// The items to move, ascending by `to`; empty unless the adapter keeps moves.
    public var moveItems: [ItemMove]
    /// The items whose cells keep their type and size and only show new values, by
    /// after-path, ascending: UIKit's `reconfigureItems(at:)`, called once the batch is
    /// performed (the list then holds the after-state), keeps their cells. Empty unless the
    /// adapter splits updates (``BatchAdapter/reloadingAttributes``).
    public var reconfigureItems: [IndexPath]

    /// Whether the batch does nothing (a list view then needs no update).
    public var isEmpty: Bool {
        deleteSections.isEmpty && insertSections.isEmpty && deleteItems.isEmpty
            && insertItems.isEmpty && reloadItems.isEmpty && moveItems.isEmpty && reconfigureItems.isEmpty
    }

    /// Creates a batch.
    ///
    /// - Parameters:
    ///   - deleteSections: Before-indexes of the sections to delete.
    ///   - insertSections: After-indexes of the sections to insert.
    ///   - deleteItems: Before-paths of the items to delete.
    ///   - insertItems: After-paths of the items to insert.
    ///   - reloadItems: Before-paths of the items to reload.
    ///   - moveItems: The items to move.
    ///   - reconfigureItems: After-paths of the items to reconfigure.
    public init(
        deleteSections: [Int] = [],
        insertSections: [Int] = [],
        deleteItems: [IndexPath] = [],
        insertItems: [IndexPath] = [],
        reloadItems: [IndexPath] = [],
        moveItems: [ItemMove] = [],
        reconfigureItems: [IndexPath] = []
    ) {
        self.deleteSections = deleteSections
        self.insertSections = insertSections
        self.deleteItems = deleteItems
        self.insertItems = insertItems
        self.reloadItems = reloadItems
        self.moveItems = moveItems
        self.reconfigureItems = reconfigureItems
    }
}
