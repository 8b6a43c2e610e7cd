import Foundation

/// A list of items kept sorted and grouped into sections, that reports every change as a
/// ChangeGroup (NSFetchedResultsController conventions) and a BatchUpdate.
///
/// The same diff and batch machinery as a store's results controller, for plain arrays held
/// in memory. Items are ordered by the section order of their sections, then by
/// `areInIncreasingOrder` inside a section. Ties are broken by arrival: an item that entered
/// the list earlier comes first; an item keeps its arrival when it is updated, and one that is
/// removed and added again arrives anew. Sections that `sectionOrder` leaves equal are ordered
/// by their earliest-arrived item. The order is therefore a function of the items, the two
/// orders and the arrivals, never of hashing or of the sort algorithm.
///
/// Every mutation returns a ``Change``: the callbacks that ``SnapshotDiff`` computes between
/// the sections before and after (an item that stays, does not move and whose value changed,
/// by `!=`, is updated), and the batch that ``adapter`` makes of them.
///
/// ```swift
/// struct Contact: Identifiable, Equatable, Sendable {
///     var id: Int
///     var name: String
///     var team: String
/// }
///
/// var list = SectionedList<Contact, String>(
///     sectionOf: { $0.team },
///     areInIncreasingOrder: { $0.name < $1.name },
///     sectionOrder: { $0 < $1 })
/// let change = list.setItems([
///     Contact(id: 1, name: "Grace", team: "B"),
///     Contact(id: 2, name: "Alan", team: "A"),
/// ])
/// // change.group: insert sections 0 "A" and 1 "B"; insert 2 at [0,0] and 1 at [1,0]
/// // change.batch: insertSections [0, 1]
/// list.upsert([Contact(id: 1, name: "Ada", team: "A")])
/// // 1 moves from [1,0] to [0,0]; section 1 "B" is deleted
/// ```
///
/// - Complexity: Every mutation takes O(*n* log *n*) for *n* items, expected (hashing): it
///   re-sorts the whole list and diffs it against the previous one.
public struct SectionedList<Item: Identifiable & Equatable & Sendable, SectionID: Hashable & Sendable>: Sendable
where Item.ID: Sendable {
    /// The items, in display order: section by section, each section in item order.
    public private(set) var items: [Item] = []

    /// The sections, in display order, with their items' identifiers; never an empty section.
    public private(set) var sections: [ListSection<SectionID, Item.ID>] = []

    /// Turns each change's callbacks into its ``Change/batch``; `BatchAdapter()` unless set.
    public var adapter = BatchAdapter()

    /// The section of an item; asked again whenever the item is set.
    let sectionOf: @Sendable (Item) -> SectionID
    /// The order of the items inside a section.
    var areInIncreasingOrder: @Sendable (Item, Item) -> Bool
    /// The order of the sections.
    var sectionOrder: @Sendable (SectionID, SectionID) -> Bool

    /// When each item of `items` (same index) entered the list: the tie-breaker.
    var arrivals: [UInt64] = []
    /// The arrival the next new item gets.
    var nextArrival: UInt64 = 0
    /// Where each item is.
    var locations: [Item.ID: Location] = [:]
    /// The index in `items` of each section's first item.
    var sectionStarts: [Int] = []

    /// An item's place as two plain integers: cheaper to store and hash than an `IndexPath`.
    struct Location: Sendable {
        var section: Int
        var item: Int
    }

    /// Creates an empty list.
    ///
    /// - Parameters:
    ///   - sectionOf: The section an item belongs to.
    ///   - areInIncreasingOrder: The order of items inside a section: a strict weak ordering;
    ///     items it leaves equal are ordered by arrival.
    ///   - sectionOrder: The order of sections: a strict weak ordering; sections it leaves
    ///     equal are ordered by their earliest-arrived item.
    public init(
        sectionOf: @escaping @Sendable (Item) -> SectionID,
        areInIncreasingOrder: @escaping @Sendable (Item, Item) -> Bool,
        sectionOrder: @escaping @Sendable (SectionID, SectionID) -> Bool
    ) {
        self.sectionOf = sectionOf
        self.areInIncreasingOrder = areInIncreasingOrder
        self.sectionOrder = sectionOrder
    }

    /// The item at an index path.
    ///
    /// - Parameter indexPath: `[section, item]`, inside ``sections``.
    /// - Returns: The item there.
    /// - Precondition: The path names an item of the list.
    /// - Complexity: O(1).
    public func item(at indexPath: IndexPath) -> Item {
        precondition(indexPath.isSectionItemPair && indexPath.section < sections.count
            && indexPath.item < sections[indexPath.section].items.count,
            "SectionedList.item(at:): no item at \(indexPath.listDescription)")
        return items[sectionStarts[indexPath.section] + indexPath.item]
    }

    /// The index path of the item with an identifier.
    ///
    /// - Parameter id: The item's identifier.
    /// - Returns: `[section, item]`, or nil when no item has that identifier.
    /// - Complexity: O(1), expected (hashing).
    public func indexPath(of id: Item.ID) -> IndexPath? {
        locations[id].map { IndexPath(item: $0.item, section: $0.section) }
    }

    /// Replaces the stored contents with `groups`, in that order.
    ///
    /// The one writer of the stored contents, here because their setters are private to this file.
    mutating func lay(out groups: [PlacedSection]) {
        let count = groups.reduce(0) { $0 + $1.members.count }
        var items: [Item] = []
        var arrivals: [UInt64] = []
        var locations: [Item.ID: Location] = [:]
        var sections: [ListSection<SectionID, Item.ID>] = []
        var sectionStarts: [Int] = []
        items.reserveCapacity(count)
        arrivals.reserveCapacity(count)
        locations.reserveCapacity(count)
        sections.reserveCapacity(groups.count)
        sectionStarts.reserveCapacity(groups.count)
        for (sectionIndex, group) in groups.enumerated() {
            sectionStarts.append(items.count)
            for (offset, member) in group.members.enumerated() {
                items.append(member.item)
                arrivals.append(member.arrival)
                locations[member.item.id] = Location(section: sectionIndex, item: offset)
            }
            sections.append(ListSection(id: group.id, items: group.members.map { $0.item.id }))
        }
        self.items = items
        self.arrivals = arrivals
        self.locations = locations
        self.sections = sections
        self.sectionStarts = sectionStarts
    }

    /// What one mutation did: the callbacks a results controller's delegate would hear, and
    /// the batch a list view's `performBatchUpdates` takes.
    public struct Change: Sendable {
        /// The callbacks, as ``SnapshotDiff/changes(from:to:isUpdated:)`` computes them.
        public let group: ChangeGroup<SectionID, Item.ID>
        /// The batch that the list's ``SectionedList/adapter`` makes of ``group``.
        public let batch: BatchUpdate

        /// Whether nothing changed that a delegate or a list view would see.
        public var isEmpty: Bool { group.isEmpty }
    }
}
