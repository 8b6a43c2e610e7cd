import Foundation

/// What happened to a section, in NSFetchedResultsController's terms.
///
/// Sections have no moves and no updates: a section that keeps its identifier but not
/// its place is deleted and inserted.
public enum SectionChangeType: Sendable, Hashable {
    /// A new section appears; its index is in the results after the change.
    case insert
    /// A section disappears; its index is in the results before the change.
    case delete
}

/// What happened to an object (an item of a section), in NSFetchedResultsController's terms.
public enum ObjectChangeType: Sendable, Hashable {
    /// The object enters the results; it has only a `to` path.
    case insert
    /// The object leaves the results; it has only a `from` path.
    case delete
    /// The object stays but changes place relative to the other staying objects.
    case move
    /// The object stays in place (relative to the others) and its values changed.
    case update
}

/// One section callback: a section inserted or deleted.
public struct SectionChange<SectionID: Hashable & Sendable>: Hashable, Sendable {
    /// Whether the section was inserted or deleted.
    public var type: SectionChangeType
    /// The section's index: before the change for `.delete`, after it for `.insert`.
    public var index: Int
    /// The section's identifier (its name).
    public var section: SectionID

    /// Creates a section callback.
    ///
    /// - Parameters:
    ///   - type: Whether the section was inserted or deleted.
    ///   - index: The before-index for `.delete`, the after-index for `.insert`.
    ///   - section: The section's identifier.
    public init(type: SectionChangeType, index: Int, section: SectionID) {
        self.type = type
        self.index = index
        self.section = section
    }
}

/// One object callback: an object inserted, deleted, moved or updated.
public struct ObjectChange<ItemID: Hashable & Sendable>: Hashable, Sendable {
    /// What happened to the object.
    public var type: ObjectChangeType
    /// The object's identifier.
    public var item: ItemID
    /// The object's index path before the change: set for delete, move and update; nil for insert.
    public var from: IndexPath?
    /// The object's index path after the change: set for insert, move and update; nil for delete.
    public var to: IndexPath?
    /// For an update, or a move that also changed values, the names of the attributes
    /// whose values changed, when the live query asked for them and knows them; nil
    /// otherwise (after a `ResultsController` resync, which re-reads every object, the rows
    /// before are not known).
    public var changedAttributes: [String]?

    /// Creates an object callback.
    ///
    /// - Parameters:
    ///   - type: What happened to the object.
    ///   - item: The object's identifier.
    ///   - from: The before-path (delete, move, update), or nil for an insert.
    ///   - to: The after-path (insert, move, update), or nil for a delete.
    ///   - changedAttributes: The names of the attributes whose values changed, or nil.
    public init(type: ObjectChangeType, item: ItemID, from: IndexPath?, to: IndexPath?, changedAttributes: [String]? = nil) {
        self.type = type
        self.item = item
        self.from = from
        self.to = to
        self.changedAttributes = changedAttributes
    }
}
