import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// A resume reads the rows that can enter, leave or move in its window, and the rows it
/// showed — not every row the log names: the update trigger notes which attributes each
/// update changed (`_roster_changes.changed`), and a row whose updates changed nothing
/// that places it stays where it was (issue 37).
@Suite("Resumes read what can move")
struct ResumeReadScopeTests {
    typealias File = ResumeTokenTests.File

    /// The mask of the newest log entry for `key`, read on a connection of its own.
    func newestMask(of key: String, in path: String) throws -> Value {
        let connection = try Connection(path: path)
        defer { connection.close() }
        let statement = try connection.prepare("SELECT changed FROM _roster_changes WHERE key = ? ORDER BY seq DESC LIMIT 1")
        try statement.bind([.string(key)])
        defer { statement.reset() }
        #expect(try statement.step())
        return statement.column(0)
    }

    /// Watches Msg once in a store of its own, so that its change log exists.
    func watch(_ path: String) throws {
        let store = try Store(path: path)
        let controller = try ResultsController(store: store, request: ResumeTokenTests.request)
        try controller.performFetch()
    }

    /// Rows 10 to 14 of Msg opened in a store of its own: what the window showed, and its token.
    func savedWindow(_ file: File) throws -> (saved: [ListSection<Value, Value>], token: ResumeToken) {
        let store = try Store(path: file.path)
        let (controller, _) = try ResumeTokenTests().openController(store, window: .offset(10, length: 5))
        return (controller.snapshot, try controller.resumeToken())
    }

