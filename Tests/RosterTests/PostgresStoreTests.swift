// The backend's own types (ServerConnection, PostgresStorage): built with the PostgreSQL
// trait only, as they are (swift test --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Synchronization
import Testing
@testable import Roster
import RosterTestSupport

/// The PostgreSQL backend against a real server (Docs/ScaleOut.md): commits of other
/// clients in any order, rollbacks and failed statements, concurrent writers, broken
/// connections, lost notifications, retried conflicts. Each test works in a schema of its
/// own; without a server (and not under CI) they skip.
@Suite("PostgreSQL store", .needsPostgreSQL)
struct PostgresStoreTests {
    static let item = try! Entity("Item", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)])

    /// A store on a new schema with `Item` defined, a live query on it by rank, and its recorder.
    final class Fixture {
        let schema: PostgresTestSchema
        let store: Store
        let controller: ResultsController
        let recorder = GroupRecorder()

        init?() throws {
            guard let schema = try PostgresTestSchema.make() else { return nil }
            self.schema = schema
            store = try Store(postgresURL: schema.url)
            try store.define(PostgresStoreTests.item)
            controller = try ResultsController(store: store, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
            controller.delegate = recorder
            try controller.performFetch()
        }

        deinit { schema.drop() }

        var keys: [Value] { (try? controller.fetchedObjects.map(\.key)) ?? [] }

        /// The keys a fresh query reads now, in order.
        func freshKeys() throws -> [Value] {
            let fresh = try ResultsController(store: store, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
            try fresh.performFetch()
            return try fresh.fetchedObjects.map(\.key)
        }

        /// The keys inserted by the groups recorded since the last call, in order.
        func insertedKeys() -> [Value] {
            recorder.takeGroups().flatMap { $0.objectChanges.compactMap { $0.type == .insert ? $0.item : nil } }
        }
    }

    @Test func aTransactionThatCommitsAfterALaterOneIsNotSkipped() throws {
        guard let fixture = try Fixture() else { return }
        // A logs its row first but commits last; B logs later and commits first. A reader
        // that went by the order rows were logged would pass A's row while it was invisible
        // and never come back to it.
        let a = try ServerConnection(url: fixture.schema.url)
        try a.execute("BEGIN")
        try a.execute(#"INSERT INTO "Item" VALUES ('a', 1)"#)
        try ExternalConnection(path: fixture.schema.url).execute(#"INSERT INTO "Item" VALUES ('b', 2)"#)
        try fixture.store.pollExternalChanges()
        #expect(fixture.insertedKeys() == ["b"])
        try a.execute("COMMIT")
        #expect(try fixture.store.pollExternalChanges())
        #expect(fixture.insertedKeys() == ["a"])
        #expect(fixture.keys == ["a", "b"])
    }

    @Test func rollbacksAndStatementsThatFailHalfWayReportNothing() throws {
        guard let fixture = try Fixture() else { return }
        try fixture.store.write {
            for rank in 1...4 { try fixture.store.insert("Item", ["id": .string("i\(rank)"), "rank": .integer(Int64(rank))]) }
        }
        _ = fixture.recorder.takeGroups()
        let other = try ServerConnection(url: fixture.schema.url)
        try other.execute("BEGIN")
        try other.execute(#"UPDATE "Item" SET rank = rank + 10"#)
        try other.execute("ROLLBACK")
        // Fails at i2 (a division by zero) after changing i1.
        #expect(throws: StoreError.self) {
            try ExternalConnection(path: fixture.schema.url).execute(#"UPDATE "Item" SET rank = 10 / (rank - 2)"#)
        }
        #expect(!(try fixture.store.pollExternalChanges()))
        #expect(fixture.recorder.takeGroups().isEmpty)
        #expect(try fixture.freshKeys() == ["i1", "i2", "i3", "i4"])
    }

    /// A table another client recreated with another collation changes the result type of
    /// the statements prepared on it. The delivery that finds it fails (its transaction
    /// cannot prepare them again); the next one does, and resyncs. Before, they failed for
    /// good: the failed transaction kept their old names, and every later read, a fresh
    /// query's too, failed the same way.
    @Test func aTableRecreatedWithAnotherCollationFailsOneDeliveryNotEveryLaterRead() throws {
        guard let fixture = try Fixture() else { return }
        try fixture.store.write {
            for rank in 1...3 { try fixture.store.insert("Item", ["id": .string("i\(rank)"), "rank": .integer(Int64(rank))]) }
        }
        _ = fixture.recorder.takeGroups()
        try ServerConnection(url: fixture.schema.url).execute(#"""
            CREATE TABLE "New"(id text NOT NULL PRIMARY KEY, rank bigint);
            INSERT INTO "New" SELECT id, 10 - rank FROM "Item"; DROP TABLE "Item"; ALTER TABLE "New" RENAME TO "Item"
            """#)
        for _ in 0..<3 { _ = try? fixture.store.pollExternalChanges() }
        #expect(try fixture.freshKeys() == ["i3", "i2", "i1"])
        #expect(fixture.keys == ["i3", "i2", "i1"])
        #expect(fixture.recorder.resyncs.count == 1)
    }

    @Test func aWriterThatDoesNotWaitForLocksStillWaitsItsTurnToCommit() throws {
        guard let fixture = try Fixture() else { return }
        // Another client holds the schema's commit lock for 300 ms, as a committing client
        // does for a moment. Writers that do not wait for locks (busy timeout 0: the script
        // runner's `external` connection, a store told so) still wait their turn to commit;
        // they used to fail with 55P03 whenever another client committed at that moment.
        let lock = ServerCatalog.Names(schema: fixture.schema.name).commitLock
        func whileAnotherClientHoldsTheCommitLock(_ write: () throws -> Void) throws -> Duration {
            let url = fixture.schema.url
            let taken = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                let holder = try? ServerConnection(url: url)
                _ = try? holder?.query("SELECT pg_advisory_lock(\(lock))")
                taken.signal()
                Thread.sleep(forTimeInterval: 0.3)
                _ = try? holder?.query("SELECT pg_advisory_unlock_all()")
                released.signal()
            }
            taken.wait()
            let clock = ContinuousClock()
            let start = clock.now
            try write()
            let waited = clock.now - start
            released.wait()
            return waited
        }
        let external = try ExternalConnection(path: fixture.schema.url, busyTimeout: 0)
        let externalWait = try whileAnotherClientHoldsTheCommitLock {
            try external.execute(#"INSERT INTO "Item" VALUES ('a', 1)"#)
        }
        #expect(externalWait >= .milliseconds(200), "the commit did not wait for the commit lock: the test proves nothing")
        fixture.store.busyTimeout = .zero
        let storeWait = try whileAnotherClientHoldsTheCommitLock {
            try fixture.store.insert("Item", ["id": .string("b"), "rank": .integer(2)])
        }
        #expect(storeWait >= .milliseconds(200))
        try fixture.store.pollExternalChanges()
        #expect(fixture.keys == ["a", "b"])

        // A row lock of a transaction still open is another matter: not waited for.
        let other = try ServerConnection(url: fixture.schema.url)
        try other.execute("BEGIN")
        try other.execute(#"UPDATE "Item" SET rank = 5 WHERE id = 'a'"#)
        #expect {
            try external.execute(#"UPDATE "Item" SET rank = 6 WHERE id = 'a'"#)
        } throws: { error in
            (error as? StoreError)?.serverError?.sqlState == "55P03"
        }
        try other.execute("ROLLBACK")
        try external.execute(#"UPDATE "Item" SET rank = 6 WHERE id = 'a'"#)
        try fixture.store.pollExternalChanges()
        #expect(fixture.keys == ["b", "a"])
    }

    @Test func aBusyTimeoutSetInsideATransactionThatRollsBackStillHolds() throws {
        guard let fixture = try Fixture() else { return }
        struct Undo: Error {}
        try fixture.store.insert("Item", ["id": .string("a"), "rank": .integer(1)])
        // A `SET` inside a transaction is undone with it: the store sets the timeout when
        // the next transaction begins instead.
        #expect(throws: Undo.self) {
            try fixture.store.write {
                try fixture.store.update("Item", key: "a", ["rank": .integer(2)])
                fixture.store.busyTimeout = .zero
                throw Undo()
            }
        }
        let other = try ServerConnection(url: fixture.schema.url)
        try other.execute("BEGIN")
        try other.execute(#"UPDATE "Item" SET rank = 5 WHERE id = 'a'"#)
        defer { try? other.execute("ROLLBACK") }
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            try fixture.store.update("Item", key: "a", ["rank": .integer(3)])
        } throws: { error in
            (error as? StoreError)?.serverError?.sqlState == "55P03"
        }
        // With the 5 s default it would wait 5 s for the row lock.
        #expect(clock.now - start < .seconds(2))
    }

    @Test func concurrentWritersAreEachDeliveredExactlyOnce() throws {
        guard let fixture = try Fixture() else { return }
        let writers = 4, rowsEach = 40
        let url = fixture.schema.url
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            do {
                let store = try Store(postgresURL: url)
                for row in 0..<rowsEach {
                    try store.insert("Item", ["id": .string("w\(writer)-\(row)"), "rank": .integer(Int64(row * writers + writer))])
                    if row % 3 == 0 { try store.update("Item", key: .string("w\(writer)-\(row)"), ["rank": .integer(Int64(1_000 + row))]) }
                }
            } catch {
                failures.withLock { $0.append("writer \(writer): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        try fixture.store.pollExternalChanges()
        let inserted = fixture.insertedKeys()
        #expect(inserted.count == writers * rowsEach)
        #expect(Set(inserted).count == inserted.count, "a row was inserted twice")
        #expect(fixture.keys == (try fixture.freshKeys()))
    }

    @Test func aDroppedConnectionIsReportedAndThenCaughtUpExactly() throws {
        guard let fixture = try Fixture() else { return }
        try fixture.store.insert("Item", ["id": "a", "rank": 1])
        _ = fixture.recorder.takeGroups()
        // Another client ends the store's two connections (and only those: tests run at once).
        let storage = try #require(fixture.store.storage as? PostgresStorage)
        let pids = try [storage.reader, storage.writer].map { try #require($0.query("SELECT pg_backend_pid()").integer(0, 0)) }
        let admin = try ServerConnection(url: fixture.schema.url)
        for pid in pids { _ = try admin.query("SELECT pg_terminate_backend($1::int)", [.integer(pid)]) }
        try ExternalConnection(path: fixture.schema.url).execute(#"INSERT INTO "Item" VALUES ('b', 2)"#)
        #expect(throws: StoreError.self) { try fixture.store.pollExternalChanges() }
        #expect(fixture.recorder.errors.contains { $0.code == .server && $0.serverError?.isConnectionFailure == true })
        // The next poll reads on a new connection, from the same commit number.
        try fixture.store.pollExternalChanges()
        #expect(fixture.insertedKeys() == ["b"])
        // The writer reconnects too.
        try fixture.store.insert("Item", ["id": "c", "rank": 3])
        #expect(fixture.insertedKeys() == ["c"])
        #expect(fixture.keys == ["a", "b", "c"])
    }

    @Test func aSchemaWithoutTheLogsRemovalGuardGetsItWhenAStoreOpensIt() throws {
        guard let fixture = try Fixture() else { return }
        let guards = """
            SELECT count(*) FROM pg_trigger WHERE tgname IN ('_roster_gd', '_roster_gt')
                AND tgrelid IN ('_roster_commits'::regclass, '"_roster_log_Item"'::regclass)
            """
        let other = try ExternalConnection(path: fixture.schema.url)
        #expect(try other.run(guards) == [["4"]])
        // As an older Roster left it: neither the commits nor the log has the guard.
        try other.execute("""
            DROP TRIGGER _roster_gd ON _roster_commits; DROP TRIGGER _roster_gt ON _roster_commits;
            DROP TRIGGER _roster_gd ON "_roster_log_Item"; DROP TRIGGER _roster_gt ON "_roster_log_Item"
            """)
        #expect(try other.run(guards) == [["0"]])
        let store = try Store(postgresURL: fixture.schema.url)
        try store.ensureTracking(of: store.entity(named: "Item"))
        #expect(try other.run(guards) == [["4"]])
        // Another client deletes a commit the store has not read: a resync, and the truth.
        try fixture.store.insert("Item", ["id": "a", "rank": 1])
        _ = fixture.recorder.takeGroups()
        try other.execute(#"UPDATE "Item" SET rank = 5 WHERE id = 'a'; DELETE FROM _roster_commits"#)
        try other.execute(#"INSERT INTO "Item" VALUES ('b', 2)"#)
        try fixture.store.pollExternalChanges()
        #expect(fixture.recorder.resyncs.contains(.logPruned))
        #expect(fixture.keys == (try fixture.freshKeys()))
    }

    @Test func aWatcherThatHearsNoNotificationStillDeliversBySafetyPoll() throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        let queue = try StoreQueue(postgresURL: schema.url)
        try queue.read { try $0.define(PostgresStoreTests.item) }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
        // A monitor on a channel nobody notifies: only its safety poll can deliver.
        let polls = Atomic<Int>(0)
        let monitor = ServerChangeMonitor(url: schema.url, channel: "nobody.notifies.this", safetyInterval: .milliseconds(100), retryInterval: .milliseconds(100)) { _ in
            polls.add(1, ordering: .relaxed)
            _ = try? queue.pollExternalChanges()
        }
        defer { monitor.stop() }
        try ExternalConnection(path: schema.url).execute(#"INSERT INTO "Item" VALUES ('a', 1)"#)
        var change: ResultsChange?
        for _ in 0..<100 where change == nil {
            change = try live.takeChange()
            if change == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(change?.group.objectChanges.map(\.item) == ["a"])
        #expect(polls.load(ordering: .relaxed) >= 1)
    }

    @Test func aWatchingQueueWakesOnANotification() throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        let queue = try StoreQueue(postgresURL: schema.url)
        try queue.read { try $0.define(PostgresStoreTests.item) }
        let live = try LiveResults(queue: queue, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
        // A safety poll far longer than the test: only the notification can wake it in time.
        queue.startWatching(safetyPoll: .seconds(60))
        defer { queue.stopWatching() }
        #expect(queue.watchMode == .serverNotifications)
        Thread.sleep(forTimeInterval: 0.2)  // the monitor's LISTEN is in place
        let start = ContinuousClock.now
        try ExternalConnection(path: schema.url).execute(#"INSERT INTO "Item" VALUES ('a', 1)"#)
        var change: ResultsChange?
        while change == nil && ContinuousClock.now - start < .seconds(5) {
            change = try live.takeChange()
            if change == nil { Thread.sleep(forTimeInterval: 0.005) }
        }
        #expect(change?.group.objectChanges.map(\.item) == ["a"])
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func aSerializationFailureIsRetriedThenReported() throws {
        guard let fixture = try Fixture() else { return }
        // A statement that fails as a serialization failure until the sequence (which no
        // rollback takes back) reaches a number.
        try ExternalConnection(path: fixture.schema.url).execute("CREATE SEQUENCE attempts")
        func flaky(until number: Int) -> String {
            "DO $$ BEGIN IF nextval('attempts') < \(number) THEN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END IF; END $$"
        }
        try fixture.store.execute(flaky(until: 3))
        let other = try ServerConnection(url: fixture.schema.url)
        #expect(try other.query("SELECT last_value FROM attempts").integer(0, 0) == 3)
        do {
            try fixture.store.execute(flaky(until: 100))
            Issue.record("a statement that always conflicts succeeded")
        } catch let error as StoreError {
            #expect(error.serverError?.isRetryable == true)
        }
        #expect(try other.query("SELECT last_value FROM attempts").integer(0, 0) == 3 + Int64(Store.maximumWriteAttempts))
        #expect(!fixture.store.isInTransaction)
    }

    @Test func badURLsAndDeadServersAreClearErrors() throws {
        for url in ["postgresql://nobody@127.0.0.1:1/none", "postgresql://%zz", "not a url at all = ="] {
            do {
                _ = try Store(postgresURL: url)
                Issue.record("\(url) opened")
            } catch let error as StoreError {
                #expect(error.code == .server)
                #expect(error.description.contains("PostgreSQL"))
            }
        }
        guard let server = try PostgresTestServer.url() else { return }
        // A search path that names no schema that exists.
        do {
            _ = try Store(postgresURL: PostgresSchema.url(server, searchPath: "roster_no_such_schema"))
            Issue.record("a store opened on a schema that does not exist")
        } catch let error as StoreError {
            #expect(error.description.contains("names no schema"))
        }
    }

    @Test func textThatPostgreSQLCannotHoldIsRefusedAndNothingIsWritten() throws {
        guard let fixture = try Fixture() else { return }
        let text = try Entity("Note", key: "id", attributes: [Attribute("id", .string), Attribute("body", .string)])
        try fixture.store.define(text)
        #expect(throws: StoreError.self) { try fixture.store.insert("Note", ["id": "n1", "body": "a\u{0}b"]) }
        #expect(try fixture.store.fetch("Note", key: "n1") == nil)
        #expect(!fixture.store.isInTransaction)
    }

    @Test func aNaNThatAnotherClientStoresReadsAsNullAndSortsAsNull() throws {
        guard let fixture = try Fixture() else { return }
        let weight = try Entity("Weight", key: "id", attributes: [Attribute("id", .string), Attribute("kg", .double)])
        try fixture.store.define(weight)
        let request = FetchRequest(entity: "Weight", predicate: try QueryPredicate("kg != nil"), sortKeys: [SortKey("kg")])
        let sorted = try ResultsController(store: fixture.store, request: FetchRequest(entity: "Weight", sortKeys: [SortKey("kg")]))
        let filtered = try ResultsController(store: fixture.store, request: request)
        try sorted.performFetch()
        try filtered.performFetch()
        try ExternalConnection(path: fixture.schema.url).execute(#"INSERT INTO "Weight" VALUES ('a', 2), ('n', 'NaN'), ('b', -1)"#)
        try fixture.store.pollExternalChanges()
        #expect(try sorted.fetchedObjects.map(\.key) == ["n", "b", "a"])
        #expect(try sorted.fetchedObjects.first?["kg"] == .null)
        #expect(try filtered.fetchedObjects.map(\.key) == ["b", "a"])
        for controller in [sorted, filtered] {
            let fresh = try ResultsController(store: fixture.store, request: controller.request)
            try fresh.performFetch()
            #expect(fresh.snapshot == controller.snapshot)
        }
    }

    @Test func aStoreLivesThroughAServerRestartAndCatchesUp() throws {
        // A server of the test's own: restarting the shared one would break the other tests.
        let script = Programs.repository.appendingPathComponent("Scripts/postgres-server.sh").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-restart-\(UUID().uuidString)").path
        let started = try Programs.run(executable: URL(fileURLWithPath: "/bin/bash"), [script, "start", folder])
        guard started.status == 0 else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("no server of its own under CI: \(started.output)") }
            return
        }
        defer { _ = try? Programs.run(executable: URL(fileURLWithPath: "/bin/bash"), [script, "stop", folder]) }
        let server = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let schema = try PostgresSchema.create(at: server)
        let store = try Store(postgresURL: schema.url)
        try store.define(PostgresStoreTests.item)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.insert("Item", ["id": "a", "rank": 1])
        _ = recorder.takeGroups()

        let restarted = try Programs.run(executable: URL(fileURLWithPath: "/bin/bash"), [script, "restart", folder])
        try #require(restarted.status == 0, "\(restarted.output)")
        try ExternalConnection(path: schema.url).execute(#"INSERT INTO "Item" VALUES ('b', 2)"#)
        // The first poll meets the broken connection and says so; the next catches up.
        #expect(throws: StoreError.self) { try store.pollExternalChanges() }
        #expect(recorder.errors.contains { $0.serverError?.isConnectionFailure == true })
        try store.pollExternalChanges()
        #expect(recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["b"])
        try store.insert("Item", ["id": "c", "rank": 3])
        #expect(try controller.fetchedObjects.map(\.key) == ["a", "b", "c"])
    }

    @Test func anotherClientMigratingAWatchedEntityMeansAResyncNotACrash() throws {
        guard let fixture = try Fixture() else { return }
        try fixture.store.insert("Item", ["id": "a", "rank": 1])
        _ = fixture.recorder.takeGroups()
        let other = try Store(postgresURL: fixture.schema.url)
        let migrated = try Entity("Item", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer), Attribute("note", .string)])
        try other.define(migrated)
        try other.insert("Item", ["id": "b", "rank": 2, "note": "new"])
        try fixture.store.pollExternalChanges()
        let groups = fixture.recorder.takeGroups()
        #expect(fixture.recorder.resyncs.contains(.schemaChanged), "the live query heard no resync: \(groups)")
        #expect(fixture.keys == ["a", "b"])
        #expect(try fixture.freshKeys() == ["a", "b"])
        // And it goes on hearing commits.
        try other.update("Item", key: "a", ["rank": 3])
        try fixture.store.pollExternalChanges()
        #expect(fixture.keys == ["b", "a"])
    }

    @Test func aClientBehindThePrunedLogResyncsExactly() throws {
        guard let fixture = try Fixture() else { return }
        fixture.store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: 1)
        // Another client with a live query that does not poll while the log is pruned.
        let behind = try Store(postgresURL: fixture.schema.url)
        let lagging = try ResultsController(store: behind, request: FetchRequest(entity: "Item", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        lagging.delegate = recorder
        try lagging.performFetch()
        // Enough deliveries for the store to prune (it tries every 64).
        for number in 0..<70 { try fixture.store.insert("Item", ["id": .string("i\(number)"), "rank": .integer(Int64(number))]) }
        let storage = try #require(fixture.store.storage as? PostgresStorage)
        let pruned = try storage.writer.query("SELECT value FROM _roster_meta WHERE name = 'pruned_through'").integer(0, 0) ?? 0
        #expect(pruned > 0, "nothing was pruned")
        try behind.pollExternalChanges()
        #expect(recorder.resyncs.contains(.logPruned))
        #expect(try lagging.fetchedObjects.map(\.key) == fixture.freshKeys())
    }

    @Test func aRoleWithoutRightsIsAClearErrorAndNothingIsWritten() throws {
        guard let fixture = try Fixture() else { return }
        let role = "roster_no_rights_\(UInt32.random(in: 0 ... .max))"
        let admin = try ServerConnection(url: fixture.schema.url)
        try admin.execute("CREATE ROLE \(role) LOGIN")
        defer { try? admin.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        let url = fixture.schema.url.replacingOccurrences(of: "://roster@", with: "://\(role)@")
        #expect(url != fixture.schema.url)
        do {
            let store = try Store(postgresURL: url)
            try store.insert("Item", ["id": "x", "rank": 1])
            Issue.record("a role without rights wrote")
        } catch let error as StoreError {
            #expect(error.code == .server)
            #expect(error.description.contains("permission denied") || error.description.contains("no schema"), "\(error)")
        }
        #expect(try fixture.freshKeys().isEmpty)
    }

    @Test func aTableThatDoesNotFitTheEntityIsAClearErrorAndNothingChanges() throws {
        guard let fixture = try Fixture() else { return }
        try ExternalConnection(path: fixture.schema.url).execute(#"CREATE TABLE "Note"(id text PRIMARY KEY, body integer)"#)
        let note = try Entity("Note", key: "id", attributes: [Attribute("id", .string), Attribute("body", .string)])
        #expect(throws: StoreError.self) { try fixture.store.define(note) }
        #expect(throws: StoreError.self) { try fixture.store.entity(named: "Note") }
        // A watched table that another client retypes: its live queries hear why.
        try fixture.store.insert("Item", ["id": "a", "rank": 1])
        try ExternalConnection(path: fixture.schema.url).execute(#"ALTER TABLE "Item" ALTER COLUMN rank TYPE text"#)
        try ExternalConnection(path: fixture.schema.url).execute(#"INSERT INTO "Item" VALUES ('b', 'two')"#)
        _ = try? fixture.store.pollExternalChanges()
        #expect(fixture.recorder.errors.contains { $0.code == .schemaMismatch && $0.description.contains("rank") })
        #expect(fixture.keys == ["a"])
    }

    @Test func triggersAnotherClientDropsOrDisablesArePutBackAndTheQueryResyncs() throws {
        guard let fixture = try Fixture() else { return }
        try fixture.store.insert("Item", ["id": "a", "rank": 1])
        _ = fixture.recorder.takeGroups()
        for sabotage in [#"DROP TRIGGER _roster_lu ON "Item""#, #"ALTER TABLE "Item" DISABLE TRIGGER USER"#] {
            try ExternalConnection(path: fixture.schema.url).execute(sabotage)
            // A write while the log is missing: nobody logs it.
            try ExternalConnection(path: fixture.schema.url).execute(#"UPDATE "Item" SET rank = rank + 10"#)
            try ExternalConnection(path: fixture.schema.url).execute(#"INSERT INTO "Item" VALUES ('z\#(sabotage.count)', 0)"#)
            try fixture.store.pollExternalChanges()
            try fixture.store.pollExternalChanges()
            #expect(fixture.recorder.resyncs.contains(.schemaChanged), "\(sabotage): no resync")
            #expect(fixture.keys == (try fixture.freshKeys()), "\(sabotage): results differ from a fresh fetch")
            // The log is back. The next delivery re-fetches once more (writes between the first
            // re-fetch's snapshot and the triggers' return were not logged); after it, writes
            // are heard row by row.
            let storage = try #require(fixture.store.storage as? PostgresStorage)
            #expect(try ServerCatalog.hasChangeLog(of: PostgresStoreTests.item, storage.names, on: storage.reader), "\(sabotage)")
            try ExternalConnection(path: fixture.schema.url).execute(#"UPDATE "Item" SET rank = rank + 1 WHERE id = 'a'"#)
            try fixture.store.pollExternalChanges()
            #expect(fixture.keys == (try fixture.freshKeys()), "\(sabotage): results differ after the second re-fetch")
            _ = fixture.recorder.takeGroups()
            try ExternalConnection(path: fixture.schema.url).execute(#"UPDATE "Item" SET rank = -5 WHERE id = 'a'"#)
            try fixture.store.pollExternalChanges()
            #expect(fixture.recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["a"], "\(sabotage)")
        }
    }

    @Test func rawSQLThatEndsTheTransactionOrDropsStatementsIsRefused() throws {
        guard let fixture = try Fixture() else { return }
        for sql in [#"SELECT E'\''; COMMIT; --'"#, "DEALLOCATE ALL", "discard all", "SELECT 1; /* ; */ ROLLBACK"] {
            do {
                try fixture.store.execute(sql)
                Issue.record("ran: \(sql)")
            } catch let error as StoreError {
                #expect(error.code == .rejectedSQL, "\(sql): \(error)")
            }
        }
        // Text that only looks like them runs.
        try fixture.store.execute(#"INSERT INTO "Item" VALUES ('COMMIT; it''s', 1)"#)
        try fixture.store.execute(#"INSERT INTO "Item" VALUES (E'x\';y', $$; ROLLBACK$$::text::int::bigint)"#.replacingOccurrences(of: "$$; ROLLBACK$$::text::int::bigint", with: "2"))
        #expect(fixture.keys.count == 2)
    }

    @Test func integersBeyondDoublePrecisionCompareExactly() throws {
        guard let fixture = try Fixture() else { return }
        let big: Int64 = 9_007_199_254_740_993  // 2^53 + 1: no double holds it
        try fixture.store.insert("Item", ["id": "big", "rank": .integer(big)])
        let request = FetchRequest(entity: "Item", predicate: try QueryPredicate("rank == %@", .double(9_007_199_254_740_992)), sortKeys: [SortKey("rank")])
        let controller = try ResultsController(store: fixture.store, request: request)
        try controller.performFetch()
        #expect(try controller.fetchedObjects.isEmpty, "2^53 + 1 matched 2^53")
    }
}
#endif
