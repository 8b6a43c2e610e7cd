import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The change log's before-images, and the read transactions that keep live queries at
/// the tracker's cursor: what lets the incremental engine keep no more of a row than its
/// sort values and still tell a real change from a value written back.
@Suite("Change log and before-images")
struct ChangeLogTests {
    /// The rows the pruning tests keep: by count alone, so that they prune at once.
    static let retained = 10_000

    typealias Watched = WatchedPosts

    func count(_ table: String, in store: Store) throws -> Int64 {
        let statement = try store.writer.prepare("SELECT count(*) FROM \(table)")
        _ = try statement.step()
        guard case let .integer(count) = statement.column(0) else { return -1 }
        return count
    }

    @Test func replacingARowWithTheSameValuesIsNoChangeAndWithOtherValuesAnUpdate() throws {
        let watched = try Watched()
        try watched.store.execute("INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p2', 2, 't')")
        #expect(watched.recorder.takeGroups().isEmpty)
        try watched.store.execute("INSERT OR REPLACE INTO Post(id, rank, title) VALUES ('p2', 2, 'new title')")
        #expect(watched.recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        #expect(watched.controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "new title")
    }

    @Test func aTransactionOfTheStoreIsLoggedAsOneBatchWithTheRowsBefore() throws {
        let watched = try Watched()
        let store = watched.store
        let entries = try count("_roster_changes", in: store)
        let triggerEntries = try count("_roster_changes WHERE key IS NOT NULL", in: store)
        try store.write {
            try store.update("Post", key: "p1", ["title": "changed"])
            try store.delete("Post", key: "p3")
            try store.insert("Post", ["id": "p9", "rank": 9])
            try store.update("Post", key: "p1", ["title": "t"])
        }
        #expect(try count("_roster_changes", in: store) == entries + 1)
        #expect(try count("_roster_changes WHERE key IS NOT NULL", in: store) == triggerEntries)
        let batch = try newestBatch(in: store, entity: "Post")
        // Each entry as [key] (inserted), [key, title before] (deleted) or [key, old
        // values it changed] (updated); unknown as [].
        let shown = batch.map { entry -> [Value] in
            switch entry {
            case let .inserted(key): [key]
            case let .before(key, row): [key, row[1]]
            case let .changed(key, values): [key] + values.map(\.value)
            case .unknown: []
            }
        }
        #expect(shown == [["p1", "t"], ["p3", "t"], ["p9"], ["p1", "changed"]])
        // p1 was written back: the first entry holds its row before, so nothing is reported for it.
        let groups = watched.recorder.takeGroups()
        #expect(groups.count == 1)
        #expect(Set(groups.first?.objectChanges.map(\.item) ?? []) == ["p3", "p9"])
    }

    @Test func anUpdateByAnotherConnectionLogsTheRowBeforeIt() throws {
        let watched = try Watched()
        let store = watched.store
        let images = "_roster_changes WHERE \(SchemaCatalog.imageColumn(0)) IS NOT NULL"   // id is Post's first attribute
        let before = try count(images, in: store)
        let other = try Connection(path: store.path)
        try other.execute("UPDATE Post SET title = 'changed' WHERE id = 'p1'; DELETE FROM Post WHERE id = 'p3'")
        // Each in its entry's row: the key, then the row before (id, title, …).
        let statement = try store.writer.prepare("SELECT key, old0, old1 FROM \(images) ORDER BY seq DESC LIMIT 2")
        var rows: [[Value]] = []
        while try statement.step() { rows.append([statement.column(0), statement.column(1), statement.column(2)]) }
        #expect(rows == [["p3", "p3", "t"], ["p1", "p1", "t"]])
        #expect(try count(images, in: store) == before + 2)
        other.close()
    }

