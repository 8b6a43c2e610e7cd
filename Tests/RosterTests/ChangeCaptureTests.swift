import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The store's own writes, logged per transaction by the preupdate hook (``ChangeCapture``),
/// and how readers combine them with the entries that other connections' triggers write.
@Suite("Change capture: the store's writes logged per transaction")
struct ChangeCaptureTests {
    /// Log entries written by triggers (a key) and as batches (none), in the file now.
    func entries(in store: Store) throws -> (triggered: Int64, batches: Int64) {
        let statement = try store.writer.prepare("SELECT count(key), count(batch) FROM _roster_changes")
        _ = try statement.step()
        guard case let .integer(triggered) = statement.column(0), case let .integer(batches) = statement.column(1) else { return (-1, -1) }
        return (triggered, batches)
    }

    @Test func theStoresWritesAreOneBatchATransactionAndAnotherConnectionsGoThroughTheTriggers() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        let start = try entries(in: store)
        try store.write {
            for index in 0..<50 { try store.insert("Post", ["id": .string("n\(index)"), "rank": .integer(Int64(10 + index))]) }
        }
        #expect(try entries(in: store) == (start.triggered, start.batches + 1))
        #expect(watched.recorder.takeGroups().first?.objectChanges.count == 50)
        let other = try ExternalConnection(path: store.path)
        try other.execute("UPDATE Post SET title = 'x' WHERE id IN ('n1', 'n2')")
        _ = try store.pollExternalChanges()
        #expect(try entries(in: store) == (start.triggered + 2, start.batches + 1))
        #expect(watched.recorder.takeGroups().first?.objectChanges.count == 2)
        #expect(try watched.isExact())
    }

    @Test func aUsersOwnTriggerKeepsRunningAndTheTriggersLogWhileItIsThere() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        try store.execute("""
            CREATE TABLE audit(id TEXT);
            CREATE TRIGGER audit_post AFTER INSERT ON Post BEGIN INSERT INTO audit(id) VALUES (NEW.id); END
            """)
        _ = watched.recorder.takeGroups()
        let start = try entries(in: store)
        try store.insert("Post", ["id": "p7", "rank": 7])
        let audited = try store.writer.prepare("SELECT group_concat(id) FROM audit")
        _ = try audited.step()
        #expect(audited.column(0) == "p7", "the user's trigger ran on the store's write")
        #expect(try entries(in: store) == (start.triggered + 1, start.batches))
        #expect(watched.recorder.takeGroups().first?.objectChanges.map(\.item) == ["p7"])

        try store.execute("DROP TRIGGER audit_post")
        try store.insert("Post", ["id": "p8", "rank": 8])
        #expect(try entries(in: store) == (start.triggered + 1, start.batches + 1))
        #expect(watched.recorder.takeGroups().first?.objectChanges.map(\.item) == ["p8"])
        #expect(try watched.isExact())
    }

    /// A second store on the file reads one window of the log holding a batch and trigger
    /// entries for the same key: the earliest of them holds the row it had before.
    @Test(arguments: [
        // (first write, by whom; second write; what the reader must report for p1)
        (byStoreFirst: true, titles: ["x", "t"], reported: false),
        (byStoreFirst: false, titles: ["x", "t"], reported: false),
        (byStoreFirst: true, titles: ["x", "y"], reported: true),
        (byStoreFirst: false, titles: ["x", "y"], reported: true),
    ])
    func aKeyWrittenByTheStoreAndByAnotherConnectionReportsItsNetChange(byStoreFirst: Bool, titles: [String], reported: Bool) throws {
        let watched = try WatchedPosts()
        let store = watched.store
        let reader = try Store(path: store.path)
        let recorder = GroupRecorder()
        let controller = try ResultsController(store: reader, request: watched.controller.request)
        controller.delegate = recorder
        try controller.performFetch()
        let other = try ExternalConnection(path: store.path)
        for (index, title) in titles.enumerated() {
            if (index == 0) == byStoreFirst {
                try store.update("Post", key: "p1", ["title": .string(title)])
            } else {
                try other.execute("UPDATE Post SET title = '\(title)' WHERE id = 'p1'")
            }
        }
        _ = try reader.pollExternalChanges()
        let changes = recorder.takeGroups().flatMap(\.objectChanges)
        #expect(changes.map(\.item) == (reported ? ["p1"] : []))
        #expect(changes.allSatisfy { $0.type == .update })
        #expect(controller.object(at: IndexPath(item: 0, section: 0))?["title"] == .string(titles[1]))
    }

    @Test func aTriggerCreatedInsideATransactionRunsForTheRestOfIt() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        try store.write {
            try store.update("Post", key: "p2", ["title": "before the trigger"])
            try store.execute("CREATE TABLE audit(id TEXT); CREATE TRIGGER audit_post AFTER UPDATE ON Post BEGIN INSERT INTO audit(id) VALUES (NEW.id); END")
            try store.update("Post", key: "p1", ["title": "after the trigger"])
        }
        let audited = try store.writer.prepare("SELECT group_concat(id) FROM audit")
        _ = try audited.step()
        #expect(audited.column(0) == "p1")
        let changes = watched.recorder.takeGroups().flatMap(\.objectChanges)
        #expect(Set(changes.map(\.item)) == ["p1", "p2"])
        #expect(try watched.isExact())
    }

    @Test func aGeneratedColumnInTheTableKeepsTheHookMappingRight() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        try store.execute("ALTER TABLE Post ADD COLUMN lowered TEXT GENERATED ALWAYS AS (lower(title)) VIRTUAL")
        _ = watched.recorder.takeGroups()
        let resyncs = watched.recorder.resyncs.count
        try store.update("Post", key: "p3", ["rank": 0])
        try store.update("Post", key: "p1", ["title": "New"])
        #expect(watched.recorder.takeGroups().count == 2)
        #expect(watched.recorder.resyncs.count == resyncs, "no re-fetch: every row was logged")
        #expect(try watched.isExact())
    }

    @Test func columnsRearrangedInsideATransactionMakeTheQueriesRefetch() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        try store.execute("ALTER TABLE Post ADD COLUMN note TEXT")
        _ = watched.recorder.takeGroups()
        let resyncs = watched.recorder.resyncs.count
        // The same number of columns after, but `note2` where `note` was.
        try store.write {
            try store.execute("ALTER TABLE Post DROP COLUMN note")
            try store.execute("ALTER TABLE Post ADD COLUMN note2 TEXT")
            try store.update("Post", key: "p1", ["rank": 10])
        }
        #expect(watched.recorder.resyncs.count == resyncs + 1)
        #expect(try watched.isExact())
        #expect(watched.controller.indexPath(for: "p1") == IndexPath(item: 2, section: 0))
    }

    @Test func aTransactionLargerThanAChunkIsLoggedInSeveralEntriesAndReadWhole() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        // Twelve rows of 1 MB: their deletion logs 12 MB of rows before, past the 8 MB chunk.
        let long = Value.string(String(repeating: "x", count: 1 << 20))
        try store.write {
            for index in 0..<12 { try store.insert("Post", ["id": .string("big\(index)"), "rank": .integer(Int64(10 + index)), "title": long]) }
        }
        _ = watched.recorder.takeGroups()
        let start = try entries(in: store)
        try store.write {
            for index in 0..<12 { try store.delete("Post", key: .string("big\(index)")) }
        }
        #expect(try entries(in: store).batches == start.batches + 2)
        let changes = watched.recorder.takeGroups().flatMap(\.objectChanges)
        #expect(changes.count == 12)
        #expect(changes.allSatisfy { $0.type == .delete })
        #expect(try watched.isExact())
    }

    /// A read-only store cannot upgrade a file, and reads only the current layout of
    /// before-images: it refuses an older file, saying what to do, and once a store
    /// upgraded it, reads both kinds of entries.
    @Test func aReadOnlyStoreRefusesAFormat6FileUntilAStoreUpgradesIt() throws {
        try withPostStoreFile { path in
            try Store(path: path).insert("Post", ["id": "p1", "rank": 1])
            try LegacyChangeLog.makeFormat6(at: path)
            #expect {
                _ = try Store(path: path, readOnly: true)
            } throws: { error in
                "\(error)".contains("format 6") && "\(error)".contains("open it read-write once")
            }
            let writer = try Store(path: path)
            let reader = try Store(path: path, readOnly: true)
            let recorder = GroupRecorder()
            let controller = try ResultsController(store: reader, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
            controller.delegate = recorder
            try controller.performFetch()
            let other = try ExternalConnection(path: path)
            try other.execute("INSERT INTO Post(id, rank) VALUES ('p0', 0)")
            _ = try reader.pollExternalChanges()
            #expect(recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["p0"])
            try writer.insert("Post", ["id": "p2", "rank": 2])
            _ = try reader.pollExternalChanges()
            #expect(recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["p2"])
            #expect(controller.snapshot == sections([(nil, ["p0", "p1", "p2"])]))
        }
    }

    @Test func aSavepointRolledBackLeavesOnlyWhatStayedInTheBatch() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        struct Undo: Error {}
        try store.write {
            try store.insert("Post", ["id": "p8", "rank": 8])
            _ = try? store.savepoint {
                try store.update("Post", key: "p1", ["rank": 20])
                try store.insert("Post", ["id": "p9", "rank": 9])
                throw Undo()
            }
        }
        let groups = watched.recorder.takeGroups()
        #expect(groups.count == 1)
        #expect(groups.first?.objectChanges.map(\.item) == ["p8"])
        #expect(try watched.isExact())
    }

    @Test func aRolledBackTransactionLogsNothing() throws {
        let watched = try WatchedPosts()
        let store = watched.store
        let start = try entries(in: store)
        try store.beginTransaction()
        try store.insert("Post", ["id": "p8", "rank": 8])
        try store.rollback()
        try store.insert("Post", ["id": "p9", "rank": 9])
        #expect(try entries(in: store) == (start.triggered, start.batches + 1))
        #expect(watched.recorder.takeGroups().flatMap(\.objectChanges).map(\.item) == ["p9"])
    }

    @Test(arguments: ["x'01ff'", "x'02'", "x''", "x'0106000361'", "'text'", "x'01060503617878'"])
    func aBatchThatIsNotOneMakesTheQueriesRefetchAndTheyGoOn(batch: String) throws {
        let watched = try WatchedPosts()
        let store = watched.store
        let other = try ExternalConnection(path: store.path)
        try other.execute("""
            INSERT INTO _roster_changes(entity, batch) VALUES ('Post', \(batch));
            UPDATE Post SET rank = 0 WHERE id = 'p3'
            """)
        _ = try store.pollExternalChanges()
        #expect(watched.recorder.resyncs == [.readFailed])
        #expect(watched.recorder.errors.isEmpty)
        #expect(try watched.isExact())
        _ = watched.recorder.takeGroups()
        try store.update("Post", key: "p1", ["rank": 9])
        #expect(watched.recorder.takeGroups().count == 1)
        #expect(watched.recorder.resyncs == [.readFailed])
        #expect(try watched.isExact())
    }
}