    /// Resumes the window from `token` in `store`: it must equal a window opened fresh,
    /// values too, and its one group must turn `saved` into it; a resync it announces must
    /// be `resync`. Returns the controller and the group.
    @discardableResult
    func resume(_ store: Store, from token: ResumeToken, saved: [ListSection<Value, Value>],
                resync: ResyncReason? = nil) throws -> (ResultsController, ChangeGroup<Value, Value>) {
        let resumed = try ResultsController(store: store, request: ResumeTokenTests.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        let (fresh, _) = try ResumeTokenTests().openController(store, window: .offset(10, length: 5))
        #expect(resumed.snapshot == fresh.snapshot)
        #expect(try shownValues(resumed) == shownValues(fresh))
        #expect(recorder.resyncs == (resync.map { [$0] } ?? []))
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: saved) == resumed.snapshot)
        return (resumed, group)
    }

    @Test func theUpdateTriggerNotesWhichAttributesChanged() throws {
        let file = try File()
        try watch(file.path)
        let other = try ExternalConnection(path: file.path)
        // Msg's attributes: id (0), n (1), text (2).
        try other.execute("UPDATE Msg SET text = 'x' WHERE id = 'm01'")
        #expect(try newestMask(of: "m01", in: file.path) == .integer(0b100))
        try other.execute("UPDATE Msg SET n = n + 1, text = 'y' WHERE id = 'm02'")
        #expect(try newestMask(of: "m02", in: file.path) == .integer(0b110))
        // 'x' to 'X' is a change by bytes, whatever the column's collation.
        try other.execute("UPDATE Msg SET text = 'X' WHERE id = 'm01'")
        #expect(try newestMask(of: "m01", in: file.path) == .integer(0b100))
        // A new key: the old key's entry names the key; the new one has no mask.
        try other.execute("UPDATE Msg SET id = 'm03b' WHERE id = 'm03'")
        #expect(try newestMask(of: "m03", in: file.path) == .integer(0b001))
        #expect(try newestMask(of: "m03b", in: file.path) == .null)
        try other.execute("INSERT INTO Msg VALUES ('new', 1, 't')")
        #expect(try newestMask(of: "new", in: file.path) == .null)
        try other.execute("DELETE FROM Msg WHERE id = 'm04'")
        #expect(try newestMask(of: "m04", in: file.path) == .null)
        try other.execute("INSERT OR REPLACE INTO Msg VALUES ('m05', 50, 'replaced')")
        #expect(try newestMask(of: "m05", in: file.path) == .null)
    }

    @Test func attributesFromTheSixtyThirdOnShareTheLastBit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-mask-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        do {
            let store = try Store(path: path)
            try store.define(Entity("Wide", key: "id", attributes: [Attribute("id", .string)] + (1..<70).map { Attribute("a\($0)", .integer) }))
            try store.insert("Wide", ["id": "w"])
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "Wide", sortKeys: [SortKey("a1")]))
            try controller.performFetch()
        }
        let other = try ExternalConnection(path: path)
        try other.execute("UPDATE Wide SET a65 = 1 WHERE id = 'w'")
        #expect(try newestMask(of: "w", in: path) == .integer(1 << 62))
        try other.execute("UPDATE Wide SET a61 = 1, a62 = 1 WHERE id = 'w'")
        #expect(try newestMask(of: "w", in: path) == .integer(1 << 61 | 1 << 62))
    }

    @Test func aResumedWindowLeavesUnreadTheRowsWhoseUpdatesPlaceNothing() throws {
        let file = try File()
        let (saved, token) = try savedWindow(file)
        #expect(saved == sections([(.null, ["m11", "m12", "m13", "m14", "m15"])]))
        let other = try ExternalConnection(path: file.path)
        try other.execute("""
            UPDATE Msg SET text = 'far below' WHERE id >= 'm30';
            UPDATE Msg SET text = 'above, twice' WHERE id = 'm05';
            UPDATE Msg SET text = 'above, again' WHERE id = 'm05';
            UPDATE Msg SET text = 'shown' WHERE id = 'm12';
            UPDATE Msg SET n = 125, text = 'moved in' WHERE id = 'm35';
            UPDATE Msg SET n = 5 WHERE id = 'm20';
            """)
        // m30…m40 but m35 (10) and m05: updates of `text` alone, which places nothing.
        let store = try Store(path: file.path)
        let entity = try store.definedEntity(named: "Msg")
        let query = try store.bind(ResumeTokenTests.request)
        let scope = RowReadScope(placingAttributes: query.placingAttributes, keys: Set(saved.flatMap(\.items)))
        let changes = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try store.changes(observedBy: entity, since: token.position, readingRows: scope)
        }
        #expect(Set(changes.rowsByEntity["Msg"]?.keys ?? [:].keys) == ["m12", "m35", "m20"])
        // Read without a scope, every key is there.
        let all = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try store.changes(observedBy: entity, since: token.position)
        }
        #expect(all.rowsByEntity["Msg"]?.count == 14)
        // A request whose predicate reads `text` is placed by it: every key is read.
        let filtered = try store.bind(FetchRequest(entity: "Msg", predicate: try QueryPredicate("text != 'hidden'"), sortKeys: [SortKey("n")]))
        let filteredChanges = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try store.changes(observedBy: entity, since: token.position,
                              readingRows: RowReadScope(placingAttributes: filtered.placingAttributes, keys: []))
        }
        #expect(filtered.placingAttributes == [0, 1, 2])
        #expect(filteredChanges.rowsByEntity["Msg"]?.count == 14)

        // The resume is as exact as a fresh window: m20 went to the top, which slid the
        // window one row down; m35 moved into it; m12 changed where it is shown.
        let (resumed, group) = try resume(store, from: token, saved: saved)
        #expect(resumed.snapshot == sections([(.null, ["m10", "m11", "m12", "m35", "m13"])]))
        #expect(group.objectChanges.filter { $0.type == .update }.map(\.item) == ["m12"])
        #expect(resumed.object(at: IndexPath(item: 2, section: 0))?["text"] == "shown")
    }

    /// The objects a window shows, with their values, in order.
    func shownValues(_ controller: ResultsController) throws -> [[Value?]] {
        try controller.fetchedObjects.map { object in ["id", "n", "text"].map { object[$0] } }
    }

    /// A file put back from an older copy (the same store identifier) whose log then grew
    /// past the token's position holds other entries under the same numbers: the token's
    /// log entry's digest differs, so the resume is a resync (`logPruned`) and the window
    /// shows the file's rows, not the token's.
    @Test func aFilePutBackFromAnOlderCopyIsNotReadThroughTheTokensRows() throws {
        let file = try File()
        try watch(file.path)
        let backup = file.directory.appendingPathComponent("backup.sqlite").path
        do {
            let copier = try Connection(path: file.path)
            defer { copier.close() }
            try copier.execute("VACUUM INTO '\(backup)'")
            try ExternalConnection(path: file.path).execute("UPDATE Msg SET text = 'edited after the copy' WHERE id = 'm12'")
        }
        let (saved, token) = try savedWindow(file)
        #expect(token.shownRows?.rows[1][2] == "edited after the copy")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: file.path)
        let restored = try ExternalConnection(path: file.path)
        for n in 35...39 { try restored.execute("UPDATE Msg SET text = 'new history' WHERE id = 'm\(n)'") }
        try restored.execute("DELETE FROM Msg WHERE id = 'm13'")
        let store = try Store(path: file.path)
        let (resumed, group) = try resume(store, from: token, saved: saved, resync: .logPruned)
        #expect(resumed.snapshot == sections([(.null, ["m11", "m12", "m14", "m15", "m16"])]))
        #expect(group.objectChanges.filter { $0.type == .delete }.map(\.item) == ["m13"])
        #expect(group.objectChanges.filter { $0.type == .update }.count == 4)
        #expect(try resumed.fetchedObjects[1]["text"] == "t")
    }

    /// A store that tracked the entity before the token's resume checks its triggers again:
    /// another program dropped one and wrote unlogged, so the window reads the rows, not
    /// the token's.
    @Test func aStoreThatTrackedBeforeChecksTheTriggersBeforeTakingTheTokensRows() throws {
        let file = try File()
        let (saved, token) = try savedWindow(file)
        #expect(token.shownRows != nil)
        let store = try Store(path: file.path)
        let watcher = try ResultsController(store: store, request: ResumeTokenTests.request)
        try watcher.performFetch()
        let other = try ExternalConnection(path: file.path)
        try other.execute("DROP TRIGGER _roster_msg_update; UPDATE Msg SET text = 'unlogged' WHERE id = 'm12'")
        // (No group: the write went unlogged, so nothing says it changed; the rows shown
        // are the file's.)
        let resumed = try ResultsController(store: store, request: ResumeTokenTests.request)
        try resumed.performFetch(resumingFrom: token)
        let (fresh, _) = try ResumeTokenTests().openController(store, window: .offset(10, length: 5))
        #expect(resumed.snapshot == saved)
        #expect(try shownValues(resumed) == shownValues(fresh))
        #expect(try resumed.fetchedObjects[1]["text"] == "unlogged")
    }

    @Test func aKeyWhoseFirstEditsPlacedNothingIsReadFromTheEditThatMovedIt() throws {
        let file = try File()
        let (saved, token) = try savedWindow(file)
        let other = try ExternalConnection(path: file.path)
        // m05 is edited where it places nothing, then moved below the window: the read
        // hands back its second entry alone. Nine rows move in between m11 (110) and m12 (120).
        try other.execute("""
            UPDATE Msg SET n = 111 + CAST(substr(id, 2) AS INTEGER) - 30 WHERE id BETWEEN 'm30' AND 'm38';
            UPDATE Msg SET text = 'edited first' WHERE id = 'm05';
            UPDATE Msg SET n = 1000, text = 'then moved' WHERE id = 'm05';
            UPDATE Msg SET text = 'shown, untouched in place' WHERE id = 'm15';
            """)
        let store = try Store(path: file.path)
        let (resumed, group) = try resume(store, from: token, saved: saved)
        // m05 left the rows above, so m11 is the tenth row now, and the rows that moved in follow it.
        #expect(resumed.snapshot == sections([(.null, ["m30", "m31", "m32", "m33", "m34"])]))
        #expect(group.objectChanges.filter { $0.type == .update }.isEmpty)

        // Five of them move on, below: m12, untouched, comes back into the window.
        try other.execute("UPDATE Msg SET n = 500 WHERE id BETWEEN 'm34' AND 'm38'")
        let (again, _) = try resume(try Store(path: file.path), from: token, saved: saved)
        #expect(again.snapshot == sections([(.null, ["m30", "m31", "m32", "m33", "m12"])]))
    }

    @Test func aResumeOverTheStoresOwnBatchesReadsTheirKeysWhateverTheyChanged() throws {
        let file = try File()
        let (saved, token) = try savedWindow(file)
        // The store's own writes (one batch each), then another process's.
        let writer = try Store(path: file.path)
        try writer.update("Msg", key: "m30", ["text": "own, below"])
        try writer.update("Msg", key: "m12", ["text": "own, shown"])
        try ExternalConnection(path: file.path).execute("UPDATE Msg SET n = 5 WHERE id = 'm20'; UPDATE Msg SET text = 'x' WHERE id = 'm31'")
        let store = try Store(path: file.path)
        let query = try store.bind(ResumeTokenTests.request)
        let scope = RowReadScope(placingAttributes: query.placingAttributes, keys: Set(saved.flatMap(\.items)))
        let changes = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try store.changes(observedBy: store.definedEntity(named: "Msg"), since: token.position, readingRows: scope)
        }
        // A batch says nothing of what it changed: its keys are read; m31's edit placed nothing.
        #expect(Set(changes.rowsByEntity["Msg"]?.keys ?? [:].keys) == ["m30", "m12", "m20"])
        let (resumed, group) = try resume(store, from: token, saved: saved)
        #expect(resumed.snapshot == sections([(.null, ["m10", "m11", "m12", "m13", "m14"])]))
        #expect(group.objectChanges.filter { $0.type == .update }.map(\.item) == ["m12"])
    }

    @Test func whenMoreThanThreeKeysInFourCanMoveEveryKeyIsRead() throws {
        let file = try File()
        let (saved, token) = try savedWindow(file)
        let other = try ExternalConnection(path: file.path)
        // m01…m30 re-sorted (their order reversed), m31…m40 edited in `text` alone.
        try other.execute("UPDATE Msg SET n = 401 - n WHERE id <= 'm30'; UPDATE Msg SET text = 'e' WHERE id > 'm30'")
        func changes(_ store: Store) throws -> CommittedChanges {
            let query = try store.bind(ResumeTokenTests.request)
            let scope = RowReadScope(placingAttributes: query.placingAttributes, keys: Set(saved.flatMap(\.items)))
            return try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
                try store.changes(observedBy: store.definedEntity(named: "Msg"), since: token.position, readingRows: scope)
            }
        }
        // Three keys in four of the 40 entries can move: the others are left unread.
        let threeInFour = try changes(Store(path: file.path))
        #expect(threeInFour.rowsByEntity["Msg"]?.count == 30)
        // One more: every key is read, in one join.
        try other.execute("UPDATE Msg SET n = 5 WHERE id = 'm31'")
        let store = try Store(path: file.path)
        let more = try changes(store)
        #expect(more.rowsByEntity["Msg"]?.count == 40)

        // m31 went first (5), then m30, m29… from 101 on: rows 10 to 14 are m21…m17.
        let (resumed, _) = try resume(store, from: token, saved: saved)
        #expect(resumed.snapshot == sections([(.null, ["m21", "m20", "m19", "m18", "m17"])]))
    }

    @Test func aMaskNoTriggerWritesMakesTheRowRead() throws {
        let file = try File()
        try watch(file.path)
        let position: Int64
        do {
            let store = try Store(path: file.path)
            position = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in store.storage.changeLogPosition }
        }
        let other = try ExternalConnection(path: file.path)
        // Another program rewrites the masks of five updates of `text`: as text, as zero, as
        // a fraction, as the same bits in a whole real, and as -1 (every bit, the mask a
        // batch reads with); and logs an entry with neither a key nor a batch. (m36…m39's
        // updates keep the keys read below three in four: else every key is read.)
        try other.execute("""
            UPDATE Msg SET text = 'a' WHERE id BETWEEN 'm30' AND 'm39';
            UPDATE _roster_changes SET changed = -1 WHERE key = 'm35' AND seq > \(position);
            INSERT INTO _roster_changes(entity, key, batch) VALUES ('Msg', NULL, NULL);
            UPDATE _roster_changes SET changed = 'n' WHERE key = 'm30' AND seq > \(position);
            UPDATE _roster_changes SET changed = 0 WHERE key = 'm31' AND seq > \(position);
            UPDATE _roster_changes SET changed = 4.5 WHERE key = 'm33' AND seq > \(position);
            UPDATE _roster_changes SET changed = 4.0 WHERE key = 'm34' AND seq > \(position);
            """)
        let store = try Store(path: file.path)
        let entity = try store.definedEntity(named: "Msg")
        let changes = try store.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try store.changes(observedBy: entity, since: position, readingRows: RowReadScope(placingAttributes: [0, 1], keys: []))
        }
        // m32's and m34's masks say `text` alone (4.0 is the whole number 4), as m36…m39's
        // do: unread; the others say nothing a trigger writes, or every bit: read. The entry
        // without a key or a batch is no row's.
        #expect(Set(changes.rowsByEntity["Msg"]?.keys ?? [:].keys) == ["m30", "m31", "m33", "m35"])
        #expect(changes.resync == nil)
    }

    @Test func aReadOnlyStoreResumesOnTriggersWrittenBeforeTheMask() throws {
        let file = try File()
        let (_, token) = try savedWindow(file)
        try LegacyChangeLog.makeFormat7WithoutMask(at: file.path)
        let other = try ExternalConnection(path: file.path)
        try other.execute("UPDATE Msg SET text = 'old trigger' WHERE id IN ('m12', 'm30'); UPDATE Msg SET n = 5 WHERE id = 'm20'")
        let reader = try Store(path: file.path, readOnly: true)
        let resumed = try ResultsController(store: reader, request: ResumeTokenTests.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        #expect(resumed.snapshot == sections([(.null, ["m10", "m11", "m12", "m13", "m14"])]))
        #expect(recorder.takeGroups().first?.objectChanges.filter { $0.type == .update }.map(\.item) == ["m12"])
        // Without a mask, every key is read: nothing is left unread.
        let entity = try reader.definedEntity(named: "Msg")
        let changes = try reader.readingAtCursor(observing: ["Msg"]) { () throws(StoreError) in
            try reader.changes(observedBy: entity, since: token.position,
                               readingRows: RowReadScope(placingAttributes: [0, 1], keys: []))
        }
        #expect(changes.rowsByEntity["Msg"]?.count == 3)
    }

    @Test func aStoreThatWritesPutsTheMaskBackOnTriggersWrittenBeforeIt() throws {
        let file = try File()
        try watch(file.path)
        try LegacyChangeLog.makeFormat7WithoutMask(at: file.path)
        let other = try ExternalConnection(path: file.path)
        try other.execute("UPDATE Msg SET text = 'unmasked' WHERE id = 'm01'")
        try watch(file.path)
        // The column came back empty for the entries written before it.
        #expect(try newestMask(of: "m01", in: file.path) == .null)
        try other.execute("UPDATE Msg SET text = 'masked' WHERE id = 'm01'")
        #expect(try newestMask(of: "m01", in: file.path) == .integer(0b100))
    }
}
