import Roster

/// Prints change groups and batches the way the example programs show them: the
/// callbacks on the left, the batch a list view receives on the right.
public enum ChangeLog {
    /// One line per callback, NSFetchedResultsController style.
    public static func callbackLines(_ group: ChangeGroup<Value, Value>) -> [String] {
        var lines = ["willChangeContent"]
        for change in group.sectionChanges {
            lines.append("section \(change.type == .insert ? "insert" : "delete") \(change.index) \(change.section)")
        }
        for change in group.objectChanges {
            var line = "\(name(change.type)) \(change.item)"
            if let from = change.from { line += " from \(path(from))" }
            if let to = change.to { line += " to \(path(to))" }
            lines.append(line)
        }
        lines.append("didChangeContent")
        return lines
    }

    /// One line per part of the batch that is not empty.
    public static func batchLines(_ batch: BatchUpdate) -> [String] {
        var lines: [String] = []
        if !batch.deleteSections.isEmpty { lines.append("deleteSections \(batch.deleteSections)") }
        if !batch.insertSections.isEmpty { lines.append("insertSections \(batch.insertSections)") }
        if !batch.deleteItems.isEmpty { lines.append("deleteItems \(batch.deleteItems.map(path).joined(separator: " "))") }
        if !batch.insertItems.isEmpty { lines.append("insertItems \(batch.insertItems.map(path).joined(separator: " "))") }
        if !batch.reloadItems.isEmpty { lines.append("reloadItems \(batch.reloadItems.map(path).joined(separator: " "))") }
        if !batch.moveItems.isEmpty { lines.append("moveItems \(batch.moveItems.map { "\(path($0.from))→\(path($0.to))" }.joined(separator: " "))") }
        return lines.isEmpty ? ["(nothing)"] : lines
    }

    /// The callbacks and the batch side by side, under a title.
    public static func sideBySide(_ title: String, _ group: ChangeGroup<Value, Value>, _ batch: BatchUpdate) -> String {
        let left = callbackLines(group)
        let right = batchLines(batch)
        let width = max(36, (left.map(\.count).max() ?? 0) + 2)
        var text = "── \(title)\n" + "callbacks".padding(toLength: width, withPad: " ", startingAt: 0) + "| batch\n"
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? left[index] : ""
            let r = index < right.count ? right[index] : ""
            text += l.padding(toLength: width, withPad: " ", startingAt: 0) + "| " + r + "\n"
        }
        return text
    }

    /// The sections of a snapshot, one line each: `name: key key key`.
    public static func sectionLines(_ sections: [ListSection<Value, Value>], limit: Int = 12) -> [String] {
        sections.map { section in
            let keys = section.items.prefix(limit).map(\.description).joined(separator: " ")
            let more = section.items.count > limit ? " … (\(section.items.count) in all)" : ""
            return "  \(section.id): \(keys)\(more)"
        }
    }

    static func path(_ indexPath: IndexPath) -> String { "[\(indexPath.section),\(indexPath.item)]" }

    static func name(_ type: ObjectChangeType) -> String {
        switch type {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}

/// A delegate that collects each change group a ``ResultsController`` reports.
public final class ChangeCollector: ResultsControllerDelegate {
    /// The groups reported since the last ``take()``.
    public private(set) var groups: [ChangeGroup<Value, Value>] = []

    /// Creates a collector.
    public init() {}

    /// The groups reported since the last call.
    public func take() -> [ChangeGroup<Value, Value>] {
        defer { groups = [] }
        return groups
    }

    public func controllerDidChangeContent(_ controller: ResultsController) {
        if let change = controller.lastChange { groups.append(change) }
    }
}