/// Reading batches: every value kind, converted as a column of the attribute's type is read,
/// and bytes that are not a batch refused without a trap.
@Suite("Change batch format")
struct ChangeBatchTests {
    let attributes = [Attribute("id", .string), Attribute("flag", .bool), Attribute("score", .double), Attribute("count", .integer), Attribute("data", .string)]

    func entries(_ bytes: [UInt8]) throws(DatabaseError) -> [ChangeBatch.Entry] {
        var entries: [ChangeBatch.Entry] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        try ChangeBatch.forEachEntry(in: UnsafeRawBufferPointer(buffer), attributes: attributes, keyIndex: 0) { entries.append($0) }
        return entries
    }

    /// What ``ChangeBatch/entryCount(in:)`` says of `bytes`.
    func entryCount(_ bytes: [UInt8]) throws(DatabaseError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        return try ChangeBatch.entryCount(in: UnsafeRawBufferPointer(buffer))
    }

    @Test func everyValueKindIsReadAsItsAttributeReadsIt() throws {
        let double: Double = 2.5
        let bits = (0..<8).map { UInt8(truncatingIfNeeded: double.bitPattern >> (8 * UInt64($0))) }
        let bytes: [UInt8] = [1, 5,
            0, 3, 1, 0x61,  // inserted "a"
            1, 3, 1, 0x62,  // "b", before:
            3, 1, 0x62,  // id "b"
            1, 2,  // flag: integer 1 → true
            1, 6,  // score: integer 3 → 3.0
            1, 3,  // count: integer -2 (zigzag 3)
            4, 2, 0xC3, 0x28,  // data: a blob that is not UTF-8
            0, 0,  // unknown (tag 2, null key)
        ]
        let entries = try entries(Array(bytes[0..<bytes.count - 2]) + [2, 0])
        #expect(entries.count == 3)
        guard case let .inserted(key) = entries[0], case let .before(other, row) = entries[1], case .unknown = entries[2] else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(key == "a")
        #expect(other == "b")
        #expect(row == ["b", .bool(true), .double(3), .integer(-2), .invalidUTF8([0xC3, 0x28])])
        // A real number.
        let real = try self.entries([1, 5, 1, 3, 1, 0x63, 3, 1, 0x63, 0, 2] + bits + [1, 0, 0])
        guard case let .before(_, values)? = real.first else {
            Issue.record("unexpected entries \(real)")
            return
        }
        #expect(values == ["c", .null, .double(2.5), .integer(0), .null])
    }

