import Foundation
import Roster

// A live query on a PostgreSQL server: a schema of its own on the server that
// ROSTER_POSTGRES_URL names, a write through a second client, the change heard.
guard let server = ProcessInfo.processInfo.environment["ROSTER_POSTGRES_URL"] else {
    print("set ROSTER_POSTGRES_URL to a PostgreSQL server's URL")
    exit(2)
}
let scratch = try PostgresSchema.create(at: server)
defer { try? PostgresSchema.drop(scratch.name, at: server) }

final class Printer: ResultsControllerDelegate {
    func controllerDidChangeContent(_ controller: ResultsController) {
        print("batch:", controller.lastChange.map { BatchAdapter().batch(for: $0) } ?? BatchUpdate())
    }
}

let store = try Store(postgresURL: scratch.url)
try store.define(Entity("Post", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)]))
let posts = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
let printer = Printer()
posts.delegate = printer
try posts.performFetch()

let other = try Store(postgresURL: scratch.url)   // another client of the same schema
try other.insert("Post", ["id": "p1", "rank": 2])
try other.insert("Post", ["id": "p2", "rank": 1])
try store.pollExternalChanges()
print("keys:", try posts.fetchedObjects.map(\.key))
do { try other.insert("Post", ["id": "p1", "rank": 3]) } catch StoreError.Code.duplicateKey { print("refused: duplicateKey") }
