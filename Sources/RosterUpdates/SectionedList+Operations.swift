import Foundation

extension SectionedList {
    /// Replaces every item.
    ///
    /// Items whose identifiers were already in the list keep their arrival (for ties); the
    /// others arrive in the order they first appear in `items`. When an identifier appears
    /// more than once, the last value wins.
    ///
    /// ```swift
    /// let change = list.setItems(fetchedContacts)
    /// collectionView.performBatchUpdates { /* change.batch */ }
    /// ```
    ///
    /// - Parameter items: The new contents, in any order.
    /// - Returns: The change from the old contents to the new ones.
    /// - Complexity: O(*n* log *n*) for *n* items, old and new, expected.
    @discardableResult
    public mutating func setItems(_ items: [Item]) -> Change {
        var latest: [Item.ID: Item] = [:]
        var firstSeen: [Item.ID] = []
        latest.reserveCapacity(items.count)
        for item in items where latest.updateValue(item, forKey: item.id) == nil {
            firstSeen.append(item.id)
        }
        var placed: [Placed] = []
        placed.reserveCapacity(firstSeen.count)
        for id in firstSeen {
            let item = latest[id]!
            let arrival = locations[id].map { arrivals[flatIndex($0)] } ?? takeArrival()
            placed.append(Placed(item: item, section: sectionOf(item), arrival: arrival))
        }
        return arrange(placed)
    }

    /// Adds the items whose identifiers are new and replaces the others.
    ///
    /// A replaced item keeps its arrival (for ties) and is updated if its value changed and it
    /// does not move; it moves if its new value sorts it elsewhere. When an identifier appears
    /// more than once, the last value wins.
    ///
    /// - Parameter items: The items to add or replace.
    /// - Returns: The change.
    /// - Complexity: O(*n* log *n*) for *n* items in the list afterwards, expected.
    @discardableResult
    public mutating func upsert(_ items: [Item]) -> Change {
        apply(upserting: items, removing: EmptyCollection())
    }

    /// Removes the items with the given identifiers; identifiers not in the list are ignored.
    ///
    /// - Parameter ids: The identifiers of the items to remove.
    /// - Returns: The change.
    /// - Complexity: O(*n* log *n* + *r*) for *n* items in the list and *r* identifiers, expected.
    @discardableResult
    public mutating func remove(ids: some Sequence<Item.ID>) -> Change {
        apply(upserting: [], removing: ids)
    }

    /// Adds or replaces some items and removes others, as one change.
    ///
    /// ```swift
    /// let change = list.apply(upserting: edited + created, removing: deletedIDs)
    /// ```
    ///
    /// - Parameters:
    ///   - upserting: The items to add or replace, as ``upsert(_:)`` does.
    ///   - removing: The identifiers of the items to remove. Removal wins: an identifier that
    ///     is both upserted and removed is not in the list afterwards.
    /// - Returns: The change.
    /// - Complexity: O(*n* log *n* + *u* + *r*) for *n* items in the list afterwards, *u*
    ///   upserted items and *r* removed identifiers, expected.
    @discardableResult
    public mutating func apply(upserting: [Item], removing: some Sequence<Item.ID>) -> Change {
        let removed = Set(removing)
        var replacements: [Item.ID: Item] = [:]
        var newcomers: [Item.ID] = []
        for item in upserting where !removed.contains(item.id) {
            if replacements.updateValue(item, forKey: item.id) == nil && locations[item.id] == nil {
                newcomers.append(item.id)
            }
        }
        var placed: [Placed] = []
        placed.reserveCapacity(items.count + newcomers.count)
        for current in currentPlacements() where !removed.contains(current.item.id) {
            if let replacement = replacements[current.item.id] {
                placed.append(Placed(item: replacement, section: sectionOf(replacement), arrival: current.arrival))
            } else {
                placed.append(current)
            }
        }
        for id in newcomers {
            let item = replacements[id]!
            placed.append(Placed(item: item, section: sectionOf(item), arrival: takeArrival()))
        }
        return arrange(placed)
    }

    /// Sorts the items inside their sections by a new order, which later changes keep.
    ///
    /// No value changes, so the change holds only moves: no inserts, deletes or updates, and
    /// no section changes.
    ///
    /// - Parameter areInIncreasingOrder: The new item order: a strict weak ordering; items it
    ///   leaves equal are ordered by arrival.
    /// - Returns: The change.
    /// - Complexity: O(*n* log *n*) for *n* items, expected.
    @discardableResult
    public mutating func sort(by areInIncreasingOrder: @escaping @Sendable (Item, Item) -> Bool) -> Change {
        self.areInIncreasingOrder = areInIncreasingOrder
        return arrange(currentPlacements())
    }

    /// Orders the sections by a new order, which later changes keep.
    ///
    /// Sections cannot move: the fewest sections are deleted and inserted again that leave
    /// the others in order, and their items move along. No value changes, so nothing is
    /// updated.
    ///
    /// - Parameter sectionOrder: The new section order: a strict weak ordering; sections it
    ///   leaves equal are ordered by their earliest-arrived item.
    /// - Returns: The change.
    /// - Complexity: O(*n* log *n*) for *n* items, expected.
    @discardableResult
    public mutating func setSectionOrder(_ sectionOrder: @escaping @Sendable (SectionID, SectionID) -> Bool) -> Change {
        self.sectionOrder = sectionOrder
        return arrange(currentPlacements())
    }

    /// A new arrival for an item that enters the list.
    private mutating func takeArrival() -> UInt64 {
        defer { nextArrival += 1 }
        return nextArrival
    }
}