    @Test func anUpdateHoldsTheIndexAndOldValueOfWhatItChanged() throws {
        let entries = try entries([1, 5, 3, 3, 1, 0x61, 2, 1, 1, 0, 3, 1, 7])
        guard case let .changed(key, values)? = entries.first else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(key == "a")
        #expect(values.map(\.index) == [1, 3])
        #expect(values.map(\.value) == [.bool(false), .integer(-4)])
        // An index past the row, or more values than the row has: not a batch.
        #expect(throws: DatabaseError.self) { try self.entries([1, 5, 3, 3, 1, 0x61, 1, 5, 0]) }
        #expect(throws: DatabaseError.self) { try self.entries([1, 5, 3, 3, 1, 0x61, 6]) }
    }

    @Test func hugeCountsInABatchAreRefusedNotTrapped() {
        func varint(_ value: UInt64) -> [UInt8] {
            var value = value
            var bytes: [UInt8] = []
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            return bytes + [UInt8(value)]
        }
        // Another column count, then an update of 2^63 values; the same with five columns.
        #expect(throws: DatabaseError.self) { try self.entries([1] + varint(.max) + [3, 0] + varint(1 << 63)) }
        #expect(throws: DatabaseError.self) { try self.entries([1, 5, 3, 0] + varint(1 << 63)) }
        #expect(throws: DatabaseError.self) { try self.entries([1, 5, 3, 0, 1] + varint(1 << 40) + [0]) }
        // Counting the entries skips the same way, and refuses the same.
        #expect(throws: DatabaseError.self) { try self.entryCount([1] + varint(.max) + [3, 0] + varint(1 << 63)) }
        #expect(throws: DatabaseError.self) { try self.entryCount([1] + varint(.max) + [1, 0, 0]) }
    }

