import ArgumentParser
import Foundation
import Roster
import RosterExampleSupport

@main
struct FeedReader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "FeedReader",
        abstract: "Sync RSS 2.0 / Atom files into a store and watch a live query react.",
        discussion: """
            Each FILE is a sync: new posts are inserted, posts gone from the feed deleted, edited \
            posts updated, unchanged posts cause nothing. The live query is "newest first, \
            sectioned by day". For each sync the program prints the change group and the batch a \
            list view would receive, with timings. Bundled feeds: Examples/FeedReader/Feeds.

              swift run FeedReader sync Examples/FeedReader/Feeds/newsroom-{1,2,3}.xml
              swift run FeedReader sync Examples/FeedReader/Feeds/newsroom-{1,2}.xml --simulate-ui

            `inbox` puts several feeds in one list sectioned by feed title (a relationship), with \
            unread badges, then marks an entry read, renames a feed and unsubscribes from one:

              swift run FeedReader inbox Examples/FeedReader/Feeds/{newsroom-1.xml,devblog.atom,podcast.xml}
            """,
        subcommands: [Sync.self, Inbox.self])
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sync feed files, in order, and print what the list view receives.")

    @Argument(help: "RSS 2.0 or Atom files, synced in order.")
    var files: [String]

    @Option(help: "Keep the store in this file (default: a temporary file).")
    var database: String?

    @Flag(help: "Print every callback, not just the first ones of each group.")
    var verbose = false

    @Flag(help: "A slow list (16 ms per change) while the sync writes small transactions on another thread: shows coalescing.")
    var simulateUI = false

    @Option(help: "With --simulate-ui: posts per transaction.")
    var transactionSize = 10

    @Option(help: "With --simulate-ui: milliseconds the list takes to animate one change.")
    var animationMilliseconds = 16

    @Option(help: "With --simulate-ui: milliseconds the sync waits between transactions (as if on the network).")
    var writeIntervalMilliseconds = 2

    @Flag(help: "Show an 8-row viewport, scrolled into the middle of the list, as rows arrive, leave and move; it keeps the reader's place when posts arrive above.")
    var tui = false

    func run() async throws {
        var feeds: [(String, Feed)] = []
        for file in files {
            do {
                feeds.append((file, try FeedParser.parse(contentsOf: URL(fileURLWithPath: file))))
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if simulateUI {
            try await SimulatedUI(transactionSize: transactionSize, animation: .milliseconds(animationMilliseconds),
                              writeInterval: .milliseconds(writeIntervalMilliseconds), database: database).run(feeds)
        } else {
            try SyncPrinter(verbose: verbose, tui: tui, database: database).run(feeds)
        }
    }
}

/// Syncs each feed in one transaction and prints the change group, the batch and timings.
struct SyncPrinter {
    let verbose: Bool
    let tui: Bool
    let database: String?

    func run(_ feeds: [(String, Feed)]) throws {
        let store = try database.map { try Store(path: $0) } ?? Store.temporary()
        try store.define(Post.self)
        let posts = try ResultsController(store: store, request: FeedSync.request())
        let timer = Timer()
        posts.delegate = timer
        try posts.performFetch()
        var viewport = Viewport(rows: 8)
        for (file, feed) in feeds {
            let before = posts.snapshot
            let existing = Set(try posts.fetchedObjects.compactMap { $0.key.stringValue })
            timer.reset()
            let start = ContinuousClock.now
            let summary = try FeedSync.sync(feed, into: { body in
                try store.write {
                    try body(store)
                    timer.writesDone = .now
                }
            }, existingIDs: existing)
            let total = ContinuousClock.now - start
            let name = URL(fileURLWithPath: file).lastPathComponent
            print("── sync \(name): \(feed.posts.count) posts in the feed (\(summary.saved) saved, \(summary.deleted) gone) in \(summary.transactions) transaction")
            guard let group = timer.group else {
                print("   no change: nothing reported (sync took \(Self.ms(total)))\n")
                continue
            }
            let batch = BatchAdapter().batch(for: group)
            try batch.validate(old: before, new: posts.snapshot)
            print("   \(Self.counts(group))")
            let lines = ChangeLog.callbackLines(group)
            let shown = verbose ? lines : Array(lines.prefix(8))
            for line in shown { print("   │ \(line)") }
            if shown.count < lines.count { print("   │ … \(lines.count - shown.count) more callbacks (--verbose shows all)") }
            for line in ChangeLog.batchLines(batch) { print("   batch \(line.count > 160 ? String(line.prefix(157)) + "…" : line)") }
            let ready = timer.ready.map { Self.ms($0 - (timer.writesDone ?? start)) } ?? "?"
            print("   timings: sync \(Self.ms(total)); commit → batch ready \(ready); batch valid by UIKit's rules")
            print("   list: \(posts.numberOfObjects) posts in \(posts.numberOfSections) days\n")
            if tui { viewport.show(posts, group: group, title: name) }
        }
    }

    static func counts(_ group: ChangeGroup<Value, Value>) -> String {
        let sections = group.sectionChanges
        let objects = group.objectChanges
        func count(_ type: ObjectChangeType) -> Int { objects.filter { $0.type == type }.count }
        return "sections: \(sections.filter { $0.type == .insert }.count) inserted, \(sections.filter { $0.type == .delete }.count) deleted; "
            + "posts: \(count(.insert)) inserted, \(count(.delete)) deleted, \(count(.move)) moved, \(count(.update)) updated"
    }

    static func ms(_ duration: Duration) -> String {
        String(format: "%.2f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
    }
}

/// Notes the change group and when it was ready.
final class Timer: ResultsControllerDelegate {
    var group: ChangeGroup<Value, Value>?
    var ready: ContinuousClock.Instant?
    var writesDone: ContinuousClock.Instant?

    func reset() {
        group = nil
        ready = nil
        writesDone = nil
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        group = controller.lastChange
        ready = .now
    }
}

extension Value {
    /// The string inside, if this is a string.
    var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }
}
