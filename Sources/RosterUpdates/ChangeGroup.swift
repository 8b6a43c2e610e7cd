/// The callbacks that one change delivers to a results controller's delegate, between
/// `willChange` and `didChange`.
///
/// By convention section deletes come first (ascending index), then section inserts
/// (ascending index), then object inserts (ascending `to`), deletes (ascending `from`),
/// moves (ascending `to`) and updates (ascending `from`); ``SnapshotDiff`` produces them
/// in that order.
public struct ChangeGroup<SectionID: Hashable & Sendable, ItemID: Hashable & Sendable>: Hashable, Sendable {
    /// The section callbacks, deletes before inserts.
    public var sectionChanges: [SectionChange<SectionID>]
    /// The object callbacks.
    public var objectChanges: [ObjectChange<ItemID>]

    /// Whether the group has no callbacks at all (a delegate then hears nothing).
    public var isEmpty: Bool {
        sectionChanges.isEmpty && objectChanges.isEmpty
    }

    /// Creates a group of callbacks.
    ///
    /// - Parameters:
    ///   - sectionChanges: The section callbacks.
    ///   - objectChanges: The object callbacks.
    public init(sectionChanges: [SectionChange<SectionID>] = [], objectChanges: [ObjectChange<ItemID>] = []) {
        self.sectionChanges = sectionChanges
        self.objectChanges = objectChanges
    }
}