    /// A definition only ever appends attributes: a batch of fewer columns was written
    /// before some were added, and reads them as null, as the table gave existing rows.
    @Test func aBatchWrittenBeforeAttributesWereAddedReadsThemAsNull() throws {
        // Two columns: a delete's row before ("a", 1), then an update of value 1 (old 0).
        let entries = try entries([1, 2, 1, 3, 1, 0x61, 3, 1, 0x61, 1, 2, 3, 3, 1, 0x62, 1, 1, 1, 0])
        guard entries.count == 2, case let .before(key, row) = entries[0], case let .changed(changedKey, values) = entries[1] else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(key == .string("a") && row.count == attributes.count)
        #expect(row[0] == .string("a") && row[2...].allSatisfy { $0 == .null }, "\(row)")
        #expect(changedKey == .string("b"))
        let changed = Array(values)
        #expect(changed.count == 1 && changed.first?.index == 1, "\(changed)")
    }

    @Test func aBatchOfMoreColumnsThanTheEntitySaysItsRowsAreUnknown() throws {
        let entries = try entries([1, 6, 1, 3, 1, 0x61, 0, 0, 0, 0, 0, 0])
        guard case .unknown? = entries.first else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        // An update's index past the batch's own columns is refused, not read.
        #expect(throws: DatabaseError.self) { try self.entries([1, 2, 3, 3, 1, 0x62, 1, 2, 1, 0]) }
    }

    @Test func randomBytesAreReadOrRefusedNeverTrapped() {
        var generator = SplitMix64(seed: 13)
        var refused = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<24, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty, Bool.random(using: &generator) { bytes[0] = 1 }
            do throws(DatabaseError) {
                let read = try entries(bytes)
                // What a reader reserves room for is what it then reads.
                #expect(try entryCount(bytes) == read.count, "\(bytes)")
            } catch {
                #expect(error.code == .corrupt)
                refused += 1
                // Counting may accept what reading refuses (it decodes nothing), never traps.
                do throws(DatabaseError) { _ = try entryCount(bytes) } catch { #expect(error.code == .corrupt) }
            }
        }
        #expect(refused > 0)
    }
}

