// LiveList: a terminal list drawn the way SwiftUI draws a view over `ObservedResults`.
//
// Two "views" read the observed results: a header (the count, an error) and the rows of a
// window. Each draws inside `withObservationTracking`, and draws again, at the next frame,
// only when a property it read notified — as SwiftUI re-renders a view's body. A script of
// changes then runs: writes from another thread, a search typed fast, a half-typed
// predicate, a sort flipped, rows arriving above an anchored window. Each frame prints which
// views it drew.
//
//     swift run LiveList            # 200 posts
//     swift run LiveList --posts 5000

import Foundation
import Observation
import Roster

/// A view: draws from what it reads, and is dirty once something it read notified.
@MainActor
final class TerminalView {
    let name: String
    private let draw: () -> [String]
    private(set) var isDirty = true
    private(set) var lines: [String] = []

    init(_ name: String, draw: @escaping () -> [String]) {
        self.name = name
        self.draw = draw
    }

    /// Draws, observing what the drawing reads.
    func render() {
        isDirty = false
        lines = withObservationTracking(draw) {
            // Called on the main actor, as the property changes: mark the view for the next frame.
            MainActor.assumeIsolated { self.isDirty = true }
        }
    }
}

@MainActor
final class Screen {
    let views: [TerminalView]
    private var frame = 0

    init(_ views: [TerminalView]) { self.views = views }

    /// One frame: draws the dirty views, and prints them (or that none was dirty).
    func nextFrame(_ title: String) {
        frame += 1
        let dirty = views.filter(\.isDirty)
        print("── frame \(frame): \(title)")
        guard !dirty.isEmpty else {
            print("   (nothing redrawn)")
            return
        }
        for view in dirty {
            view.render()
            print("   [\(view.name)]")
            for line in view.lines { print("   \(line)") }
        }
    }
}

/// Does `action`, then waits until one of the properties `read` reads notifies (the change
/// is then published). Observed before the action, so that a change published meanwhile
/// is not missed.
@MainActor
func change(of read: @MainActor () -> Void, after action: () async throws -> Void) async rethrows {
    let (notified, continuation) = AsyncStream<Void>.makeStream()
    withObservationTracking(read) { continuation.finish() }
    try await action()
    for await _ in notified {}
}

@MainActor
func runLiveList(posts count: Int) async throws {
    let queue = try StoreQueue.temporary()
    try queue.read { store in
        try store.define(Entity("Post", key: "id", attributes: [
            Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer),
        ]))
    }
    try queue.write { store in
        for index in 0..<count {
            try store.insert("Post", ["id": .string(String(format: "p%04d", index)), "title": .string("Post \(index)"), "rank": .integer(Int64(index * 10))])
        }
    }
    // A lazy list around the 21st row: the window follows its anchor as rows come and go.
    let results = try ObservedResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]),
                                      window: .anchored(key: "p0020", before: 2, after: 2))
    let header = TerminalView("header") {
        var lines = [results.counts.map { "\($0.total) posts" } ?? "posts not counted"]
        if let error = results.error { lines.append("error: \(error.description)") }
        return lines
    }
    let rows = TerminalView("rows") {
        results.objects.map { post in "\(post.key.text ?? "")  \(post["title"]?.text ?? "")  rank \(post["rank"]?.description ?? "")" }
    }
    let screen = Screen([header, rows])
    screen.nextFrame("first draw")

    // Another part of the app writes, on another thread; the delivery loop takes the change.
    func write(_ body: @escaping @Sendable (Store) throws -> Void) async throws {
        try await Task.detached { try queue.write(body) }.value
    }

    try await change(of: { _ = results.sections }) {
        try await write { store in try store.update("Post", key: "p0021", ["title": "Post 21, edited"]) }
    }
    screen.nextFrame("a shown row edited")

    try await change(of: { _ = results.counts }) {
        try await write { store in try store.insert("Post", ["id": "n0001", "title": "Newest", "rank": 99_999]) }
    }
    screen.nextFrame("a row added far below the window")

    try await change(of: { _ = results.counts }) {
        try await write { store in
            try store.insert("Post", ["id": "a0001", "title": "Above 1", "rank": -2])
            try store.insert("Post", ["id": "a0002", "title": "Above 2", "rank": -1])
        }
    }
    screen.nextFrame("two rows added above: the window keeps its place")

    // A search typed fast: four keystrokes before the first is applied; only the last is.
    await change(of: { _ = results.sections }) {
        for text in ["P", "Po", "Pos", "Post 2"] {
            results.setPredicate(format: "title BEGINSWITH[c] %@", .string(text))
        }
    }
    screen.nextFrame("search typed: 'Post 2'")

    results.setPredicate(format: "title BEGINSWITH[c]")
    screen.nextFrame("a half-typed predicate")

    await change(of: { _ = results.sections }) {
        results.setPredicate(format: "title BEGINSWITH[c] %@", .string("Post 1"))
    }
    screen.nextFrame("search typed: 'Post 1'")

    await change(of: { _ = results.sections }) {
        results.setSortKeys([SortKey("rank", ascending: false)])
    }
    screen.nextFrame("sort flipped")

    try await write { store in try store.update("Post", key: "p0050", ["rank": 3_000]) }
    results.refresh()
    screen.nextFrame("a row the search hides edited")
}

let arguments = CommandLine.arguments.dropFirst()
var posts = 200
if let flag = arguments.firstIndex(of: "--posts") {
    guard arguments.index(after: flag) < arguments.endIndex, let value = Int(arguments[arguments.index(after: flag)]), value >= 40 else {
        FileHandle.standardError.write(Data("LiveList: --posts needs a whole number of at least 40\n".utf8))
        exit(2)
    }
    posts = value
}
do {
    try await runLiveList(posts: posts)
} catch {
    FileHandle.standardError.write(Data("LiveList: \(error)\n".utf8))
    exit(1)
}
