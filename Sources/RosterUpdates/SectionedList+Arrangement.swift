import Foundation

extension SectionedList {
    /// An item with what orders it: its section and its arrival.
    struct Placed {
        var item: Item
        var section: SectionID
        var arrival: UInt64
    }

    /// A section's items before they are laid out, and its earliest arrival (the tie-breaker).
    struct PlacedSection {
        var id: SectionID
        var members: [Placed]
        var earliestArrival: UInt64
    }

    /// The position in `items` of the item at `location`.
    func flatIndex(_ location: Location) -> Int {
        sectionStarts[location.section] + location.item
    }

    /// Every item as it is now placed, in display order.
    func currentPlacements() -> [Placed] {
        var placed: [Placed] = []
        placed.reserveCapacity(items.count)
        for (sectionIndex, section) in sections.enumerated() {
            let start = sectionStarts[sectionIndex]
            for offset in section.items.indices {
                placed.append(Placed(item: items[start + offset], section: section.id, arrival: arrivals[start + offset]))
            }
        }
        return placed
    }

    /// Lays `placed` out as the new contents and reports the change from the old ones.
    ///
    /// - Parameter placed: The new contents: no identifier twice, no arrival twice.
    mutating func arrange(_ placed: [Placed]) -> Change {
        let oldSections = sections
        let oldItems = items
        let oldLocations = locations
        let oldStarts = sectionStarts

        lay(out: orderedGroups(placed))
        #if DEBUG
        checkInvariants()
        #endif

        let newItems = items
        let newLocations = locations
        let newStarts = sectionStarts
        // Asked only for items that stay, which have both locations.
        let group = SnapshotDiff.changes(from: oldSections, to: sections) { id in
            let before = oldLocations[id]!
            let after = newLocations[id]!
            return oldItems[oldStarts[before.section] + before.item] != newItems[newStarts[after.section] + after.item]
        }
        return Change(group: group, batch: adapter.batch(for: group))
    }

    /// The items grouped by section, each group sorted, the groups in section order.
    private func orderedGroups(_ placed: [Placed]) -> [PlacedSection] {
        var groupIndexByID: [SectionID: Int] = [:]
        var groups: [PlacedSection] = []
        for member in placed {
            if let index = groupIndexByID[member.section] {
                groups[index].members.append(member)
                groups[index].earliestArrival = min(groups[index].earliestArrival, member.arrival)
            } else {
                groupIndexByID[member.section] = groups.count
                groups.append(PlacedSection(id: member.section, members: [member], earliestArrival: member.arrival))
            }
        }
        // Arrivals are unique, so both orders are total: the result depends on nothing else.
        let itemOrder = areInIncreasingOrder
        for index in groups.indices {
            groups[index].members.sort { first, second in
                if itemOrder(first.item, second.item) { return true }
                if itemOrder(second.item, first.item) { return false }
                return first.arrival < second.arrival
            }
        }
        let sectionOrder = sectionOrder
        groups.sort { first, second in
            if sectionOrder(first.id, second.id) { return true }
            if sectionOrder(second.id, first.id) { return false }
            return first.earliestArrival < second.earliestArrival
        }
        return groups
    }

    /// Traps unless the stored parts agree with each other and with both orders.
    ///
    /// - Complexity: O(*n*) for *n* items, expected.
    func checkInvariants() {
        precondition(items.count == arrivals.count && items.count == locations.count, "SectionedList: counts disagree")
        precondition(sections.count == sectionStarts.count, "SectionedList: section starts disagree")
        var expectedStart = 0
        for (sectionIndex, section) in sections.enumerated() {
            precondition(!section.items.isEmpty, "SectionedList: section \(sectionIndex) is empty")
            precondition(sectionStarts[sectionIndex] == expectedStart, "SectionedList: section \(sectionIndex) starts wrong")
            if sectionIndex > 0 {
                precondition(!sectionOrder(section.id, sections[sectionIndex - 1].id), "SectionedList: sections out of order")
            }
            for (offset, id) in section.items.enumerated() {
                let index = expectedStart + offset
                precondition(items[index].id == id && sectionOf(items[index]) == section.id,
                             "SectionedList: item \(index) is not where its section says")
                precondition(locations[id]?.section == sectionIndex && locations[id]?.item == offset,
                             "SectionedList: item \(index) has a wrong location")
                if offset > 0 {
                    let (earlier, later) = (items[index - 1], items[index])
                    precondition(!areInIncreasingOrder(later, earlier)
                        && (areInIncreasingOrder(earlier, later) || arrivals[index - 1] < arrivals[index]),
                        "SectionedList: items \(index - 1) and \(index) out of order")
                }
            }
            expectedStart += section.items.count
        }
        precondition(expectedStart == items.count, "SectionedList: sections do not cover the items")
    }
}
