import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Resume tokens: what changed while the app was closed, as one exact change group
/// against the window the token saved, from this process or another; the resync signal
/// when the log no longer reaches back; bad tokens refused with nothing changed.
@Suite("Resume tokens")
struct ResumeTokenTests {
    /// A store file that outlives the stores opened on it, with messages m01…m40 by `n`.
    final class File {
        let directory: URL
        var path: String { directory.appendingPathComponent("store.sqlite").path }
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-resume-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try Store(path: path)
            try store.define(Entity("Msg", key: "id", attributes: [Attribute("id", .string), Attribute("n", .integer), Attribute("text", .string)]))
            try store.write {
                for n in 1...40 { try store.insert("Msg", ["id": .string(Self.key(n)), "n": .integer(Int64(n * 10)), "text": "t"]) }
            }
        }
        deinit { try? FileManager.default.removeItem(at: directory) }
        static func key(_ n: Int) -> String { n < 10 ? "m0\(n)" : "m\(n)" }
    }

    static let request = FetchRequest(entity: "Msg", sortKeys: [SortKey("n")])

    @Test(arguments: [ResultsWindow.offset(20, length: 3), .anchored(key: "m30", before: 1, after: 1)])
    func aWindowMovedWhileAResyncWaitsHearsItAndItsTokenResumesThere(moved: ResultsWindow) throws {
        let file = try File()
        let token: ResumeToken
        let saved: [ListSection<Value, Value>]
        do {
            let store = try Store(path: file.path)
            let (controller, recorder) = try openController(store, window: .offset(2, length: 3))
            let seen = controller.snapshot
            #expect(seen == sections([(.null, ["m03", "m04", "m05"])]))
            // A delivery fails (the table is away): the resync waits, from what the delegate saw.
            let other = try ExternalConnection(path: file.path)
            try other.execute("ALTER TABLE Msg RENAME TO Hidden; UPDATE Hidden SET text = 'x' WHERE id = 'm30'")
            try store.pollExternalChanges()
            #expect(recorder.errors.count == 1)
            try other.execute("ALTER TABLE Hidden RENAME TO Msg")
            // The app moves the window before the resync comes: the delegate hears the move
            // from what it saw, and the token saves the moved window.
            try controller.setWindow(moved)
            let (fresh, _) = try openController(store, window: moved)
            #expect(controller.snapshot == fresh.snapshot)
            #expect(try recorder.takeGroups().reduce(seen) { try $1.apply(to: $0) } == fresh.snapshot)
            token = try controller.resumeToken()
            saved = controller.snapshot
        }
        // While the app is away, m01 moves between m21 and m22 (and m30 changes).
        try ExternalConnection(path: file.path).execute("UPDATE Msg SET n = 215 WHERE id = 'm01'; UPDATE Msg SET text = 'y' WHERE id = 'm30'")
        let (store, resumed, recorder) = try relaunch(file.path, resumingFrom: token)
        let (fresh, _) = try openController(store, window: moved)
        #expect(resumed.snapshot == fresh.snapshot)
        #expect(try recorder.takeGroups().reduce(saved) { try $1.apply(to: $0) } == fresh.snapshot)
    }

    /// A token saved while the table is still away, after the app moved the window: its rows
    /// are the ones the delegate saw, not the moved window's. The resume reads the moved
    /// window where it stands and tells the change from those rows as one group (it placed
    /// the window from them before, as if they were the moved window's, and showed them).
    @Test(arguments: [ResultsWindow.offset(3, length: 3), .offset(20, length: 3), .anchored(key: "m30", before: 1, after: 1)])
    func aTokenSavedWhileAResyncWaitsAfterAWindowMoveResumesTheMovedWindowInOneGroup(moved: ResultsWindow) throws {
        let file = try File()
        let token: ResumeToken
        let seen: [ListSection<Value, Value>]
        do {
            let store = try Store(path: file.path)
            // The whole results loaded, then a window over them (not one opened cold, whose
            // move would read the table).
            let (controller, recorder) = try openController(store, window: nil)
            try controller.setWindow(.offset(2, length: 3))
            _ = recorder.takeGroups()
            seen = controller.snapshot
            let other = try ExternalConnection(path: file.path)
            try other.execute("ALTER TABLE Msg RENAME TO Hidden; INSERT INTO Hidden VALUES ('m00', 0, 'first')")
            try store.pollExternalChanges()
            #expect(recorder.errors.count == 1)
            // Moved, and its token saved, while the resync waits for the table.
            try controller.setWindow(moved)
            token = try controller.resumeToken()
            #expect(recorder.takeGroups().isEmpty)
            try other.execute("ALTER TABLE Hidden RENAME TO Msg")
        }
        let (store, resumed, recorder) = try relaunch(file.path, resumingFrom: token)
        let (fresh, _) = try openController(store, window: moved)
        #expect(resumed.snapshot == fresh.snapshot)
        let groups = recorder.takeGroups()
        #expect(groups.count <= 1)
        #expect(try groups.reduce(seen) { try $1.apply(to: $0) } == fresh.snapshot)
        // The token keeps saying so in its text.
        #expect(try ResumeToken(token.encoded) == token)
    }

    /// A sort that drops a key path whose table went away is the resync the query owed: its
    /// results are the committed state then, and so is its token's position. A resume from
    /// it hears only what came after (it replayed the commits the resync had read, one of
    /// them into a window state that never was); the sort reads nothing through the old
    /// key path (it reported an error for rows that had only left the window).
    @Test(arguments: [nil, ResultsWindow.offset(0, length: 2)])
    func aSortThatIsTheResyncMovesItsTokenToTheCommittedState(window: ResultsWindow?) throws {
        let store = try Store.temporary()
        try store.define(Entity("Feed", key: "id", attributes: [Attribute("id", .string)]))
        try store.define(Entity("Entry", key: "id", attributes: [Attribute("id", .string), Attribute("n", .integer),
                                                                 .relationship("feed", to: "Feed", type: .string)]))
        try store.write {
            try store.insert("Feed", ["id": "f1"])
            for n in 1...3 { try store.insert("Entry", ["id": .string("e\(n)"), "n": .integer(Int64(n)), "feed": "f1"]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Entry", sortKeys: [SortKey("feed.id"), SortKey("n")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try controller.setWindow(window)
        _ = recorder.takeGroups()
        let other = try ExternalConnection(path: store.path)
        try other.execute("ALTER TABLE Feed RENAME TO Gone; UPDATE Entry SET n = 0 WHERE id = 'e3'")
        try store.pollExternalChanges()
        #expect(recorder.errors.count == 1)
        try controller.setRequest(FetchRequest(entity: "Entry", sortKeys: [SortKey("n")]))
        #expect(recorder.errors.count == 1)
        #expect(recorder.resyncs == [.schemaChanged])
        _ = recorder.takeGroups()
        let token = try controller.resumeToken()
        let saved = controller.snapshot
        try other.execute("UPDATE Entry SET n = 9 WHERE id = 'e1'")
        let resumed = try ResultsController(store: try Store(path: store.path), request: controller.request)
        let resumedRecorder = GroupRecorder()
        resumed.delegate = resumedRecorder
        try resumed.performFetch(resumingFrom: token)
        let fresh = try ResultsController(store: store, request: controller.request)
        try fresh.setWindow(window)
        try fresh.performFetch()
        #expect(resumed.snapshot == fresh.snapshot)
        let groups = resumedRecorder.takeGroups()
        #expect(groups.count == 1)
        #expect(try groups.reduce(saved) { try $1.apply(to: $0) } == fresh.snapshot)
        // Only e1's commit: it moves (whole results) or leaves the window for e2.
        #expect(Set(groups.flatMap(\.objectChanges).map(\.item)).isSubset(of: ["e1", "e2"]))
    }

    /// The app relaunched: a new store on the file, and a live query resumed from `token`.
    func relaunch(_ path: String, resumingFrom token: ResumeToken) throws -> (Store, ResultsController, GroupRecorder) {
        let store = try Store(path: path)
        let resumed = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        return (store, resumed, recorder)
    }

    /// The writes before an entity's first watch are not logged: a token saved then (inside
    /// the transaction that first watched it) says so, and resuming it is a resync.
    @Test func aTokenSavedBeforeItsEntityWasWatchedResumesAsALogPrunedResync() throws {
        let file = try File()
        let store = try Store(path: file.path)
        let controller = try ResultsController(store: store, request: Self.request)
        var token: ResumeToken?
        try store.write {
            try store.update("Msg", key: "m01", ["n": .integer(1_000)])
            try controller.performFetch()
            token = try controller.resumeToken()
        }
        let saved = try #require(token)
        let decoded = try ResumeToken(saved.encoded)
        #expect(decoded == saved && !decoded.isLogged)
        // Once the commit started the watch, tokens are logged again.
        #expect(try controller.resumeToken().isLogged)
        let resumed = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: decoded)
        #expect(recorder.resyncs == [.logPruned])
        #expect(resumed.snapshot == controller.snapshot && resumed.snapshot.first?.items.last == "m01")
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: saved.sections) == resumed.snapshot)
        #expect(resumed.object(at: try #require(resumed.indexPath(for: "m01")))?["n"] == .integer(1_000))
    }

    func openController(_ store: Store, window: ResultsWindow? = .anchored(key: "m20", before: 3, after: 3)) throws -> (ResultsController, GroupRecorder) {
        let controller = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.setWindow(window)
        try controller.performFetch()
        return (controller, recorder)
    }

    @Test func afterTheWriterExitedAndAnotherProcessWroteTheChangeIsOneExactGroup() throws {
        let file = try File()
        var saved: [ListSection<Value, Value>] = []
        let encoded: String
        do {
            let store = try Store(path: file.path)
            let (controller, _) = try openController(store)
            saved = controller.snapshot
            encoded = try controller.resumeToken().encoded
        }
        // The app is gone; another process writes: above the window, in it, and below.
        let other = try ExternalConnection(path: file.path)
        try other.execute("""
            INSERT INTO Msg VALUES ('a1', 1, 'new'), ('a2', 2, 'new');
            UPDATE Msg SET text = 'edited' WHERE id = 'm19';
            DELETE FROM Msg WHERE id = 'm21';
            UPDATE Msg SET n = 185 WHERE id = 'm23';
            UPDATE Msg SET text = 't' WHERE id = 'm22';
            DELETE FROM Msg WHERE id = 'm39'
            """)
        let store = try Store(path: file.path)
        let controller = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch(resumingFrom: ResumeToken(encoded))
        #expect(controller.window == .anchored(key: "m20", before: 3, after: 3))
        let now = controller.snapshot
        #expect(now == sections([(.null, ["m18", "m23", "m19", "m20", "m22", "m24", "m25"])]))
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: saved) == now)
        #expect(try BatchAdapter().batch(for: group).validate(old: saved, new: now) == ())
        // m19's text changed: an update; m22 was written with the value it had: nothing.
        #expect(group.objectChanges.filter { $0.type == .update }.map(\.item) == ["m19"])
        #expect(group.objectChanges.contains { $0.type == .delete && $0.item == "m21" })
        #expect(recorder.resyncs.isEmpty)
        // And it goes on live from there.
        try store.update("Msg", key: "m20", ["text": "live"])
        #expect(recorder.takeGroups().first?.objectChanges.map(\.type) == [.update])
    }

    /// Keeps the objects of the delete callbacks.
    final class DeletedObjects: ResultsControllerDelegate {
        var objects: [Object] = []
        func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
            if type == .delete { objects.append(object) }
        }
    }

    @Test func rowsThatSlidOutOfAResumedWindowAreReportedWithTheirValues() throws {
        let file = try File()
        let store = try Store(path: file.path)
        let (controller, _) = try openController(store, window: .offset(5, length: 3))
        let token = try controller.resumeToken()
        let other = try ExternalConnection(path: file.path)
        try other.execute("INSERT INTO Msg VALUES ('a1', 1, 'new'), ('a2', 2, 'new')")
        let resumed = try ResultsController(store: try Store(path: file.path), request: Self.request)
        let deleted = DeletedObjects()
        resumed.delegate = deleted
        try resumed.performFetch(resumingFrom: token)
        #expect(resumed.snapshot == sections([(.null, ["m04", "m05", "m06"])]))
        #expect(deleted.objects.map(\.key) == ["m07", "m08"])
        #expect(deleted.objects.map { $0["n"] } == [.integer(70), .integer(80)])
    }

    @Test func liveResultsSaveAndResumeAsTheControllerDoes() throws {
        let file = try File()
        let queue = try StoreQueue(path: file.path)
        let posts = try LiveResults(queue: queue, request: Self.request)
        try posts.setWindow(.anchored(key: "m20", before: 2, after: 2))
        _ = try posts.takeChange()
        // A commit the consumer takes moves the token's position past it.
        try queue.write { store in try store.update("Msg", key: "m21", ["text": "taken"]) }
        #expect(try posts.takeChange()?.group.objectChanges.map(\.type) == [.update])
        let saved = posts.snapshot.sections
        let token = try posts.resumeToken()
        posts.close()
        let other = try ExternalConnection(path: file.path)
        try other.execute("UPDATE Msg SET text = 'later' WHERE id = 'm19'; DELETE FROM Msg WHERE id = 'm22'; INSERT INTO Msg VALUES ('a0', 0, 'top')")
        let relaunched = try StoreQueue(path: file.path)
        let resumed = try LiveResults(queue: relaunched, request: Self.request, resumingFrom: token)
        #expect(resumed.hasPendingChanges)
        let change = try #require(try resumed.takeChange())
        #expect(resumed.window == .anchored(key: "m20", before: 2, after: 2))
        #expect(change.snapshot.sections == sections([(.null, ["m18", "m19", "m20", "m21", "m23"])]))
        #expect(try change.group.apply(to: saved) == change.snapshot.sections)
        // m21's earlier change was taken before the token: only m19 is an update.
        #expect(change.group.objectChanges.filter { $0.type == .update }.map(\.item) == ["m19"])
        #expect(change.deletedObjects["m22"]?["n"] == .integer(220))
        #expect(try resumed.takeChange() == nil)
    }

    @Test func aLiveResultsTokenIsWhatItsConsumerHolds() throws {
        let file = try File()
        let queue = try StoreQueue(path: file.path)
        try queue.read { store in try store.define(Entity("Note", key: "id", attributes: [Attribute("id", .integer)])) }
        let posts = try LiveResults(queue: queue, request: Self.request)
        // Another entity, watched too, so that its commits are logged.
        let notes = try LiveResults(queue: queue, request: FetchRequest(entity: "Note"))
        let first = try posts.resumeToken()
        // Commits to another entity: the consumer holds them all, and its token moves past them.
        for id in 0..<3 { try queue.write { store in try store.insert("Note", ["id": .integer(Int64(id))]) } }
        let later = try posts.resumeToken()
        #expect(later.position > first.position && later.sections == first.sections)
        withExtendedLifetime(notes) {}

        try queue.write { store in try store.update("Msg", key: "m05", ["text": "changed"]) }
        let relaunched = try StoreQueue(path: file.path)
        let resumed = try LiveResults(queue: relaunched, request: Self.request, resumingFrom: later)
        // Before the consumer takes the resumed change, it still holds the token's rows.
        #expect(try resumed.resumeToken() == later)
        #expect(resumed.snapshot.sections == later.sections)
        let change = try #require(try resumed.takeChange())
        #expect(change.group.objectChanges.map(\.type) == [.update])
        #expect(try resumed.resumeToken().position > later.position)
    }

    @Test func aDeletedAnchorPassesToItsNeighbourWhenResuming() throws {
        let file = try File()
        let store = try Store(path: file.path)
        let (controller, _) = try openController(store)
        let token = try controller.resumeToken()
        try store.delete("Msg", key: "m20")
        let (resumed, recorder) = try openController(store, window: nil)
        try resumed.performFetch(resumingFrom: token)
        #expect(resumed.window == .anchored(key: "m21", before: 3, after: 3))
        #expect(recorder.takeGroups().count == 1)
    }

    @Test func aTokenOlderThanTheLogResyncs() throws {
        let file = try File()
        let store = try Store(path: file.path)
        let (controller, _) = try openController(store)
        let saved = controller.snapshot
        let token = try controller.resumeToken()
        try store.delete("Msg", key: "m19")
        try store.update("Msg", key: "m18", ["text": "x"])
        let other = try ExternalConnection(path: file.path)
        try other.execute("UPDATE _roster_meta SET value = (SELECT max(seq) FROM _roster_changes) WHERE name = 'pruned_through'")
        let resumed = try ResultsController(store: try Store(path: file.path), request: Self.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        #expect(recorder.resyncs == [.logPruned])
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: saved) == resumed.snapshot)
        // Every row that stays is an update in a resync.
        #expect(Set(group.objectChanges.filter { $0.type == .update }.map(\.item)) == Set(["m17", "m18", "m20", "m21", "m22", "m23"]))
    }

    @Test func badTokensAreRefusedAndChangeNothing() throws {
        let file = try File()
        let store = try Store(path: file.path)
        let (controller, _) = try openController(store)
        let token = try controller.resumeToken()
        for text in ["", "roster-token-1:", "roster-token-1:!!!", "roster-token-1:" + Data("[1,2]".utf8).base64EncodedString(),
                     "roster-token-1:" + Data(#"{"store":"x","request":"r","position":"-4","sections":[]}"#.utf8).base64EncodedString(),
                     String(token.encoded.dropLast(8)),
                     // A key twice, and an empty section: no live query shows those.
                     "roster-token-1:" + Data(#"{"store":"x","request":"r","position":"1","rank":"0","sections":[[["n"],[["s","a"],["s","a"]]]]}"#.utf8).base64EncodedString(),
                     "roster-token-1:" + Data(#"{"store":"x","request":"r","position":"1","rank":"0","sections":[[["n"],[]]]}"#.utf8).base64EncodedString(),
                     // The marks of a token saved while a resync waited, or before its entity
                     // was logged, are "1" or absent.
                     "roster-token-1:" + Data(#"{"store":"x","request":"r","position":"1","unplaced":true,"sections":[]}"#.utf8).base64EncodedString(),
                     "roster-token-1:" + Data(#"{"store":"x","request":"r","position":"1","unlogged":"0","sections":[]}"#.utf8).base64EncodedString()] {
            let error = #expect(throws: StoreError.self) { try ResumeToken(text) }
            #expect(error?.code == .invalidResumeToken, "\(text): \(String(describing: error))")
        }
        #expect(try ResumeToken(token.encoded) == token)

        // Another store's token, and a token for another request.
        let otherFile = try File()
        let other = try ResultsController(store: try Store(path: otherFile.path), request: Self.request)
        let fromAnotherStore = #expect(throws: StoreError.self) { try other.performFetch(resumingFrom: token) }
        #expect(fromAnotherStore?.code == .invalidResumeToken && !other.hasFetched)
        let sortedOtherwise = try ResultsController(store: store, request: FetchRequest(entity: "Msg", sortKeys: [SortKey("n", ascending: false)]))
        let forAnotherRequest = #expect(throws: StoreError.self) { try sortedOtherwise.performFetch(resumingFrom: token) }
        #expect(forAnotherRequest?.code == .invalidResumeToken && !sortedOtherwise.hasFetched)
        // Before a fetch there is nothing to save.
        let unfetched = try ResultsController(store: store, request: Self.request)
        #expect(throws: StoreError.self) { try unfetched.resumeToken() }
    }

    /// A token's text in its parts: the JSON members, and the compact body (sections, then rows).
    static func parts(of token: ResumeToken) throws -> (members: [String: Any], body: [UInt8]) {
        let text = token.encoded.dropFirst("roster-token-2:".count)
        let dot = try #require(text.firstIndex(of: "."))
        let head = try #require(Data(base64Encoded: String(text[..<dot])))
        let members = try #require(try JSONSerialization.jsonObject(with: head) as? [String: Any])
        return (members, Array(try #require(Data(base64Encoded: String(text[text.index(after: dot)...])))))
    }

    /// A token's text from its parts; a first-form text has no body.
    static func text(_ members: [String: Any], body: [UInt8]?, form: Int = 2) throws -> String {
        "roster-token-\(form):" + (try JSONSerialization.data(withJSONObject: members)).base64EncodedString() + (body.map { "." + Data($0).base64EncodedString() } ?? "")
    }

    /// A window opened cold saves the rows it shows in its token, in a compact form that
    /// survives the token's text; rows that do not fit the token are refused as damage,
    /// saying what is wrong, and change nothing.
    @Test func aColdWindowsTokenHoldsItsRowsAndDamagedRowsAreRefused() throws {
        let file = try File()
        let store = try Store(path: file.path)
        try store.update("Msg", key: "m21", ["text": "ünïcödé, \"quoted\""])
        try store.execute("UPDATE Msg SET text = CAST(X'C3' AS TEXT) WHERE id = 'm22'")
        try store.execute("UPDATE Msg SET text = NULL WHERE id = 'm23'")
        let (controller, _) = try openController(store, window: .offset(20, length: 4))
        let token = try controller.resumeToken()
        let rows = try #require(token.shownRows)
        #expect(rows.rows.map { $0[0] } == ["m21", "m22", "m23", "m24"])
        #expect(rows.rows[1][2] == .invalidUTF8([0xC3]) && rows.rows[2][2] == .null)
        #expect(try ResumeToken(token.encoded) == token)

        // The token's text with its `rows` member and the rows in its body replaced.
        let (members, body) = try Self.parts(of: token)
        let sections = ResumeToken.encode(token.sections)
        #expect(Array(body.prefix(sections.count)) == sections && Array(body.dropFirst(sections.count)) == rows.encodedValues)
        func withRows(_ member: Any, _ rowBytes: [UInt8]) throws -> String {
            var members = members
            members["rows"] = member
            return try Self.text(members, body: sections + rowBytes)
        }
        let encodedRows = rows.encodedValues
        let swapped = ResumeToken.ShownRows(layout: rows.layout, width: 3, keyIndex: 0, rows: [rows.rows[1], rows.rows[0]] + rows.rows[2...], logEntry: rows.logEntry).encodedValues
        let short = ResumeToken.ShownRows(layout: rows.layout, width: 3, keyIndex: 0, rows: Array(rows.rows.prefix(3)), logEntry: rows.logEntry).encodedValues
        for (member, rowBytes, says) in [("rows" as Any, encodedRows, "not a layout"), ([rows.layout, "3", "0"] as Any, encodedRows, "not a layout"),
                                         ([rows.layout, "3", "3", rows.logEntry] as Any, encodedRows, "not a layout"),
                                         ([rows.layout, "3", "0", rows.logEntry] as Any, swapped, "the row it holds for key 'm21' has key 'm22'"),
                                         ([rows.layout, "3", "0", rows.logEntry] as Any, short, "not 4 rows of 3 values"),
                                         ([rows.layout, "3", "0", rows.logEntry] as Any, Array(encodedRows.dropLast()), "not 4 rows of 3 values"),
                                         ([rows.layout, "3", "0", rows.logEntry] as Any, encodedRows + [0], "more than its sections and rows"),
                                         ([rows.layout, "2", "0", rows.logEntry] as Any, encodedRows, "the row it holds for key"),
                                         ([rows.layout, "4", "0", rows.logEntry] as Any, encodedRows, "not 4 rows of 4 values"),
                                         ([rows.layout, String(Int.max / 2), "0", rows.logEntry] as Any, encodedRows, "not 4 rows of"),
                                         ([rows.layout, "1000000000", "0", rows.logEntry] as Any, encodedRows, "not 4 rows of")] {
            let error = #expect(throws: StoreError.self) { try ResumeToken(try withRows(member, rowBytes)) }
            #expect(error?.code == .invalidResumeToken && error?.description.contains(says) == true, "\(member): \(String(describing: error))")
        }
        #expect(try ResumeToken(try withRows([rows.layout, "3", "0", rows.logEntry], encodedRows)) == token)
        // Rows in a token of the first form, which has no body.
        var first = members
        first["sections"] = [[["n"], [["s", "m21"], ["s", "m22"], ["s", "m23"], ["s", "m24"]]]]
        #expect(try ResumeToken(try Self.text(first.filter { $0.key != "rows" }, body: nil, form: 1)).sections == token.sections)
        #expect(throws: StoreError.self) { try ResumeToken(try Self.text(first, body: nil, form: 1)) }
    }

    /// Tokens are written in their second form (sections in the compact form); one of the
    /// first form, as written before, reads as the same token; damaged compact sections are
    /// refused, saying so.
    @Test func aTokenOfTheFirstFormStillReadsAndDamagedSectionsAreRefused() throws {
        let store = try Store.temporary()
        try store.define(Entity("Card", key: "id", attributes: [Attribute("id", .integer), Attribute("group", .string), Attribute("rank", .double)]))
        try store.write {
            for id in 0..<12 { try store.insert("Card", ["id": .integer(Int64(id) - 3), "group": id % 3 == 0 ? .null : .string(id % 3 == 1 ? "a" : "b"), "rank": .double(Double(id) / 2)]) }
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Card", sortKeys: [SortKey("group"), SortKey("rank")], sectionAttribute: "group"))
        try controller.setWindow(.offset(2, length: 7))
        try controller.performFetch()
        let token = try controller.resumeToken()
        #expect(token.sections.count == 3 && token.shownRows?.rows.count == 7)
        #expect(token.encoded.hasPrefix("roster-token-2:"))
        #expect(try ResumeToken(token.encoded) == token)

        let (members, body) = try Self.parts(of: token)
        func json(_ value: Value) -> [String] {
            switch value {
            case .null: ["n"]
            case let .integer(number): ["i", String(number)]
            case let .string(text): ["s", text]
            default: ["?"]
            }
        }
        var first = members
        first["sections"] = token.sections.map { [json($0.id), $0.items.map(json)] as [Any] }
        first["rows"] = nil
        let firstForm = try ResumeToken(try Self.text(first, body: nil, form: 1))
        #expect(firstForm.sections == token.sections && firstForm.shownRows == nil && firstForm.position == token.position)

        var withoutRows = members
        withoutRows["rows"] = nil
        let sections = ResumeToken.encode(token.sections)
        #expect(Array(body.prefix(sections.count)) == sections)
        for (damaged, says) in [(Array(sections.dropLast()), "not names and keys"),
                                (sections + [0], "more than its sections and rows"),
                                (ResumeToken.encode([ListSection(id: .null, items: [.null])]), "not names and keys"),
                                ([], "not names and keys")] {
            let error = #expect(throws: StoreError.self) { try ResumeToken(try Self.text(withoutRows, body: damaged)) }
            #expect(error?.code == .invalidResumeToken && error?.description.contains(says) == true, "\(damaged): \(String(describing: error))")
        }
        #expect(try ResumeToken(try Self.text(withoutRows, body: sections)).sections == token.sections)
        // A body that is not base64, and a second-form token without its body.
        let broken = try Self.text(withoutRows, body: nil) + ".%%"
        #expect((#expect(throws: StoreError.self) { try ResumeToken(broken) })?.description.contains("body is not base64") == true)
        #expect(throws: StoreError.self) { try ResumeToken(try Self.text(withoutRows, body: nil)) }
    }

    /// Bytes damaged at random in the compact forms read as damage or as other values,
    /// never as a trap or an unbounded allocation: a token is input.
    @Test(arguments: 0..<4)
    func randomDamageToTheCompactFormsNeverTraps(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 7_001)
        let sections = [ListSection<Value, Value>(id: "a", items: [.integer(-1), .string("ü"), .invalidUTF8([0xFF])]), ListSection(id: .null, items: [.double(0.5), .bool(true)])]
        let rows = ResumeToken.ShownRows(layout: "l", width: 2, keyIndex: 0, rows: sections.flatMap(\.items).map { [$0, .string("x")] }, logEntry: "e")
        for original in [ResumeToken.encode(sections), rows.encodedValues] {
            var refused = 0
            for _ in 0..<2_000 {
                var bytes = original
                for _ in 0...(random.next() % 3) {
                    switch random.next() % 3 {
                    case 0 where !bytes.isEmpty: bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                    case 1 where !bytes.isEmpty: bytes.removeSubrange(Int(random.next() % UInt64(bytes.count))...)
                    default: bytes.insert(0xFF, at: Int(random.next() % UInt64(bytes.count + 1)))
                    }
                }
                let sectionsRead = ResumeToken.sections(decoding: bytes)
                let rowsRead = ResumeToken.ShownRows.rows(decoding: bytes, count: 5, width: 2)
                if sectionsRead == nil && rowsRead == nil { refused += 1 }
            }
            #expect(refused > 1_000)
        }
    }

    /// A token's rows are read only into the entity laid out as when they were saved: after
    /// an attribute was added, the resume reads the rows, which have it.
    @Test func aTokensRowsAreNotUsedOnceTheEntityGainedAnAttribute() throws {
        let file = try File()
        let (saved, token) = try ResumeReadScopeTests().savedWindow(file)
        #expect(token.shownRows != nil)
        let store = try Store(path: file.path)
        try store.define(Entity("Msg", key: "id", attributes: [Attribute("id", .string), Attribute("n", .integer), Attribute("text", .string),
                                                               Attribute("extra", .integer)]))
        let other = try ExternalConnection(path: file.path)
        try other.execute("UPDATE Msg SET extra = 7 WHERE id = 'm12'")
        let (resumed, group) = try ResumeReadScopeTests().resume(store, from: token, saved: saved)
        #expect(resumed.object(at: IndexPath(item: 1, section: 0))?["extra"] == 7)
        #expect(resumed.object(at: IndexPath(item: 0, section: 0))?["extra"] == .null)
        #expect(try resumed.fetchedObjects.count == 5)
        #expect(group.objectChanges.map(\.type) == [.update])
    }

    @Test("random writes while closed give one exact group", arguments: 0..<12)
    func randomWritesWhileClosed(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 99)
        let file = try File()
        let windows: [ResultsWindow] = [.offset(Int.random(in: 0...35, using: &random), length: 8),
                                        .anchored(key: .string(File.key(Int.random(in: 1...40, using: &random))), before: 4, after: 4)]
        let window = windows.randomElement(using: &random)!
        var saved: [ListSection<Value, Value>] = []
        var rowsBefore: [Value: [Value]] = [:]
        let token: ResumeToken
        do {
            let store = try Store(path: file.path)
            let (controller, _) = try openController(store, window: window)
            saved = controller.snapshot
            token = try controller.resumeToken()
            for row in try store.fetchCommittedRows(store.bind(FetchRequest(entity: "Msg"))) { rowsBefore[row[0]] = row }
        }
        let other = try ExternalConnection(path: file.path)
        for _ in 0..<Int.random(in: 1...30, using: &random) {
            let key = "'\(File.key(Int.random(in: 1...45, using: &random)))'"
            let n = Int.random(in: 0...450, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: try? other.execute("INSERT INTO Msg VALUES (\(key), \(n), 'r')")
            case 1: try? other.execute("DELETE FROM Msg WHERE id = \(key)")
            case 2: try? other.execute("UPDATE Msg SET n = \(n) WHERE id = \(key)")
            default: try? other.execute("UPDATE Msg SET text = '\(["t", "u", "v"].randomElement(using: &random)!)' WHERE id = \(key)")
            }
        }
        let store = try Store(path: file.path)
        let (fresh, _) = try openController(store, window: nil)
        var rowsNow: [Value: [Value]] = [:]
        for row in try store.fetchCommittedRows(store.bind(FetchRequest(entity: "Msg"))) { rowsNow[row[0]] = row }
        let resumed = try ResultsController(store: store, request: Self.request)
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        // The window is where it would be had the app stayed open.
        try fresh.setWindow(resumed.window)
        #expect(resumed.snapshot == fresh.snapshot)
        let groups = recorder.takeGroups()
        #expect(groups.count <= 1)
        if let group = groups.first {
            #expect(try group.apply(to: saved) == resumed.snapshot)
            try BatchAdapter().batch(for: group).validate(old: saved, new: resumed.snapshot)
            let fewest = fewestMoves(from: saved, to: resumed.snapshot)
            #expect(fewest == nil || moveCount(group) == fewest?.moves)
            let moved = Set(group.objectChanges.filter { $0.type == .move }.map(\.item))
            let staying = Set(saved.flatMap(\.items)).intersection(resumed.snapshot.flatMap(\.items)).subtracting(moved)
            #expect(Set(group.objectChanges.filter { $0.type == .update }.map(\.item)) == staying.filter { rowsBefore[$0] != rowsNow[$0] })
        } else {
            #expect(saved == resumed.snapshot)
        }
    }
}

@Suite("Change log retention")
struct ChangeLogRetentionTests {
    func logCount(_ store: Store) throws -> Int64 {
        let statement = try store.writer.prepare("SELECT count(*) FROM _roster_changes")
        defer { statement.reset() }
        _ = try statement.step()
        guard case let .integer(count) = statement.column(0) else { return -1 }
        return count
    }

    @Test func oneLargeCommitDoesNotExpireWhatIsYoungerThanTheMinimumAge() throws {
        let store = try postStore()
        #expect(store.changeLogRetention == .default)
        store.changeLogRetention = ChangeLogRetention(minimumAge: .seconds(3_600), minimumEntries: 100)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        try controller.performFetch()
        let token = try controller.resumeToken()
        for index in 0..<5 {
            try store.write { for row in 0..<200 { try store.insert("Post", ["id": .string("p\(index)-\(row)"), "rank": .integer(Int64(row))]) } }
        }
        // 1,000 rows logged, far past 100, but none an hour old: nothing pruned.
        #expect(try logCount(store) == 5)
        let resumed = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        #expect(recorder.resyncs.isEmpty && recorder.takeGroups().first?.objectChanges.count == 1_000)
    }

    @Test func byCountAloneTheNewestRowsStay() throws {
        let store = try postStore()
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: 100)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        try controller.performFetch()
        let token = try controller.resumeToken()
        for index in 0..<5 {
            try store.write { for row in 0..<200 { try store.insert("Post", ["id": .string("p\(index)-\(row)"), "rank": .integer(Int64(row))]) } }
        }
        // Pruned down to the newest transactions holding at least 100 rows.
        #expect(try logCount(store) < 5)
        let resumed = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        let recorder = GroupRecorder()
        resumed.delegate = recorder
        try resumed.performFetch(resumingFrom: token)
        #expect(recorder.resyncs == [.logPruned])
    }

    @Test func keepingEverythingByCountDoesNotOverflow() throws {
        let store = try postStore()
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: .max)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
        try controller.performFetch()
        for index in 0..<3 { try store.insert("Post", ["id": .string("p\(index)"), "rank": 1]) }
        #expect(try logCount(store) == 3)
        #expect(controller.numberOfObjects == 3)
    }
}

@Suite("LiveState positions")
struct LiveStatePositionTests {
    func row(_ id: String, rank: Int64) -> [Value] { [.string(id), "t", "d", .integer(rank), .null, .null] }

    @Test func aCommitThatARefetchAlreadyReadIsNotAppliedOverIt() throws {
        let store = try postStore()
        let query = try store.bind(FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let state = LiveState(query: query, rows: [row("a", rank: 1), row("b", rank: 2)], position: 4, lock: EngineLock().frozenReads,
                              loader: { _ in { _ in [:] } })
        // A resync re-fetched at position 6 (b deleted there, c added); then the step of
        // commit 5, which had raised a's rank, arrives: its rows are older than the re-fetch.
        let refetched = [row("c", rank: 3), row("a", rank: 7)]
        let stale = [Value("a"): TouchedRow(before: row("a", rank: 1), after: row("a", rank: 5))]
        _ = state.apply([.replace(query, refetched, through: 6), .touched(stale, through: 5)])
        #expect(state.snapshot == sections([(.null, ["c", "a"])]))
        #expect(state.engine.row(forKey: "a") == row("a", rank: 7))
        #expect(state.position == 6)
        // A later commit is applied.
        let fresh = [Value("c"): TouchedRow(before: row("c", rank: 3), after: row("c", rank: 9))]
        _ = state.apply([.touched(fresh, through: 7)])
        #expect(state.snapshot == sections([(.null, ["a", "c"])]) && state.position == 7)
    }
}
