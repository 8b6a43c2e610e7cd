import Foundation

extension ContentLoader {
    /// Replaces the list's layout without a group of callbacks, as after a reload.
    ///
    /// Objects that left the list lose their load and their cached content. Objects that
    /// stay keep their content: call ``invalidate(_:)`` for those whose values changed. The
    /// visible rows stay where they are and may now show other objects, whose loads start.
    ///
    /// - Parameter layout: The item identifiers per section, e.g. a results snapshot.
    /// - Complexity: O(*n*) for *n* objects, expected.
    public func setLayout<SectionID>(_ layout: [ListSection<SectionID, ItemID>]) {
        replaceLayout(with: layout)
        reconcileVisibility()
        startQueuedLoads()
        deliverNotifications()
    }

    /// Follows one change of the list: deleted objects lose their load and cached content,
    /// updated objects are invalidated (and load again if visible), and results of objects
    /// that moved go to their new rows.
    ///
    /// Unless `visible` says otherwise, the visible rows stay where they are, as a table view
    /// that keeps its content offset shows other objects on the same rows after inserts above
    /// them: objects pushed off those rows are cancelled, objects pulled onto them start
    /// loading. Pass the rows that will be visible after the change to do it in one step.
    ///
    /// ```swift
    /// // 2 is deleted, 4 is inserted at the top: the visible rows [0,0]...[0,1] now show 4 and 1.
    /// loader.apply(group, newLayout: [ListSection(id: "a", items: [4, 1, 3])])
    /// ```
    ///
    /// - Parameters:
    ///   - group: The callbacks of the change, with NSFetchedResultsController's conventions.
    ///   - newLayout: The layout after the change, which `group` leads to from the current one.
    ///   - visible: The visible rows after the change; nil keeps the current ones.
    /// - Complexity: O(*n* + *e*) for *n* objects and *e* events, expected.
    public func apply<SectionID>(
        _ group: ChangeGroup<SectionID, ItemID>,
        newLayout: [ListSection<SectionID, ItemID>],
        visible: [IndexPath]? = nil
    ) {
        replaceLayout(with: newLayout)
        assert(eventsAgreeWithLayout(group), "ContentLoader.apply: the group does not lead to newLayout")
        for change in group.objectChanges where change.type == .update {
            invalidateContent(of: change.item)
        }
        if let visible {
            visiblePaths = Self.normalized(visible)
        }
        reconcileVisibility()
        startQueuedLoads()
        deliverNotifications()
    }

    /// Installs a layout and forgets every object that is not in it.
    func replaceLayout<SectionID>(with layout: [ListSection<SectionID, ItemID>]) {
        var newPaths: [ItemID: IndexPath] = [:]
        newPaths.reserveCapacity(pathByID.count)
        for (sectionIndex, section) in layout.enumerated() {
            for (itemIndex, id) in section.items.enumerated() {
                newPaths[id] = IndexPath(item: itemIndex, section: sectionIndex)
            }
        }
        for id in pathByID.keys where newPaths[id] == nil {
            // A delete may hide a change of values (an object that stops matching the
            // predicate), so content of objects that leave is not kept for their return.
            cancelLoad(of: id, reason: .deleted)
            cache.removeValue(for: id)
            settled.remove(id)
        }
        sections = layout.map(\.items)
        pathByID = newPaths
    }

    /// Whether every event's after-path names its object in the current layout, and deleted objects are gone.
    func eventsAgreeWithLayout<SectionID>(_ group: ChangeGroup<SectionID, ItemID>) -> Bool {
        group.objectChanges.allSatisfy { change in
            guard let to = change.to else { return pathByID[change.item] == nil }
            return pathByID[change.item] == to
        }
    }
}