/// The rows before that a reader rebuilds from batches (whole rows, or the values an update
/// changed) and trigger entries, checked against the rows the reader last read, over random
/// writes of the store and of another connection between two reads.
@Suite("Change capture: rows before, random")
struct ChangeCaptureRandomTests {
    /// In a file whose text is UTF-16 (another program made it), the hook reads text as
    /// SQLite converts it; in a UTF-8 one, as it is stored.
    @Test(arguments: 0..<12, ["UTF-8", "UTF-16le"])
    func everyTouchedKeyComesWithItsRowAtTheLastReadAndNoChangedKeyIsMissed(seed: UInt64, encoding: String) throws {
        var generator = SplitMix64(seed: seed)
        let writer = try itemStore(encoding: encoding)
        let pragma = try writer.writer.prepare("PRAGMA encoding")
        #expect(try pragma.step() && pragma.column(0) == .string(encoding))
        let reader = try Store(path: writer.path)
        let entity = try reader.entity(named: "Item")
        let other = try ExternalConnection(path: writer.path)
        let keys = (0..<8).map { Value.string("k\($0)") }
        func table() throws -> [Value: [Value]] { try itemRows(reader) }
        func collect() throws -> [Value: TouchedRow] {
            try reader.sqlite.beginCommittedRead()
            defer { reader.sqlite.endCommittedRead(abandon: false) }
            return try reader.sqlite.collectChanges(of: [entity])?.rows(of: entity) ?? [:]
        }
        _ = try collect()
        var seen = try table()
        func randomValues() -> [String: Value] { randomItemValues(&generator, titles: ["a", "b", "é", "ab"]) }
        for step in 0..<150 {
            let key = keys.randomElement(using: &generator) ?? keys[0]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                // The store: a transaction of one to four writes, some to the same key.
                try writer.write {
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        let key = Bool.random(using: &generator) ? key : (keys.randomElement(using: &generator) ?? key)
                        let exists = try writer.fetch("Item", key: key) != nil
                        if !exists {
                            try writer.insert("Item", randomValues().merging(["id": key]) { $1 })
                        } else if Int.random(in: 0..<4, using: &generator) == 0 {
                            try writer.delete("Item", key: key)
                        } else {
                            try writer.update("Item", key: key, randomValues())
                        }
                    }
                }
            case 5..<8:
                let quoted = "'\(key.description.filter { $0 != "'" })'"
                let sql = [
                    "INSERT OR REPLACE INTO Item(id, title, rank) VALUES (\(quoted), 'x', \(Int.random(in: 0..<3, using: &generator)))",
                    "UPDATE Item SET title = 'b', rank = rank + 1 WHERE id = \(quoted)",
                    "UPDATE Item SET score = NULL WHERE id = \(quoted)",
                    "DELETE FROM Item WHERE id = \(quoted)",
                ].randomElement(using: &generator) ?? ""
                try other.execute(sql)
            default:
                let touched = try collect()
                let now = try table()
                for (key, row) in touched {
                    #expect(row.before == seen[key], "step \(step): \(key) before")
                    #expect(row.after == now[key], "step \(step): \(key) after")
                }
                for key in Set(seen.keys).union(now.keys) where seen[key] != now[key] {
                    #expect(touched[key] != nil, "step \(step): \(key) changed but was not touched")
                }
                seen = now
            }
        }
    }
}

/// The rows now that a delivery takes from the store's own transactions (``OwnRowImages``)
/// instead of reading them back: over random transactions of the store — with savepoints
/// rolled back, writes that fail, raw SQL — and of another connection, every touched key's
/// row now is the table's, and no changed key is missing.
@Suite("Change capture: rows now from the store's own writes")
struct OwnRowImagesTests {
    /// Every delivery's touched rows, merged: each key's row at the last check and now.
    final class Touches: StoreObserver {
        let observedEntityNames = ["Item"]
        var rows: [Value: TouchedRow] = [:]
        var failures: [StoreError] = []

        func storeDidCommit(_ changes: CommittedChanges, in store: Store) {
            for (key, row) in changes.rowsByEntity["Item"] ?? [:] {
                rows[key] = TouchedRow(before: rows[key].map { $0.before } ?? row.before, after: row.after)
            }
        }

