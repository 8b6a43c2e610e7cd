import ArgumentParser
import Foundation
import Roster

/// `FeedReader inbox`: several feeds in one list, as a feed reader's inbox shows them —
/// entries sectioned by their feed's title (a relationship, `feed.title`), newest first,
/// with an unread badge per feed and one for the whole inbox. Then, as a reader would:
/// mark the newest entry read (one row reconfigured, one badge down), rename a feed (its
/// section moves in one batch), and unsubscribe from one (its entries go by the delete rule).
struct Inbox: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync several feeds into one inbox sectioned by feed, with unread badges; mark read, rename, unsubscribe.")

    @Argument(help: "RSS 2.0 or Atom files, one feed each.")
    var files: [String]

    func run() throws {
        var feeds: [(key: String, feed: Feed)] = []
        for file in files {
            do {
                feeds.append((URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent,
                              try FeedParser.parse(contentsOf: URL(fileURLWithPath: file))))
            } catch {
                throw ValidationError("\(error)")
            }
        }
        guard let first = feeds.first else { throw ValidationError("give at least one feed file") }
        let store = try Store.temporary()
        try InboxModel.define(in: store)
        let inbox = try ResultsController(store: store, request: InboxModel.request)
        let printer = InboxPrinter()
        inbox.delegate = printer
        let unread = try LiveCount(store: store, entity: "Entry", predicate: QueryPredicate("read == NO"))
        unread.delegate = printer
        try inbox.performFetch()
        try unread.performFetch()

        printer.step("subscribe to \(feeds.count) feeds")
        try store.write {
            for (key, feed) in feeds {
                try store.insert("Feed", ["id": .string(key), "title": .string(feed.title.isEmpty ? key : feed.title)])
                for post in feed.posts {
                    try store.insert("Entry", ["id": .string(post.id), "title": .string(post.title),
                                               "published": .double(post.published.timeIntervalSince1970), "read": false, "feed": .string(key)])
                }
            }
        }
        try printer.showInbox(inbox)

        guard let newest = inbox.object(at: IndexPath(item: 0, section: 0)) else { return }
        printer.step("mark \"\(InboxPrinter.text(newest["title"]))\" read")
        try store.update("Entry", key: newest.key, ["read": true])

        printer.step("rename feed \(first.key) to \"ZZ \(first.feed.title)\"")
        try store.update("Feed", key: .string(first.key), ["title": .string("ZZ \(first.feed.title)")])

        if let last = feeds.last, feeds.count > 1 {
            printer.step("unsubscribe from \(last.key) (its entries are deleted with it: cascade)")
            try store.delete("Feed", key: .string(last.key))
        }
        try printer.showInbox(inbox)
    }
}

/// The inbox's entities and its live query.
enum InboxModel {
    /// Feeds, and entries that belong to one: deleting a feed deletes its entries.
    static func define(in store: Store) throws {
        try store.define(Entity("Feed", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)]))
        try store.define(Entity("Entry", key: "id", attributes: [
            Attribute("id", .string), Attribute("title", .string), Attribute("published", .double), Attribute("read", .bool),
            .relationship("feed", to: "Feed", type: .string, deleteRule: .cascade),
        ]))
    }

    /// Entries by feed title, newest first; the list shows the title and whether it is read;
    /// an unread count per feed.
    static let request = FetchRequest(
        entity: "Entry", sortKeys: [SortKey("feed.title"), SortKey("published", ascending: false)], sectionAttribute: "feed.title",
        displayedAttributes: ["title", "read"], reportsChangedAttributes: true,
        aggregates: [.count("unread", where: (try? QueryPredicate("read == NO")) ?? .all)])
}

/// Prints what the list view and its badges receive.
final class InboxPrinter: ResultsControllerDelegate, LiveCountDelegate {
    /// Reloads only what changes a cell's layout; a changed `read` flag reconfigures it.
    let adapter = BatchAdapter(reloadingAttributes: ["title"])

    func step(_ title: String) {
        print("── \(title)")
    }

    func showInbox(_ inbox: ResultsController) throws {
        for (index, section) in try inbox.sections.enumerated() {
            let unread = inbox.aggregates(inSection: index).flatMap { $0["unread"] }
            print("   \(Self.text(section.name)): \(section.numberOfObjects) entries, \(Self.text(unread)) unread")
        }
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        guard let group = controller.lastChange else { return }
        let batch = adapter.batch(for: group)
        var parts: [String] = []
        if !batch.deleteSections.isEmpty { parts.append("deleteSections \(batch.deleteSections)") }
        if !batch.insertSections.isEmpty { parts.append("insertSections \(batch.insertSections)") }
        if !batch.deleteItems.isEmpty { parts.append("deleteItems \(batch.deleteItems.count)") }
        if !batch.insertItems.isEmpty { parts.append("insertItems \(batch.insertItems.count)") }
        if !batch.moveItems.isEmpty { parts.append("moveItems \(batch.moveItems.count)") }
        if !batch.reloadItems.isEmpty { parts.append("reloadItems " + batch.reloadItems.map(Self.path).joined(separator: " ")) }
        if !batch.reconfigureItems.isEmpty { parts.append("reconfigureItems " + batch.reconfigureItems.map(Self.path).joined(separator: " ")) }
        let moves = group.objectChanges.filter { $0.type == .move }.count
        print("   one batch: \(parts.joined(separator: ", "))\(moves > 0 ? " (\(moves) entries moved with their section)" : "")")
    }

    func controller(_ controller: ResultsController, didChangeAggregates change: AggregateChange) {
        for section in change.sections {
            let unread = section.values["unread"]
            let state = section.values.numberOfObjects == 0 ? "gone" : "\(Self.text(unread)) unread"
            print("   badge \(Self.text(section.name)): \(state)")
        }
    }

    func liveCount(_ liveCount: LiveCount, didChangeTo count: Int) {
        print("   inbox badge: \(count) unread")
    }

    private static func path(_ path: IndexPath) -> String { "[\(path.section),\(path.item)]" }

    /// A value as a person reads it: text without quotes.
    static func text(_ value: Value?) -> String {
        guard let value else { return "?" }
        if case let .string(text) = value { return text }
        return "\(value)"
    }
}
