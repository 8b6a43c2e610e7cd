import Foundation
import Roster

/// A terminal view of the list: 8 rows of the live query, with what each change did to
/// them, drawn with plain ANSI codes when standard output is a terminal, and as plain
/// text frames, without codes or pauses, when it is a pipe or a file.
struct Viewport {
    let rows: Int
    /// Whether standard output is a terminal, which the codes and pauses are for.
    var isTerminal = isatty(STDOUT_FILENO) != 0

    /// `ESC [ code`, or nothing when the output is not a terminal.
    private func ansi(_ code: String) -> String { isTerminal ? "\u{1B}[\(code)" : "" }

    /// Draws the first rows of the list after a change, marking inserted (+), moved (↕)
    /// and updated (~) rows, and summing up the rows that left.
    func show(_ posts: ResultsController, group: ChangeGroup<Value, Value>, title: String) {
        var marks: [Value: String] = [:]
        for change in group.objectChanges {
            switch change.type {
            case .insert: marks[change.item] = ansi("32m") + "+" + ansi("0m")
            case .move: marks[change.item] = ansi("33m") + "↕" + ansi("0m")
            case .update: marks[change.item] = ansi("36m") + "~" + ansi("0m")
            case .delete: break
            }
        }
        let deleted = group.objectChanges.filter { $0.type == .delete }.count
        var lines = [ansi("2J") + ansi("H") + ansi("1m") + "\(title)" + ansi("0m") + " — \(posts.numberOfObjects) posts, \(deleted) left the list"]
        var shown = 0
        let sections = (try? posts.sections) ?? []
        section: for (index, section) in sections.enumerated() {
            lines.append(ansi("2m") + "\(section.name)" + ansi("0m"))
            for item in 0..<posts.numberOfObjects(inSection: index) {
                guard shown < rows else { break section }
                guard let object = posts.object(at: IndexPath(item: item, section: index)) else { continue }
                let title = (object["title"].flatMap { if case let .string(text) = $0 { text } else { nil } }) ?? ""
                lines.append(" \(marks[object.key] ?? " ") \(title.prefix(70))")
                shown += 1
            }
        }
        print(lines.joined(separator: "\n") + (isTerminal ? "" : "\n"))
        // A person watches the frames one by one; a pipe takes them all at once.
        if isTerminal { Thread.sleep(forTimeInterval: 0.8) }
    }
}
