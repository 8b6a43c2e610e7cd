import Foundation
import Roster

/// A terminal view of the list: 8 rows of the live query, with what each change did to
/// them, drawn with plain ANSI codes.
struct Viewport {
    let rows: Int

    /// Draws the first rows of the list after a change, marking inserted (+), moved (↕)
    /// and updated (~) rows, and summing up the rows that left.
    func show(_ posts: ResultsController, group: ChangeGroup<Value, Value>, title: String) {
        var marks: [Value: String] = [:]
        for change in group.objectChanges {
            switch change.type {
            case .insert: marks[change.item] = "\u{1B}[32m+\u{1B}[0m"
            case .move: marks[change.item] = "\u{1B}[33m↕\u{1B}[0m"
            case .update: marks[change.item] = "\u{1B}[36m~\u{1B}[0m"
            case .delete: break
            }
        }
        let deleted = group.objectChanges.filter { $0.type == .delete }.count
        var lines = ["\u{1B}[2J\u{1B}[H\u{1B}[1m\(title)\u{1B}[0m — \(posts.numberOfObjects) posts, \(deleted) left the list"]
        var shown = 0
        let sections = (try? posts.sections) ?? []
        section: for (index, section) in sections.enumerated() {
            lines.append("\u{1B}[2m\(section.name)\u{1B}[0m")
            for item in 0..<posts.numberOfObjects(inSection: index) {
                guard shown < rows else { break section }
                guard let object = posts.object(at: IndexPath(item: item, section: index)) else { continue }
                let title = (object["title"].flatMap { if case let .string(text) = $0 { text } else { nil } }) ?? ""
                lines.append(" \(marks[object.key] ?? " ") \(title.prefix(70))")
                shown += 1
            }
        }
        print(lines.joined(separator: "\n"))
        Thread.sleep(forTimeInterval: 0.8)
    }
}
