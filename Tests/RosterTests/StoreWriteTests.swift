import Foundation
import Testing
@testable import Roster

@Suite("Store writes")
struct StoreWriteTests {
    @Test func insertThenFetchReturnsTheValuesWithNullsForTheRest() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "Hello", "rank": 3, "score": 2, "pinned": true])
        let post = try #require(try store.fetch("Post", key: "p1"))
        #expect(post["title"] == "Hello")
        #expect(post["rank"] == 3)
        #expect(post["score"] == .double(2))
        #expect(post["pinned"] == true)
        #expect(post["day"] == .null)
    }

    @Test func updateChangesOnlyTheNamedAttributes() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "Hello", "rank": 3])
        try store.update("Post", key: "p1", ["rank": 5, "title": nil])
        let post = try #require(try store.fetch("Post", key: "p1"))
        #expect(post["rank"] == 5)
        #expect(post["title"] == .null)
    }

    @Test func badWritesThrowClearErrorsAndChangeNothing() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        #expect(throws: StoreError.duplicateKey(entity: "Post", key: "p1")) { try store.insert("Post", ["id": "p1"]) }
        #expect(throws: StoreError.missingKey(entity: "Post", keyAttribute: "id")) { try store.insert("Post", ["title": "x"]) }
        #expect(throws: StoreError.unknownEntity("Pots")) { try store.insert("Pots", ["id": "p2"]) }
        #expect(throws: StoreError.unknownAttribute(entity: "Post", attribute: "titel")) { try store.insert("Post", ["id": "p2", "titel": "x"]) }
        #expect(throws: StoreError.typeMismatch(entity: "Post", attribute: "rank", expected: .integer, value: "3")) {
            try store.update("Post", key: "p1", ["rank": "3"])
        }
        #expect(throws: StoreError.notFound(entity: "Post", key: "p77")) { try store.update("Post", key: "p77", ["rank": 2]) }
        #expect(throws: StoreError.notFound(entity: "Post", key: "p77")) { try store.delete("Post", key: "p77") }
        #expect(throws: StoreError.keyChange(entity: "Post", key: "p1", newKey: "p9")) { try store.update("Post", key: "p1", ["id": "p9"]) }
        #expect(try store.fetch("Post", key: "p1")?.values == ["p1", nil, nil, 1, nil, nil])
        #expect(try store.fetch("Post", key: "p2") == nil)
        #expect(StoreError.notFound(entity: "Post", key: "p77").description == "no Post with key 'p77'")
    }

    /// A caller tells failures apart by code (in a `catch` clause or with `==`) and reads
    /// where they happened from the error's fields; SQLite's own error stays reachable.
    @Test func errorsAreMatchedByCodeAndSayWhere() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        func code(_ body: () throws -> Void) -> String {
            do {
                try body()
                return "none"
            } catch StoreError.Code.duplicateKey {
                return "duplicate"
            } catch StoreError.Code.notFound {
                return "not found"
            } catch {
                return "other: \(error)"
            }
        }
        #expect(code { try store.insert("Post", ["id": "p1"]) } == "duplicate")
        #expect(code { try store.delete("Post", key: "p9") } == "not found")
        #expect(code { try store.insert("Post", ["id": "p2"]) } == "none")

        let error = try #require(throws: StoreError.self) { try store.update("Post", key: "p1", ["titel": "x"]) }
        #expect(error.code == .unknownAttribute && error.entity == "Post" && error.attribute == "titel")
        #expect(error.key == nil && error.databaseError == nil)
        let sqlite = try #require(throws: StoreError.self) { try store.execute("INSERT INTO Post(id) VALUES ('p1')") }
        #expect(sqlite.code == .database)
        #expect(sqlite.databaseError?.code == .constraint, "\(sqlite)")
        #expect(sqlite.description == sqlite.databaseError?.description)
    }

    @Test func rawSQLThatFailsHalfwayChangesNothing() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        #expect(throws: StoreError.self) {
            try store.execute("UPDATE Post SET rank = 2; INSERT INTO Post(id) VALUES ('p1')")
        }
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
    }

    @Test func rawSQLWithTheWrongTypeIsRefusedByTheStrictTable() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        #expect(throws: StoreError.self) { try store.execute("UPDATE Post SET rank = 'high'") }
        #expect(throws: StoreError.self) { try store.execute("UPDATE Post SET pinned = 2") }
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
    }

    @Test func transactionControlInRawSQLIsRefused() throws {
        let store = try postStore()
        #expect(throws: StoreError.rejectedSQL("raw SQL may not control transactions ('COMMIT' in statement 2): it runs in the store's transaction")) {
            try store.execute("INSERT INTO Post(id) VALUES ('p1'); COMMIT")
        }
        #expect(try store.fetch("Post", key: "p1") == nil)
    }

    @Test func writeRollsBackWhenTheBodyThrows() throws {
        let store = try postStore()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.write {
                try store.insert("Post", ["id": "p1"])
                throw Stop()
            }
        }
        #expect(try store.fetch("Post", key: "p1") == nil)
        #expect(!store.isInTransaction)
    }

    @Test func aFailedStatementInsideATransactionKeepsTheRest() throws {
        let store = try postStore()
        try store.beginTransaction()
        try store.insert("Post", ["id": "p1"])
        #expect(throws: StoreError.self) { try store.execute("INSERT INTO Post(id) VALUES ('p2'); INSERT INTO Post(id) VALUES ('p1')") }
        try store.insert("Post", ["id": "p3"])
        try store.commit()
        #expect(try store.fetch("Post", key: "p1") != nil)
        #expect(try store.fetch("Post", key: "p2") == nil)
        #expect(try store.fetch("Post", key: "p3") != nil)
    }

    @Test func transactionCallsOutOfOrderAreErrors() throws {
        let store = try postStore()
        #expect(throws: StoreError.transaction("commit: no transaction is open")) { try store.commit() }
        #expect(throws: StoreError.transaction("rollback: no transaction is open")) { try store.rollback() }
        try store.beginTransaction()
        #expect(throws: StoreError.transaction("begin: a transaction is already open")) { try store.beginTransaction() }
        try store.rollback()
    }

    @Test func aReopenedFileKnowsItsEntitiesAndRefusesAConflictingDefinition() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-reopen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        do {
            let store = try Store(path: path)
            try store.define(postEntity())
            try store.insert("Post", ["id": "p1", "pinned": false])
        }
        let store = try Store(path: path)
        #expect(try store.entity(named: "Post") == postEntity())
        #expect(try store.fetch("Post", key: "p1")?["pinned"] == false)
        try store.define(postEntity())
        let other = try Entity("Post", key: "id", attributes: [Attribute("id", .string)])
        #expect(throws: StoreError.self) { try store.define(other) }
    }

    @Test func entityNamesAreCheckedBeforeAnySQL() throws {
        #expect(throws: SchemaError.self) { try Entity("Post; DROP TABLE x", key: "id", attributes: [Attribute("id", .string)]) }
        #expect(throws: SchemaError.self) { try Entity("Post", key: "id", attributes: [Attribute("id", .string), Attribute("ID", .integer)]) }
        #expect(throws: SchemaError.self) { try Entity("Post", key: "nope", attributes: [Attribute("id", .string)]) }
        #expect(throws: SchemaError.self) { try Entity("_roster_x", key: "id", attributes: [Attribute("id", .string)]) }
    }
}
