import CSQLite
import Foundation
import Testing
@testable import Roster

/// Defining many entities: Roster's own work per definition does not grow with the
/// number of entities the file already has.
///
/// SQLite's does: each `CREATE TABLE` or `CREATE TRIGGER` reads the whole `sqlite_schema`
/// table again to load the new object (it has no index), so defining entities one after
/// another costs SQLite time in proportion to the square of their number whatever Roster
/// does. Roster therefore runs one `CREATE` per definition (the change log's three or four
/// triggers come when a live query first watches the entity), and these tests hold it to adding
/// nothing on top that grows with the schema.
@Suite("Defining many entities")
struct SchemaScalingTests {
    /// A small entity, as an app with many kinds of records would define.
    static func entity(_ index: Int) throws -> Entity {
        try Entity("E\(index)", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer)])
    }

    /// How many pages the connection has read, from its cache or from the file.
    func pagesRead(by connection: Connection) -> Int64 {
        var hits: Int32 = 0, misses: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(connection.handle, SQLITE_DBSTATUS_CACHE_HIT, &hits, &highest, 0)
        sqlite3_db_status(connection.handle, SQLITE_DBSTATUS_CACHE_MISS, &misses, &highest, 0)
        return Int64(hits) + Int64(misses)
    }

    @Test func checkingANewEntitysNameReadsNoMoreWhenTheFileHasMoreEntities() throws {
        /// Pages read by 20 checks of new names in a store of `count` entities.
        func pagesForTwentyChecks(amongEntities count: Int) throws -> Int64 {
            let store = try Store.temporary()
            for index in 0..<count { try store.define(Self.entity(index)) }
            let before = pagesRead(by: store.writer)
            for index in 0..<20 {
                #expect(try !SchemaCatalog.hasTable(named: "New\(index)", on: store.writer))
            }
            #expect(try SchemaCatalog.hasTable(named: "e1", on: store.writer))
            return pagesRead(by: store.writer) - before
        }
        let few = try pagesForTwentyChecks(amongEntities: 10)
        let many = try pagesForTwentyChecks(amongEntities: 300)
        // Reading sqlite_schema would cost each check every page of it: hundreds with 300
        // entities (7 schema rows each), against a handful with 10.
        #expect(many <= few + 20, "20 checks read \(few) pages among 10 entities, \(many) among 300")
    }

    @Test func lookingForAnEntitysChangeLogReadsNoMoreWhenTheFileHasMoreEntities() throws {
        /// Pages read by 20 look-ups of entities' change logs (as their first live queries
        /// make) in a store of `count` entities, after a first one.
        func pagesForTwentyLookUps(amongEntities count: Int) throws -> Int64 {
            let store = try Store.temporary()
            try store.define((0..<count).map(Self.entity))
            #expect(try store.storage.findTracking(of: [store.entity(named: "E0")]).count == 1)
            let before = pagesRead(by: store.writer)
            for index in 1...20 {
                #expect(try store.storage.findTracking(of: [store.entity(named: "E\(index)")]).count == 1)
            }
            return pagesRead(by: store.writer) - before
        }
        let few = try pagesForTwentyLookUps(amongEntities: 30)
        let many = try pagesForTwentyLookUps(amongEntities: 600)
        // Reading sqlite_schema would cost each look-up every page of it: hundreds with 600
        // entities, against a handful with 30.
        #expect(many <= few + 20, "20 look-ups read \(few) pages among 30 entities, \(many) among 600")
    }

    @Test func theCommitAfterADefinitionReadsInProportionToTheEntities() throws {
        /// Pages the reading connection reads for the first commit after a definition (its
        /// delivery checks every entity's table and change log, since the schema changed),
        /// in a store of `count` entities with a live query.
        func pagesForTheCommitAfterADefinition(amongEntities count: Int) throws -> Int64 {
            let store = try Store.temporary()
            for index in 0..<count { try store.define(Self.entity(index)) }
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "E0"))
            try controller.performFetch()
            try store.insert("E0", ["id": "a"])
            try store.define(Entity("Later", key: "id", attributes: [Attribute("id", .string)]))
            let before = pagesRead(by: store.reader)
            try store.insert("E0", ["id": "b"])
            #expect(controller.numberOfObjects == 2)
            return pagesRead(by: store.reader) - before
        }
        let few = try pagesForTheCommitAfterADefinition(amongEntities: 100)
        let many = try pagesForTheCommitAfterADefinition(amongEntities: 400)
        // Four times the entities: about four times the pages (the schema is read once);
        // reading sqlite_schema once per entity would be about sixteen times.
        #expect(Double(many) < 8 * Double(few), "the commit after a definition read \(few) pages among 100 entities, \(many) among 400")
    }

    /// Defines `count` entities one by one in a store, and runs the very same SQL on a bare
    /// connection.
    ///
    /// - Returns: for each definition, the pages the store's two connections read beyond
    ///   what the bare connection read for the same `CREATE` — Roster's own reads.
    func pagesBeyondBareSQLite(definingEntities count: Int, in store: Store) throws -> [Int64] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-bare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bare = try Connection(path: folder.appendingPathComponent("bare.sqlite").path)
        defer { bare.close() }
        try bare.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try SchemaCatalog.install(on: bare)
        func storePages() -> Int64 { pagesRead(by: store.writer) + pagesRead(by: store.reader) }
        var beyond: [Int64] = []
        for index in 0..<count {
            let entity = try Self.entity(index)
            let (storeBefore, bareBefore) = (storePages(), pagesRead(by: bare))
            try store.define(entity)
            try bare.execute("BEGIN IMMEDIATE;\n\(SchemaCatalog.creation(of: entity))COMMIT;")
            beyond.append((storePages() - storeBefore) - (pagesRead(by: bare) - bareBefore))
        }
        #expect(store.entities.count == count)
        return beyond
    }

    /// How many tables and triggers `sqlite_schema` holds (a table's automatic index for
    /// its key comes with its `CREATE TABLE`).
    func schemaObjectCount(on connection: Connection) throws -> Int64 {
        let statement = try connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type IN ('table', 'trigger')")
        _ = try statement.step()
        guard case let .integer(count) = statement.column(0) else { return -1 }
        return count
    }

    /// Page counts, not the clock: what each definition reads does not depend on how busy
    /// the machine is. (`roster bench --scenario entities` times it against SQLite's own
    /// work; Docs/Performance.md has the figures.)
    @Test func definingTwoThousandEntitiesReadsWhatSQLiteReadsAndAFewPagesMore() throws {
        let store = try Store.temporary()
        let before = try schemaObjectCount(on: store.writer)
        let beyond = try pagesBeyondBareSQLite(definingEntities: 2_000, in: store)
        // One `CREATE TABLE` per entity (SQLite re-reads its schema table for each, so each
        // more object per entity would cost as much again): the change log waits for a watcher.
        #expect(try schemaObjectCount(on: store.writer) - before == 2_000)
        // SQLite's own reads grow with the schema (each CREATE reads all of sqlite_schema:
        // about a page per 13 entities, 150 pages by the 2,000th). Roster's on top of them
        // grow by a page per 200 entities: the search for a recorded name that differs only
        // in case walks the index of names (3 pages a definition among the first 100, 11
        // among the last). Reading the schema once more per definition would add 150.
        let first = beyond.prefix(100).reduce(0, +)
        let last = beyond.suffix(100).reduce(0, +)
        #expect(last <= first + 2_000, "the first 100 definitions read \(first) pages beyond bare SQLite, the last 100 \(last)")
        #expect(beyond.max() ?? 0 <= 40, "a definition read \(beyond.max() ?? 0) pages beyond bare SQLite")
        // Watching one of them afterwards gives it (only it) a change log.
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "E1999"))
        try controller.performFetch()
        // Three triggers: its key is a string, so one trigger logs inserts and replaces.
        #expect(try schemaObjectCount(on: store.writer) - before == 2_003)
        try store.insert("E1999", ["id": "a"])
        #expect(controller.numberOfObjects == 1)
    }
}
