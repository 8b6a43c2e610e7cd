import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Many entities at once: `Store.define(_:)` with an array defines them all or none, and
/// `Store.startTracking(_:)` gives them their change logs in one schema change, after which
/// live queries watch them without changing the schema (issue 37).
@Suite("Defining and tracking entities in batches")
struct EntityBatchTests {
    static func entity(_ name: String, _ extra: [Attribute] = []) throws -> Entity {
        try Entity(name, key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)] + extra)
    }

    /// The names of the tables in the file, as another connection reads them.
    static func tables(in store: Store) throws -> Set<String> {
        let other = try Connection(path: store.path)
        defer { other.close() }
        let statement = try other.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_roster%' ESCAPE '\\'")
        var names: Set<String> = []
        while try statement.step() {
            if case let .string(name) = statement.column(0) { names.insert(name) }
        }
        return names
    }

    @Test func aBatchDefinesEveryEntityAndAnotherStoreReadsThem() throws {
        let store = try Store.temporary()
        let entities = try (0..<50).map { try Self.entity("Kind\($0)") }
        try store.define(entities)
        #expect(Set(store.entities.keys) == Set(entities.map(\.name)))
        #expect(try Self.tables(in: store) == Set(entities.map(\.name)))
        let reopened = try Store(path: store.path)
        #expect(reopened.entities == store.entities)
        // Again, with the same definitions and one new entity: the known ones are skipped.
        try store.define(entities + [Self.entity("Later")])
        #expect(store.entities.count == 51)
    }

    @Test func aRelationshipMayReferToAnEntityLaterInTheBatch() throws {
        let store = try Store.temporary()
        let entry = try Entity("Entry", key: "id", attributes: [Attribute("id", .string), .relationship("feed", to: "Feed", type: .string)])
        try store.define([entry, Self.entity("Feed")])
        #expect(store.entities["Entry"]?.attribute(named: "feed")?.relationship?.destination == "Feed")
    }

    /// A batch with one bad entity: the error names it and says why, and nothing of the
    /// batch is defined — not in the store, not in the file.
    @Test(arguments: [
        ("a relationship to an entity that is nowhere", ["Nowhere", "Middle"]),
        ("a name twice", ["'Twice' is twice in the batch (entries 2 and 3)"]),
        ("a name twice in another case", ["'twice'", "'Twice'", "letter case"]),
        ("an entity the store defines otherwise", ["Defined", "another definition", "define it alone"]),
        ("a table of its name that Roster did not create", ["Alien", "did not create"]),
    ])
    func aBadEntityLeavesNoneOfTheBatchDefinedAndIsNamed(problem: String, named: [String]) throws {
        let store = try Store.temporary()
        try store.define(Self.entity("Defined"))
        try store.execute("CREATE TABLE Alien(x)")
        let bad: [Entity] = switch problem {
        case "a relationship to an entity that is nowhere":
            [try Entity("Middle", key: "id", attributes: [Attribute("id", .string), .relationship("to", to: "Nowhere", type: .string)])]
        case "a name twice": [try Self.entity("Twice"), try Self.entity("Twice", [Attribute("more", .string)])]
        case "a name twice in another case": [try Self.entity("Twice"), try Self.entity("twice")]
        case "an entity the store defines otherwise": [try Self.entity("Defined", [Attribute("more", .string)])]
        default: [try Self.entity("Alien")]
        }
        let batch = [try Self.entity("First")] + bad + [try Self.entity("Last")]
        let before = store.entities
        let error = try #require(throws: StoreError.self) { try store.define(batch) }
        for text in named {
            #expect(error.description.contains(text), "\(problem): \(error.description)")
        }
        #expect(store.entities == before)
        #expect(try Self.tables(in: store) == ["Defined", "Alien"])
        #expect(try Store(path: store.path).entities == before)
    }

    @Test func aBatchIsRefusedInsideATransaction() throws {
        let store = try Store.temporary()
        try store.beginTransaction()
        let error = try #require(throws: StoreError.self) { try store.define([Self.entity("A"), Self.entity("B")]) }
        #expect(error.code == .transaction)
        try store.rollback()
        #expect(store.entities.isEmpty)
        #expect(try Self.tables(in: store).isEmpty)
    }

    @Test func liveQueriesAfterTrackingInABatchChangeNoSchemaAndHearEveryWriter() throws {
        let store = try Store.temporary()
        let entities = try (0..<40).map { try Self.entity("Kind\($0)") }
        try store.define(entities)
        try store.startTracking(entities.map(\.name))
        let version = try store.writer.schemaVersion()
        var controllers: [ResultsController] = []
        for entity in entities {
            let controller = try ResultsController(store: store, request: FetchRequest(entity: entity.name, sortKeys: [SortKey("rank")]))
            try controller.performFetch()
            controllers.append(controller)
        }
        // Each entity's change log exists, so no live query made a schema change.
        #expect(try store.writer.schemaVersion() == version)
        for entity in entities { #expect(try SchemaCatalog.hasChangeLog(of: entity, on: store.writer)) }
        // Writes through the store, and through another connection (the triggers).
        try store.insert("Kind0", ["id": "a", "rank": 1])
        let other = try Connection(path: store.path)
        defer { other.close() }
        try other.execute("INSERT INTO Kind39(id, rank) VALUES ('b', 2)")
        try store.pollExternalChanges()
        #expect(controllers[0].numberOfObjects == 1)
        #expect(controllers[39].numberOfObjects == 1)
        #expect(controllers[1].numberOfObjects == 0)
        // Tracking them again writes nothing.
        try store.startTracking(entities.map(\.name))
        #expect(try store.writer.schemaVersion() == version)
    }

    @Test func startTrackingRefusesUnknownEntitiesAndTransactionsAndStartsNothing() throws {
        let store = try Store.temporary()
        try store.define([Self.entity("A"), Self.entity("B")])
        let version = try store.writer.schemaVersion()
        let unknown = try #require(throws: StoreError.self) { try store.startTracking(["A", "Nope"]) }
        #expect(unknown.description.contains("Nope"))
        try store.beginTransaction()
        let inTransaction = try #require(throws: StoreError.self) { try store.startTracking(["A"]) }
        #expect(inTransaction.code == .transaction)
        try store.rollback()
        #expect(try store.writer.schemaVersion() == version)
        #expect(try !SchemaCatalog.hasChangeLog(of: store.entity(named: "A"), on: store.writer))
    }

    /// Another process dropping a change log after this store looked is noticed: the
    /// names the store keeps hold only for the schema version they were read at.
    @Test func aChangeLogDroppedByAnotherConnectionIsMadeAgainAtTheFirstWatch() throws {
        let store = try Store.temporary()
        try store.define([Self.entity("A"), Self.entity("B")])
        try store.startTracking(["A", "B"])
        let other = try Connection(path: store.path)
        defer { other.close() }
        try other.execute("DROP TRIGGER _roster_B_upsert")
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "B", sortKeys: [SortKey("rank")]))
        try controller.performFetch()
        try other.execute("INSERT INTO B(id, rank) VALUES ('x', 1)")
        try store.pollExternalChanges()
        #expect(controller.numberOfObjects == 1)
        #expect(try SchemaCatalog.hasChangeLog(of: store.entity(named: "B"), on: store.writer))
    }
}

