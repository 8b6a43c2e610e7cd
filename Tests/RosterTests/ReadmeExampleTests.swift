import Testing
import Roster

/// The README's Swift example, as written there, must work.
@Suite("README example")
struct ReadmeExampleTests {
    final class PostList: ResultsControllerDelegate {
        var batches: [BatchUpdate] = []
        func controllerDidChangeContent(_ controller: ResultsController) {
            batches.append(controller.lastChange.map { BatchAdapter().batch(for: $0) } ?? BatchUpdate())
        }
    }

    @Test func theReadmeExampleRunsAndReportsOneBatch() throws {
        let store = try Store.temporary()
        try store.define(Entity("Post", key: "id", attributes: [
            Attribute("id", .string), Attribute("title", .string), Attribute("day", .string), Attribute("rank", .integer),
        ]))
        let posts = try ResultsController(store: store, request: FetchRequest(
            entity: "Post", predicate: QueryPredicate("rank > %@", 0),
            sortKeys: [SortKey("day", ascending: false), SortKey("rank")], sectionAttribute: "day"))
        let list = PostList()
        posts.delegate = list
        try posts.performFetch()

        try store.write {
            try store.insert("Post", ["id": "p1", "title": "Hello", "day": "2026-11-20", "rank": 3])
            try store.insert("Post", ["id": "p2", "title": "World", "day": "2026-11-21", "rank": 1])
        }
        #expect(try posts.fetchedObjects.map(\.key) == ["p2", "p1"])
        #expect(list.batches == [BatchUpdate(insertSections: [0, 1])])
    }
}