    @Test func aQueryFetchedWhileOtherConnectionsChangesArePendingStartsAfterThem() throws {
        let watched = try Watched()
        let store = watched.store
        let other = try ExternalConnection(path: store.path)
        try other.execute("UPDATE Post SET title = 'elsewhere' WHERE id = 'p2'")
        // Not polled yet. A second query fetches: the first hears the pending change first.
        let second = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let secondRecorder = GroupRecorder()
        second.delegate = secondRecorder
        try second.performFetch()
        let update = ChangeGroup<Value, Value>(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])
        #expect(watched.recorder.takeGroups() == [update])
        #expect(secondRecorder.takeGroups().isEmpty)
        // Written back: a change for both, though the value equals the one before the first write.
        try other.execute("UPDATE Post SET title = 't' WHERE id = 'p2'")
        #expect(try store.pollExternalChanges())
        #expect(watched.recorder.takeGroups() == [update])
        #expect(secondRecorder.takeGroups() == [update])
    }

    @Test func aCallbackReadsTheStateItIsToldAboutNotANewerOne() throws {
        let watched = try Watched()
        let store = watched.store
        let other = try ExternalConnection(path: store.path)
        final class Reader: ResultsControllerDelegate {
            let other: ExternalConnection
            var seen: [Value] = []
            init(other: ExternalConnection) { self.other = other }
            func controllerDidChangeContent(_ controller: ResultsController) {
                // Another connection commits while the change is being reported.
                try? other.execute("UPDATE Post SET title = 'later' WHERE id = 'p3'")
                seen = (0..<controller.numberOfObjects).map { controller.object(at: IndexPath(item: $0, section: 0))?["title"] ?? .null }
            }
        }
        let reader = Reader(other: other)
        watched.controller.delegate = reader
        try store.update("Post", key: "p1", ["title": "now"])
        #expect(reader.seen == ["now", "t", "t"])
        #expect(try store.pollExternalChanges())
        #expect(watched.controller.object(at: IndexPath(item: 2, section: 0))?["title"] == "later")
    }

    @Test func anObjectLoadedBetweenAWriteAndItsUndoingShowsTheValueWrittenBack() throws {
        let watched = try Watched()
        let store = watched.store, controller = watched.controller
        let other = try ExternalConnection(path: store.path)
        try other.execute("UPDATE Post SET title = 'for a moment' WHERE id = 'p2'")
        // Not polled: the object is loaded from the newer commit.
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "for a moment")
        try other.execute("UPDATE Post SET title = 't' WHERE id = 'p2'")
        #expect(try store.pollExternalChanges())
        #expect(watched.recorder.takeGroups().isEmpty)
        #expect(controller.object(at: IndexPath(item: 1, section: 0))?["title"] == "t")
    }

    @Test func aKeyThatIsNotValidUTF8IsFoundAgainAfterAFetch() throws {
        let watched = try Watched()
        let store = watched.store
        try store.execute("INSERT INTO Post(id, rank, title) VALUES (CAST(x'61ff' AS TEXT), 9, 't')")
        // A fresh fetch reads the key as its bytes (it is not valid UTF-8), with its hash.
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.numberOfObjects == 4)
        try store.execute("UPDATE Post SET title = 'u' WHERE rank = 9")
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: .invalidUTF8([0x61, 0xFF]), from: IndexPath(item: 3, section: 0), to: IndexPath(item: 3, section: 0)),
        ])])
        #expect(controller.numberOfObjects == 4)
    }

    @Test func aFileWithoutTheLogsRemovalGuardGetsItWhenAStoreOpensIt() throws {
        try withPostStoreFile { path in
            let guardCount = "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = '_roster_changes_removed'"
            #expect(try ExternalConnection(path: path).run(guardCount) == [["1"]])
            try ExternalConnection(path: path).execute("DROP TRIGGER _roster_changes_removed")
            #expect(try ExternalConnection(path: path).run(guardCount) == [["0"]])
            let store = try Store(path: path)
            #expect(try count("sqlite_schema WHERE type = 'trigger' AND name = '_roster_changes_removed'", in: store) == 1)
            // Another program empties the log: the next entry is numbered after the last one,
            // and the removed entries count as pruned.
            try store.insert("Post", ["id": "a", "rank": 1, "title": "a"])
            try store.insert("Post", ["id": "b", "rank": 2, "title": "b"])
            let newest = try #require(try ExternalConnection(path: path).run("SELECT max(seq) FROM _roster_changes").first?.first ?? nil)
            try ExternalConnection(path: path).execute("DELETE FROM _roster_changes; INSERT INTO Post(id, rank, title) VALUES ('n', 1, 'n')")
            let after = try ExternalConnection(path: path).run("""
                SELECT (SELECT max(seq) FROM _roster_changes WHERE entity IS NULL), min(seq) - 1, (SELECT value FROM _roster_meta WHERE name = 'pruned_through')
                FROM _roster_changes WHERE entity IS NOT NULL
                """)
            #expect(after == [[newest, newest, newest]])
        }
    }

    @Test(arguments: ["9", "99", "0", "'3'", "3.0", "x'03'"])
    func aFileWithAnUnknownLogFormatIsRefusedAndLeftAsItWas(format: String) throws {
        try withPostStoreFile { path in
            // A newer Roster, or someone else, wrote another format and its own trigger.
            let connection = try Connection(path: path)
            try connection.execute("""
                UPDATE _roster_meta SET value = \(format) WHERE name = 'log_format';
                DROP TRIGGER _roster_Post_upsert;
                CREATE TRIGGER "_roster_Post_upsert" BEFORE INSERT ON Post BEGIN SELECT 3; END;
                """)
            func fileState() throws -> [Value] {
                let statement = try connection.prepare(
                    "SELECT (SELECT value FROM _roster_meta WHERE name = 'log_format'), (SELECT group_concat(sql, ';') FROM sqlite_master WHERE type = 'trigger')")
                _ = try statement.step()
                return [statement.column(0), statement.column(1)]
            }
            let before = try fileState()
            let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("log_format") || message.contains("newer Roster"), "\(message)")
            #expect(try fileState() == before)
            connection.close()
        }
    }

    /// Format 4's update trigger compared values by the column's collation; opening the
    /// file writes the current one, which compares by bytes, and keeps the log.
    @Test func aFileWithLogFormat4GetsTriggersThatCompareByBytes() throws {
        try withPostStoreFile { path in
            let connection = try Connection(path: path)
            defer { connection.close() }
            func updateTrigger() throws -> String {
                let statement = try connection.prepare("SELECT sql FROM sqlite_master WHERE name = '_roster_Post_update'")
                guard try statement.step(), case let .string(sql) = statement.column(0) else { return "" }
                return sql
            }
            func format() throws -> Value {
                let statement = try connection.prepare("SELECT value FROM _roster_meta WHERE name = 'log_format'")
                return try statement.step() ? statement.column(0) : .null
            }
            let current = try updateTrigger()
            try LegacyChangeLog.makeFormat6(at: path)
            let format6 = try updateTrigger()
            #expect(format6.contains("COLLATE BINARY"))
            // As format 4 wrote it.
            let old = format6.replacingOccurrences(of: " COLLATE BINARY", with: "")
            try connection.execute("DROP TRIGGER _roster_Post_update; \(old); UPDATE _roster_meta SET value = 4 WHERE name = 'log_format'")
            #expect(try !updateTrigger().contains("COLLATE BINARY"))
            _ = try Store(path: path)
            #expect(try format() == .integer(Int64(SchemaCatalog.logFormat)))
            #expect(try updateTrigger() == current)
        }
    }

    /// An older Roster still open on the file when it was upgraded misses its table of
    /// before-images and puts its own triggers back, which log no image in the log's rows:
    /// this store takes them for a missing change log, writes the current one again, and
    /// its live queries re-fetch, so a delete logged in between is not lost.
    @Test func triggersAnOlderRosterPutBackAreReplacedAndTheQueriesResync() throws {
        let watched = try Watched()
        let store = watched.store
        let post = try store.entity(named: "Post")
        let other = try Connection(path: store.path)
        defer { other.close() }
        // What a format 6 Roster's schema check does when it finds no table of before-images.
        try other.execute("""
            BEGIN IMMEDIATE;
            CREATE TABLE "_roster_before_Post"(_roster_seq INTEGER PRIMARY KEY, "id", "title", "day", "rank", "score", "pinned");
            DROP TRIGGER "_roster_Post_upsert"; DROP TRIGGER "_roster_Post_update"; DROP TRIGGER "_roster_Post_delete";
            \(LegacyChangeLog.format6Triggers(for: post))
            COMMIT;
            """)
        #expect(try !SchemaCatalog.hasChangeLog(of: post, on: store.writer))
        try other.execute("UPDATE Post SET title = 'changed' WHERE id = 'p1'; DELETE FROM Post WHERE id = 'p3'")
        #expect(try store.pollExternalChanges())
        #expect(watched.controller.snapshot == sections([(nil, ["p1", "p2"])]))
        #expect(watched.controller.object(at: IndexPath(item: 0, section: 0))?["title"] == "changed")
        #expect(try SchemaCatalog.hasChangeLog(of: post, on: store.writer))
        // Logged as this Roster reads it again: a value written back is no change (which
        // entries without images cannot tell), a delete a delete.
        _ = watched.recorder.takeGroups()
        #expect(try watched.heard(after: "BEGIN; UPDATE Post SET title = 'x' WHERE id = 'p2'; UPDATE Post SET title = 't' WHERE id = 'p2'; COMMIT", on: other).isEmpty)
        #expect(try watched.heard(after: "DELETE FROM Post WHERE id = 'p2'", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: "p2", from: IndexPath(item: 1, section: 0), to: nil),
        ])])
    }

    /// Entities of different widths share the log's image columns, and an attribute added
    /// after an entity's change log exists gets one: writes through another connection to
    /// either are read exactly.
    @Test func entitiesOfDifferentWidthsAndAnAddedAttributeAreLoggedThroughTriggers() throws {
        let watched = try Watched()
        let store = watched.store
        try store.define(Entity("Tag", key: "n", attributes: [Attribute("n", .integer), Attribute("label", .string)]))
        try store.insert("Tag", ["n": 1, "label": "a"])
        try store.insert("Tag", ["n": 2, "label": "b"])
        let tags = try ResultsController(store: store, request: FetchRequest(entity: "Tag", sortKeys: [SortKey("label")]))
        let tagRecorder = GroupRecorder()
        tags.delegate = tagRecorder
        try tags.performFetch()
        var attributes = try postEntity().attributes
        attributes.append(Attribute("likes", .integer))
        try store.define(Entity("Post", key: "id", attributes: attributes))
        try watched.controller.performFetch()
        _ = watched.recorder.takeGroups()
        let other = try Connection(path: store.path)
        defer { other.close() }
        // Written and written back, then only the new attribute: nothing, then an update.
        #expect(try watched.heard(after: "BEGIN; UPDATE Post SET likes = 3 WHERE id = 'p2'; UPDATE Post SET likes = NULL WHERE id = 'p2'; COMMIT", on: other).isEmpty)
        #expect(try watched.heard(after: "UPDATE Post SET likes = 4 WHERE id = 'p2'", on: other) == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 1, section: 0)),
        ])])
        #expect(watched.controller.object(at: IndexPath(item: 1, section: 0))?["likes"] == 4)
        // The narrower entity: a rename that moves it, and a delete.
        try other.execute("UPDATE Tag SET label = 'c' WHERE n = 1; DELETE FROM Tag WHERE n = 2")
        #expect(try store.pollExternalChanges())
        #expect(tags.snapshot == sections([(nil, [.integer(1)])]))
        #expect(tags.object(at: IndexPath(item: 0, section: 0))?["label"] == "c")
        let tagChanges = tagRecorder.takeGroups().flatMap(\.objectChanges)
        #expect(tagChanges.count == 2)
        #expect(tagChanges.contains { $0.type == .delete && $0.item == .integer(2) })
        #expect(tagChanges.contains { $0.type == .update && $0.item == .integer(1) })
        #expect(try watched.isExact())
    }

    /// A store file as ``withPostStoreFile(_:)`` makes it, written to by another connection
    /// with `sql` (so that its log holds trigger entries), then rewritten as format 6 had
    /// it; `body` gets its path and a connection of its own to it.
    func withFormat6File(afterWriting sql: String, _ body: (String, Connection) throws -> Void) throws {
        try withPostStoreFile { path in
            let connection = try Connection(path: path)
            defer { connection.close() }
            try connection.execute(sql)
            try LegacyChangeLog.makeFormat6(at: path)
            try body(path, connection)
        }
    }

    /// Format 6 numbered entries with `AUTOINCREMENT`, which never gives a number out
    /// twice even once pruning emptied the log; format 7 numbers them by row id, so the
    /// upgrade keeps the newest number in the log.
    @Test func upgradingAPrunedFormat6LogNeverNumbersAnEntryAgain() throws {
        try withFormat6File(afterWriting: "INSERT INTO Post(id, rank) VALUES ('a', 1), ('b', 2); UPDATE Post SET rank = 3") { path, connection in
            func integer(_ sql: String) throws -> Int64 {
                let statement = try connection.prepare(sql)
                guard try statement.step(), case let .integer(value) = statement.column(0) else { return -1 }
                return value
            }
            let newest = try integer("SELECT max(seq) FROM _roster_changes")
            #expect(newest == 4)
            // Every entry and image gone, only `AUTOINCREMENT`'s counter remembers the number
            // (the pruning mark is older).
            try connection.execute("DELETE FROM _roster_changes; DELETE FROM _roster_before_Post")
            #expect(try integer("SELECT value FROM _roster_meta WHERE name = 'pruned_through'") < newest)
            // A live query opened on the upgraded file reads from the newest number on.
            let watched = try Watched(store: Store(path: path))
            _ = watched.recorder.takeGroups()
            try watched.store.insert("Post", ["id": "c", "rank": 5])
            try connection.execute("INSERT INTO Post(id, rank) VALUES ('d', 6)")
            #expect(try integer("SELECT min(seq) FROM _roster_changes WHERE entity IS NOT NULL") > newest)
            #expect(try watched.store.pollExternalChanges())
            #expect(watched.recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["c", "d"])
            #expect(try watched.isExact())
        }
    }

    /// A format 6 file whose table of before-images lost a column its entity names cannot
    /// have its images moved: it is refused, saying which entity, and left as it was.
    @Test func aFormat6LogWhoseImagesCannotMoveIsRefusedAndLeftAsItWas() throws {
        try withFormat6File(afterWriting: "INSERT INTO Post(id, rank) VALUES ('a', 1); UPDATE Post SET rank = 2") { path, connection in
            try connection.execute("DROP TRIGGER _roster_Post_update; DROP TRIGGER _roster_Post_delete; DROP TRIGGER _roster_Post_replace; ALTER TABLE _roster_before_Post DROP COLUMN title")
            func fileState() throws -> [[Value]] {
                var rows: [[Value]] = []
                for sql in ["SELECT type, name, sql FROM sqlite_master ORDER BY name", "SELECT name, value, NULL FROM _roster_meta ORDER BY name",
                            "SELECT seq, entity, key FROM _roster_changes ORDER BY seq", "SELECT _roster_seq, id, rank FROM _roster_before_Post ORDER BY 1"] {
                    let statement = try connection.prepare(sql)
                    while try statement.step() { rows.append((0..<3).map { statement.column($0) }) }
                }
                return rows
            }
            let before = try fileState()
            #expect {
                _ = try Store(path: path)
            } throws: { error in
                "\(error)".contains("cannot upgrade the change log of entity Post") && "\(error)".contains("title")
                    && "\(error)".contains("nothing was changed")
            }
            #expect(try fileState() == before)
        }
    }

    @Test func aFileWithTheFirstLogFormatIsUpgradedWhenOpened() throws {
        // As the first format made it: every entity had its triggers.
        try withPostStoreFile { path in
            // Put back the log of the first format: keys only, no before-images, no batches.
            try LegacyChangeLog.makeFormat6(at: path)
            let connection = try Connection(path: path)
            try connection.execute("""
                DROP TRIGGER _roster_Post_insert; DROP TRIGGER _roster_Post_replace;
                DROP TRIGGER _roster_Post_update; DROP TRIGGER _roster_Post_delete;
                DROP TABLE _roster_before_Post; DELETE FROM _roster_meta WHERE name = 'log_format';
                DROP INDEX _roster_changes_batches; ALTER TABLE _roster_changes DROP COLUMN batch;
                CREATE TRIGGER "_roster_Post_insert" AFTER INSERT ON Post BEGIN INSERT INTO _roster_changes(entity, key) VALUES ('Post', NEW.id); END;
                CREATE TRIGGER "_roster_Post_delete" AFTER DELETE ON Post BEGIN INSERT INTO _roster_changes(entity, key) VALUES ('Post', OLD.id); END;
                CREATE TRIGGER "_roster_Post_update" AFTER UPDATE ON Post WHEN OLD.title IS NOT NEW.title BEGIN
                    INSERT INTO _roster_changes(entity, key) VALUES ('Post', OLD.id);
                END;
                """)
            connection.close()

            let watched = try Watched(store: Store(path: path))
            // The current log: images in the log's rows, no table of them, no AUTOINCREMENT.
            #expect(try count("sqlite_schema WHERE name LIKE '\\_roster\\_before%' ESCAPE '\\' OR sql LIKE '%AUTOINCREMENT%'", in: watched.store) == 0)
            #expect(try SchemaCatalog.hasChangeLog(of: postEntity(), on: watched.store.writer))
            try watched.store.write {
                try watched.store.update("Post", key: "p1", ["title": "x"])
                try watched.store.update("Post", key: "p1", ["title": "t"])
            }
            #expect(watched.recorder.takeGroups().isEmpty)
            try watched.store.update("Post", key: "p1", ["rank": 5])
            #expect(watched.recorder.takeGroups().count == 1)
            #expect(watched.controller.snapshot == sections([(nil, ["p2", "p3", "p1"])]))
        }
    }

    /// The log's images follow the attributes' order, so a store whose definition another
    /// process changed since it read it may not add attributes of its own: it is told what
    /// the file records, and nothing changes.
    @Test func addingAttributesToADefinitionAnotherStoreChangedIsRefused() throws {
        try withPostStoreFile { path in
            let first = try Store(path: path), second = try Store(path: path)
            var likes = try postEntity().attributes
            likes.append(Attribute("likes", .integer))
            try first.define(Entity("Post", key: "id", attributes: likes))
            var views = try postEntity().attributes
            views.append(Attribute("views", .integer))
            #expect {
                try second.define(Entity("Post", key: "id", attributes: views))
            } throws: { error in
                "\(error)".contains("another process changed its definition") && "\(error)".contains("likes")
                    && "\(error)".contains("Nothing was changed")
            }
            let reopened = try Store(path: path)
            #expect(try reopened.entity(named: "Post").attributes.map(\.name) == likes.map(\.name))
            // Opened again, it migrates from what the file records.
            likes.append(Attribute("views", .integer))
            try reopened.define(Entity("Post", key: "id", attributes: likes))
            #expect(try reopened.entity(named: "Post").attributes.map(\.name) == likes.map(\.name))
        }
    }

    @Test func anAddedAttributeIsLoggedToo() throws {
        let watched = try Watched()
        let store = watched.store, controller = watched.controller, recorder = watched.recorder
        var attributes = try postEntity().attributes
        attributes.append(Attribute("likes", .integer))
        try store.define(Entity("Post", key: "id", attributes: attributes))
        // Bound before the new attribute: the controller does not see it, and goes on.
        try store.update("Post", key: "p3", ["likes": 4])
        #expect(recorder.takeGroups().isEmpty)
        try store.update("Post", key: "p3", ["title": "seen"])
        #expect(recorder.takeGroups().count == 1)
        #expect(controller.object(at: IndexPath(item: 2, section: 0))?.values.count == attributes.count - 1)
        // Fetched again: it does.
        try controller.performFetch()
        #expect(controller.object(at: IndexPath(item: 2, section: 0))?["likes"] == 4)
        try store.write {
            try store.update("Post", key: "p3", ["likes": 1])
            try store.update("Post", key: "p3", ["likes": 4])
        }
        #expect(recorder.takeGroups().isEmpty)
        try store.update("Post", key: "p3", ["likes": nil])
        #expect(recorder.takeGroups().count == 1)
        // The batch was read with the entity as the store knows it now: likes is its last value.
        let batch = try newestBatch(in: store, entity: "Post")
        guard case let .changed(key, values)? = batch.first else {
            Issue.record("expected an update, got \(batch)")
            return
        }
        #expect(key == "p3")
        #expect(values.map(\.index) == [attributes.count - 1])
        #expect(values.map(\.value) == [.integer(4)])
    }

    @Test func pruningDropsBeforeImagesWithTheirLogEntries() throws {
        let images = "_roster_changes WHERE \(SchemaCatalog.imageColumn(0)) IS NOT NULL"
        let watched = try Watched()
        let store = watched.store
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: Self.retained)
        let total = Self.retained * 2 + 2_000
        // Through another connection, so that the triggers log row by row.
        let other = try Connection(path: store.path)
        defer { other.close() }
        try other.execute("""
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(total - 1))
            INSERT INTO Post(id, rank) SELECT 'n' || i, 10 + i FROM n
            """)
        _ = try store.pollExternalChanges()
        try other.execute("UPDATE Post SET title = 'all' WHERE id LIKE 'n%'")
        _ = try store.pollExternalChanges()
        #expect(try count("_roster_changes", in: store) <= Int64(Self.retained))
        #expect(try count(images, in: store) > 0)
        // Still tracking: the next write is reported.
        _ = watched.recorder.takeGroups()
        try store.update("Post", key: "p1", ["title": "after pruning"])
        #expect(watched.recorder.takeGroups().count == 1)
    }

    @Test func pruningCountsTheRowsOfBatchesNotTheirEntries() throws {
        let watched = try Watched()
        let store = watched.store
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: Self.retained)
        let total = Self.retained * 2 + 2_000
        try store.write {
            for index in 0..<total { try store.insert("Post", ["id": .string("n\(index)"), "rank": .integer(Int64(10 + index))]) }
        }
        try store.execute("UPDATE Post SET title = 'all' WHERE id LIKE 'n%'")
        // Two entries hold 44,000 rows: the first is pruned, the newest kept for other readers.
        let statement = try store.writer.prepare("SELECT value FROM _roster_meta WHERE name = 'pruned_through'")
        _ = try statement.step()
        guard case let .integer(prunedThrough) = statement.column(0) else {
            Issue.record("pruned_through is not an integer")
            return
        }
        #expect(prunedThrough > 0)
        let kept = try store.writer.prepare("SELECT count(*), min(seq) FROM _roster_changes")
        _ = try kept.step()
        #expect(kept.column(0) == .integer(1))
        #expect(kept.column(1) == .integer(prunedThrough + 1))
        _ = watched.recorder.takeGroups()
        try store.update("Post", key: "p1", ["title": "after pruning"])
        #expect(watched.recorder.takeGroups().count == 1)
    }
}