        func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool) { failures.append(error) }
    }

    static func watchedItemStore() throws -> (Store, Touches) {
        let store = try itemStore()
        let touches = Touches()
        store.addObserver(touches)
        return (store, touches)
    }

    @Test func aCommittedTransactionsRowsAreTakenAndOnlyWhenTheyAreExact() throws {
        let (store, touches) = try Self.watchedItemStore()
        let images = try #require(store.sqlite.capture?.images)
        // Adding the observer told the hook which entities are watched here; the
        // transactions after it note their rows.
        try store.insert("Item", ["id": "w", "rank": 0])
        var taken = images.rowsTaken
        try store.write {
            try store.insert("Item", ["id": "a", "rank": 1])
            try store.insert("Item", ["id": "b", "rank": 2])
            try store.update("Item", key: "a", ["rank": 3])
            try store.delete("Item", key: "b")
        }
        #expect(images.rowsTaken == taken + 2, "a and b came from the transaction's images")
        #expect(touches.rows["a"]?.after == ["a", .null, .integer(3), .null])
        #expect(touches.rows["b"].map { $0.before == nil && $0.after == nil } ?? true, "inserted and deleted in one transaction: no change")
        #expect(images.count == 0, "delivered, so dropped")
        // Raw SQL that succeeds is seen by the hook like any write.
        taken = images.rowsTaken
        try store.write { try store.execute("UPDATE Item SET rank = 4 WHERE id = 'a'") }
        #expect(images.rowsTaken == taken + 1)
        // A transaction that rolled back to a savepoint or had a write fail keeps none: its
        // delivery reads the rows.
        try store.write {
            try store.insert("Item", ["id": "x", "rank": 1])
            try store.insert("Item", ["id": "y", "rank": 2])
        }
        taken = images.rowsTaken
        try store.write {
            try store.update("Item", key: "a", ["rank": 8])
            // Renames x to z, then fails on y (z is taken): SQLite undoes the first rename
            // after the hook saw it.
            #expect(throws: StoreError.self) { try store.execute("UPDATE Item SET id = 'z' WHERE id IN ('x', 'y')") }
        }
        struct Undo: Error {}
        try store.write {
            try store.insert("Item", ["id": "c", "rank": 5])
            _ = try? store.savepoint { () throws -> Void in
                try store.update("Item", key: "c", ["rank": 6])
                throw Undo()
            }
        }
        try store.write {
            try store.update("Item", key: "c", ["rank": 7])
            _ = try? store.insert("Item", ["id": "c"])
        }
        #expect(images.rowsTaken == taken)
        #expect(touches.rows["a"]?.after == ["a", .null, .integer(8), .null])
        #expect(touches.rows["c"]?.after == ["c", .null, .integer(7), .null])
        #expect(touches.rows["x"]?.after == ["x", .null, .integer(1), .null])
        #expect(touches.rows["z"].map { $0.before == nil && $0.after == nil } ?? true, "z never was")
        #expect(touches.failures.isEmpty)
    }

    @Test func withoutALiveQueryNoRowsAreKept() throws {
        let store = try Store.temporary()
        try store.define(Entity("Item", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)]))
        let entity = try store.entity(named: "Item")
        try store.ensureTracking(of: entity)
        let images = try #require(store.sqlite.capture?.images)
        do {
            let touches = Touches()
            store.addObserver(touches)
            try withExtendedLifetime(touches) {
                try store.insert("Item", ["id": "a", "rank": 1])
                try store.insert("Item", ["id": "b", "rank": 1])
            }
            // Both: opening the observer told the hook, so the first write after it is
            // noted too (a first bulk commit after a live query opened does not read back).
            #expect(images.rowsTaken == 2)
        }
        // The observer is gone: the next delivery has no entity to read, and the hook
        // stops noting rows from the transaction after it.
        try store.insert("Item", ["id": "c", "rank": 1])
        let kept = images.imagesKept
        try store.insert("Item", ["id": "d", "rank": 1])
        try store.insert("Item", ["id": "e", "rank": 1])
        #expect(images.imagesKept == kept)
    }

    @Test(arguments: 0..<12)
    func everyTouchedKeysRowNowIsTheTables(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let (store, touches) = try Self.watchedItemStore()
        let images = try #require(store.sqlite.capture?.images)
        let other = try ExternalConnection(path: store.path)
        let keys = (0..<8).map { Value.string("k\($0)") }
        func table() throws -> [Value: [Value]] { try itemRows(store) }
        var seen = try table()
        func randomValues() -> [String: Value] { randomItemValues(&generator, titles: ["a", "b", "é"]) }
        func randomWrite(_ key: Value) throws {
            let exists = try store.fetch("Item", key: key) != nil
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                // A write that fails: the key is taken.
                if !exists { try store.insert("Item", randomValues().merging(["id": key]) { $1 }) }
                _ = try? store.insert("Item", ["id": key])
            case 1:
                let quoted = "'\(key.description.filter { $0 != "'" })'"
                try store.execute("UPDATE Item SET rank = coalesce(rank, 0) + 1 WHERE id = \(quoted)")
            case 2:
                struct Undo: Error {}
                _ = try? store.savepoint { () throws -> Void in
                    if exists { try store.update("Item", key: key, randomValues()) } else { try store.insert("Item", ["id": key]) }
                    throw Undo()
                }
            default:
                if !exists {
                    try store.insert("Item", randomValues().merging(["id": key]) { $1 })
                } else if Int.random(in: 0..<4, using: &generator) == 0 {
                    try store.delete("Item", key: key)
                } else {
                    try store.update("Item", key: key, randomValues())
                }
            }
        }
        for step in 0..<200 {
            let key = keys.randomElement(using: &generator) ?? keys[0]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                try store.write {
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        try randomWrite(Bool.random(using: &generator) ? key : (keys.randomElement(using: &generator) ?? key))
                    }
                }
            case 6:
                let quoted = "'\(key.description.filter { $0 != "'" })'"
                try other.execute("UPDATE Item SET title = 'other' WHERE id = \(quoted)")
            default:
                _ = try store.pollExternalChanges()
                let now = try table()
                // Every touched key's row now, whether or not it changed: a wrong row now
                // that equals the row before would otherwise pass as "no change".
                for (key, row) in touches.rows {
                    #expect(row.after == now[key], "step \(step): \(key) after")
                    if row.before != row.after { #expect(row.before == seen[key], "step \(step): \(key) before") }
                }
                for key in Set(seen.keys).union(now.keys) where seen[key] != now[key] {
                    let row = touches.rows[key]
                    #expect(row != nil && row?.before != row?.after, "step \(step): \(key) changed but was not reported changed")
                }
                touches.rows = [:]
                seen = now
            }
        }
        #expect(images.rowsTaken > 0, "some deliveries took the store's own rows")
        #expect(touches.failures.isEmpty)
    }
}

