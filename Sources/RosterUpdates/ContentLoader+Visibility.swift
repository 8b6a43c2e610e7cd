import Foundation

extension ContentLoader {
    /// Sets the rows on screen: starts loads for objects that came into view (unless cached,
    /// loading or failed), and cancels the loads of objects that scrolled away.
    ///
    /// Loads start top to bottom, at most ``maxConcurrentLoads`` at once; the others wait in
    /// that order. An object that comes into view with cached content needs no load: the row
    /// reads ``content(for:)`` when it is configured. Rows past the end of the list are kept,
    /// and show objects when the list grows.
    ///
    /// - Parameter indexPaths: The visible rows, `[section, item]`, in any order.
    /// - Complexity: O(*v* log *v*) for *v* visible rows, expected.
    public func setVisible(_ indexPaths: some Sequence<IndexPath>) {
        visiblePaths = Self.normalized(indexPaths)
        reconcileVisibility()
        startQueuedLoads()
        deliverNotifications()
    }

    /// Well-formed paths, ascending, without duplicates.
    static func normalized(_ indexPaths: some Sequence<IndexPath>) -> [IndexPath] {
        Array(Set(indexPaths.filter(\.isSectionItemPair))).sorted()
    }

    /// Recomputes the visible objects from the visible rows and the layout: objects that left
    /// lose their load, objects that came into view with cached content need none.
    func reconcileVisibility() {
        var ids: [ItemID] = []
        var idSet = Set<ItemID>()
        for path in visiblePaths where path.section < sections.count && path.item < sections[path.section].count {
            let id = sections[path.section][path.item]
            if idSet.insert(id).inserted {
                ids.append(id)
            }
        }
        for id in visibleIDs where !idSet.contains(id) {
            cancelLoad(of: id, reason: .scrolledAway)
            settled.remove(id)
        }
        for id in ids where !visibleSet.contains(id) && cache.value(for: id) != nil {
            settled.insert(id)
        }
        visibleIDs = ids
        visibleSet = idSet
    }
}
