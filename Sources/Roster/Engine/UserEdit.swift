import RosterUpdates

/// A change the user already made on screen — a row dragged to a new place, or deleted
/// with a swipe — which the list view has animated itself.
///
/// Tell the live query about it before writing the change to the store (see
/// ``ResultsController/performUserDrivenChange(_:write:)``): the next change it reports
/// then starts from the list as the user left it, so it does not report again what the
/// view already shows, while everything else that changed is reported as usual. Index
/// paths follow UIKit's `moveRow(at:to:)`: `to` is the row's place after the move.
public enum UserEdit: Sendable, Hashable {
    /// The object with this key was moved by the user to this index path (after the move).
    case move(key: Value, to: IndexPath)
    /// The object with this key was deleted by the user.
    case delete(key: Value)

    /// Applies the edit to a snapshot of keys, as the list view did: what the list shows
    /// after the user's gesture, and what the next change's `from` paths refer to.
    public func apply(to sections: inout [ListSection<Value, Value>]) {
        let key: Value
        switch self {
        case let .move(movedKey, _), let .delete(movedKey): key = movedKey
        }
        guard let sectionIndex = sections.firstIndex(where: { $0.items.contains(key) }) else { return }
        sections[sectionIndex].items.removeAll { $0 == key }
        if case let .move(_, to) = self, to.section >= 0, to.section < sections.count {
            let count = sections[to.section].items.count
            sections[to.section].items.insert(key, at: min(max(to.item, 0), count))
        }
        // A section the user emptied stays, as it does in the list view, until the store's
        // results drop it: the change then reports its delete.
    }

    /// The list after the user's edits, in order: what the next change starts from.
    static func apply(_ edits: [UserEdit], to sections: [ListSection<Value, Value>]) -> [ListSection<Value, Value>] {
        var sections = sections
        for edit in edits { edit.apply(to: &sections) }
        return sections
    }
}