/// A temporary store with the `Item` entity both random suites write, its change log made;
/// in a file whose text is in `encoding`, as a program that made the file chose.
private func itemStore(encoding: String = "UTF-8") throws -> Store {
    let store: Store
    if encoding == "UTF-8" {
        store = try Store.temporary()
    } else {
        // The encoding is chosen before the file's first table; the store opens it after.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store.sqlite").path
        let maker = try ExternalConnection(path: path)
        try maker.execute("PRAGMA encoding = '\(encoding)'; CREATE TABLE made_elsewhere(a)")
        store = try Store(path: path)
    }
    try store.define(Entity("Item", key: "id", attributes: [
        Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer), Attribute("score", .double),
    ]))
    try store.ensureTracking(of: store.entity(named: "Item"))
    return store
}

/// Every `Item` row by key, as `store`'s reading connection sees the file now.
private func itemRows(_ store: Store) throws -> [Value: [Value]] {
    let entity = try store.entity(named: "Item")
    let statement = try store.reader.prepare("SELECT id, title, rank, score FROM Item")
    var rows: [Value: [Value]] = [:]
    while try statement.step() {
        let row = entity.attributes.indices.map { statement.column($0, as: entity.attributes[$0].type) }
        rows[row[0]] = row
    }
    return rows
}

/// Random values for some of an `Item`'s attributes, the title one of `titles`.
private func randomItemValues(_ generator: inout SplitMix64, titles: [String]) -> [String: Value] {
    var values: [String: Value] = [:]
    if Bool.random(using: &generator) { values["title"] = .string(titles.randomElement(using: &generator) ?? "a") }
    if Bool.random(using: &generator) { values["rank"] = .integer(Int64.random(in: 0..<3, using: &generator)) }
    if Bool.random(using: &generator) { values["score"] = Bool.random(using: &generator) ? .null : .double(Double(Int.random(in: 0..<2, using: &generator))) }
    return values
}
