/// One section of a snapshot of results: its identifier and its items' identifiers, in order.
///
/// Snapshots that ``SnapshotDiff`` compares never hold an empty section, and no identifier
/// appears twice among the sections or among all the items.
public struct ListSection<SectionID: Hashable & Sendable, ItemID: Hashable & Sendable>: Hashable, Sendable {
    /// The section's identifier (its name).
    public var id: SectionID
    /// The identifiers of the section's items, in display order.
    public var items: [ItemID]

    /// Creates a section.
    ///
    /// - Parameters:
    ///   - id: The section's identifier.
    ///   - items: The identifiers of its items, in display order.
    public init(id: SectionID, items: [ItemID]) {
        self.id = id
        self.items = items
    }
}
