import Foundation
import Roster

/// A post as Roster stores it.
struct Post: Record, Equatable {
    var id: String
    var title: String
    var link: String?
    var published: Date
    var day: String
    var summary: String?
    var category: String?

    init(_ post: FeedPost) {
        id = post.id
        title = post.title
        link = post.link
        published = post.published
        day = post.day
        summary = post.summary
        category = post.category
    }
}

/// Writing a feed into a store: upsert what the feed has, delete what it no longer has.
enum FeedSync {
    /// The live query the reader shows: newest first, sectioned by day.
    static func request() throws -> FetchRequest {
        try FetchRequest(Post.self, sortedBy: [.descending(\.day), .descending(\.published), .ascending(\.id)], sectionedBy: \.day)
    }

    /// What one sync wrote.
    struct Summary {
        var saved = 0
        var deleted = 0
        var transactions = 0
    }

    /// Stores `feed` in one transaction per `batchSize` posts (all at once when nil):
    /// every post is saved as it is (a post that did not change changes nothing) and every
    /// stored post the feed no longer has is deleted.
    ///
    /// `write` runs the `@Sendable` body it is given in a transaction, so that a
    /// ``StoreQueue`` (whose closures are `@Sendable`) can be the one to run it.
    static func sync(_ feed: Feed, into write: (@Sendable (Store) throws -> Void) throws -> Void, existingIDs: Set<String>, batchSize: Int? = nil) throws -> Summary {
        var summary = Summary()
        let posts = feed.posts.map(Post.init)
        let keep = Set(posts.map(\.id))
        let gone = existingIDs.subtracting(keep).sorted()
        let chunk = max(1, batchSize ?? (posts.count + gone.count))
        var pending: [@Sendable (Store) throws -> Void] = posts.map { post in { store in try store.save(post) } }
        pending += gone.map { id in { store in try store.delete(Post.self, key: id) } }
        summary.saved = posts.count
        summary.deleted = gone.count
        var index = 0
        while index < pending.count {
            let slice = pending[index..<min(index + chunk, pending.count)]
            try write { store in for operation in slice { try operation(store) } }
            summary.transactions += 1
            index += chunk
        }
        return summary
    }
}
