import Foundation
import Roster

/// A terminal view of the list: 8 rows of the live query, scrolled into the middle of it,
/// with what each change did to them, drawn with plain ANSI codes when standard output is
/// a terminal, and as plain text frames, without codes or pauses, when it is a pipe or a
/// file.
///
/// The view keeps the reader's place: after each change it asks the controller where the
/// first row it showed went (``ResultsController/scrollPosition(keeping:visibleBefore:)``)
/// and starts there, so posts that arrive or leave above do not move what is on screen —
/// the list does not jump.
struct Viewport {
    let rows: Int
    /// Whether standard output is a terminal, which the codes and pauses are for.
    var isTerminal = isatty(STDOUT_FILENO) != 0
    /// The keys of the rows on screen, in order, after the last frame.
    private(set) var visible: [Value] = []

    init(rows: Int) {
        self.rows = rows
    }

    /// `ESC [ code`, or nothing when the output is not a terminal.
    private func ansi(_ code: String) -> String { isTerminal ? "\u{1B}[\(code)" : "" }

    /// Draws the rows on screen after a change, marking inserted (+), moved (↕) and
    /// updated (~) rows, and saying where the reader's place went.
    mutating func show(_ posts: ResultsController, group: ChangeGroup<Value, Value>, title: String) {
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
        let start: IndexPath
        let before = visible
        if let first = before.first, let place = posts.scrollPosition(keeping: first, visibleBefore: before) {
            start = place.indexPath
            let rank = posts.rank(of: place.key).map { String($0 + 1) } ?? "?"
            lines.append(place.isSameRow
                ? "place kept: '\(Self.title(of: posts.object(at: start)))' stays on top, now row \(rank)"
                : "place kept: the top post left; its nearest neighbour '\(Self.title(of: posts.object(at: start)))' is on top, row \(rank)")
        } else {
            // The first frame: scrolled into the middle of the list.
            start = Self.indexPath(ofRank: posts.numberOfObjects / 2, in: posts)
            lines.append("scrolled to row \(posts.numberOfObjects / 2 + 1)")
        }
        var shown: [Value] = []
        var path = start
        var lastSection = -1
        while shown.count < rows, path.section < posts.numberOfSections {
            guard path.item < posts.numberOfObjects(inSection: path.section) else {
                path = IndexPath(item: 0, section: path.section + 1)
                continue
            }
            if let object = posts.object(at: path) {
                if path.section != lastSection, let name = posts.object(at: path)?["day"] {
                    lines.append(ansi("2m") + "\(name)" + ansi("0m"))
                    lastSection = path.section
                }
                lines.append(" \(marks[object.key] ?? " ") \(Self.title(of: object).prefix(70))")
                shown.append(object.key)
            }
            path = IndexPath(item: path.item + 1, section: path.section)
        }
        if !before.isEmpty {
            lines.append("on screen: \(Set(shown).intersection(before).count) of \(shown.count) posts as before")
        }
        visible = shown
        print(lines.joined(separator: "\n") + (isTerminal ? "" : "\n"))
        // A person watches the frames one by one; a pipe takes them all at once.
        if isTerminal { Thread.sleep(forTimeInterval: 0.8) }
    }

    private static func title(of object: Object?) -> String {
        (object?["title"].flatMap { if case let .string(text) = $0 { text } else { nil } }) ?? ""
    }

    /// The index path of the row at a rank of the whole list.
    private static func indexPath(ofRank rank: Int, in posts: ResultsController) -> IndexPath {
        var remaining = rank
        for section in 0..<posts.numberOfSections {
            let count = posts.numberOfObjects(inSection: section)
            if remaining < count { return IndexPath(item: remaining, section: section) }
            remaining -= count
        }
        return IndexPath(item: 0, section: posts.numberOfSections)
    }
}