/// The same batches on a PostgreSQL server: all or none, then live queries that hear
/// another client's commit.
@Suite("Defining and tracking entities in batches, PostgreSQL", .needsPostgreSQL)
struct PostgresEntityBatchTests {
    @Test func aBatchIsAllOrNoneAndItsEntitiesAreWatched() throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        let store = try Store(postgresURL: schema.url)
        let bad = try Entity("Middle", key: "id", attributes: [Attribute("id", .string), .relationship("to", to: "Nowhere", type: .string)])
        let error = try #require(throws: StoreError.self) {
            try store.define([EntityBatchTests.entity("First"), bad, EntityBatchTests.entity("Last")])
        }
        #expect(error.description.contains("Middle") && error.description.contains("Nowhere"), "\(error)")
        #expect(store.entities.isEmpty)
        #expect(try Store(postgresURL: schema.url).entities.isEmpty)

        let entities = try (0..<20).map { try EntityBatchTests.entity("Kind\($0)") }
        try store.define(entities)
        try store.startTracking(entities.map(\.name))
        let controllers = try entities.map { entity in
            let controller = try ResultsController(store: store, request: FetchRequest(entity: entity.name, sortKeys: [SortKey("rank")]))
            try controller.performFetch()
            return controller
        }
        let other = try Store(postgresURL: schema.url)
        try other.insert("Kind19", ["id": "a", "rank": 1])
        try store.pollExternalChanges()
        #expect(controllers[19].numberOfObjects == 1)
        #expect(controllers[0].numberOfObjects == 0)
    }
}
