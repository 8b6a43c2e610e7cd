import Roster

// The README's program ("In Swift"), as it is there: ExampleProgramTests keeps them the same.
final class PostList: ResultsControllerDelegate {
    func controllerDidChangeContent(_ controller: ResultsController) {
        print(controller.lastChange.map { BatchAdapter().batch(for: $0) } ?? BatchUpdate())
    }
}

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

try store.write {   // one transaction: one group of callbacks, after it commits
    try store.insert("Post", ["id": "p1", "title": "Hello", "day": "2026-11-20", "rank": 3])
    try store.insert("Post", ["id": "p2", "title": "World", "day": "2026-11-21", "rank": 1])
}
print(try posts.fetchedObjects.map(\.key))   // ['p2', 'p1']: newest day first

// What a new user tried first: a global from a fetch, then `catch` clauses naming the
// error (Swift 6.3.1 aborted on them while the API threw StoreError by type).
let scratch = try Store.temporary()
try scratch.define(Entity("Note", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)]))
try scratch.insert("Note", ["id": "n1", "title": "Hello"])
var n1 = try scratch.fetch("Note", key: "n1")!
do { try scratch.insert("Note", ["id": "n1", "title": "again"]) } catch let error as StoreError { print("refused:", error.code) }
do { try scratch.insert("Note", ["id": "n1"]) } catch StoreError.Code.duplicateKey { print("refused again: duplicateKey") }
print("kept:", n1.key)

// PostgreSQL is not in this build: asking for it is a clear error, not a link failure.
do {
    _ = try Store(postgresURL: "postgresql://nobody@127.0.0.1:1/none")
} catch let error as StoreError {
    print("PostgreSQL:", RosterRelease.hasPostgreSQL ? "built in" : "not built in", error.serverError?.sqlState ?? "")
}
