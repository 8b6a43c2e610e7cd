import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Text that is not valid UTF-8, written by another connection (a `STRICT` table refuses a
/// BLOB in a `TEXT` column, but not such text): live queries keep SQLite's order, its
/// sections and its changes, byte for byte.
@Suite("Text that is not valid UTF-8")
struct InvalidUTF8Tests {
    /// A store with posts p1…p4, a live query on it, and another connection to its file.
    final class Fixture {
        let store: Store
        let external: ExternalConnection
        let controller: ResultsController
        let recorder = GroupRecorder()

        init(sort: [SortKey], section: String? = nil, titles: [String: String] = ["p1": "'a'", "p2": "'é'", "p3": "'z'", "p4": "'\u{FFFD}'"]) throws {
            store = try postStore()
            external = try ExternalConnection(path: store.path)
            for (key, title) in titles.sorted(by: { $0.key < $1.key }) {
                try store.execute("INSERT INTO Post(id, title, day, rank) VALUES ('\(key)', \(title), 'd1', 1)")
            }
            controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: sort, sectionAttribute: section))
            controller.delegate = recorder
            try controller.performFetch()
        }

        /// Runs SQL on the other connection, then lets the store notice it.
        func external(_ sql: String) throws {
            try external.execute(sql)
            try store.pollExternalChanges()
        }

        /// The keys in SQLite's order, by hex, for readable failures.
        func sqliteOrder(_ orderBy: String) throws -> [String] {
            let connection = try Connection(path: store.path)
            let statement = try connection.prepare("SELECT hex(id) FROM Post ORDER BY \(orderBy)")
            var keys: [String] = []
            while try statement.step() {
                if case let .string(hex) = statement.column(0) { keys.append(hex) }
            }
            return keys
        }

        /// The live query's keys in order, by the hex of their UTF-8 bytes.
        func liveOrder() -> [String] {
            controller.snapshot.flatMap(\.items).map(Self.hex)
        }

        /// A fresh fetch of the same request, by hex.
        func freshOrder() throws -> [[String]] {
            let fresh = try ResultsController(store: store, request: controller.request)
            try fresh.performFetch()
            return fresh.snapshot.map { $0.items.map(Self.hex) }
        }

        static func hex(_ value: Value) -> String {
            (value.textBytes ?? []).map { String(format: "%02X", $0) }.joined()
        }
    }

    @Test func liveOrderFollowsSQLiteBytesAfterExternalWrites() throws {
        let fixture = try Fixture(sort: [SortKey("title")])
        // X'C3' sorts before 'é' (C3 A9), which SQLite's BINARY collation puts before U+FFFD.
        try fixture.external("UPDATE Post SET title = CAST(X'C3' AS TEXT) WHERE id = 'p3'")
        #expect(fixture.liveOrder() == (try fixture.sqliteOrder("title, id")))
        try fixture.external("UPDATE Post SET title = CAST(X'C3AA' AS TEXT) WHERE id = 'p1'")
        #expect(fixture.liveOrder() == (try fixture.sqliteOrder("title, id")))
        try fixture.external("UPDATE Post SET rank = 2 WHERE id IN ('p2', 'p3')")
        #expect(fixture.liveOrder() == (try fixture.sqliteOrder("title, id")))
        #expect([fixture.liveOrder()] == (try fixture.freshOrder()))
    }

    @Test func aFreshFetchSortedByInvalidTextKeepsSQLiteOrderWhenRowsMove() throws {
        let fixture = try Fixture(sort: [SortKey("title", ascending: false)], titles: [
            "p1": "CAST(X'C3' AS TEXT)", "p2": "'é'", "p3": "CAST(X'EFBFBD' AS TEXT)", "p4": "CAST(X'FF' AS TEXT)",
        ])
        #expect(fixture.liveOrder() == (try fixture.sqliteOrder("title DESC, id")))
        // Each write moves or touches a row whose neighbours only bytes tell apart.
        try fixture.external("UPDATE Post SET title = CAST(X'C3A9' AS TEXT) WHERE id = 'p4'")
        try fixture.external("UPDATE Post SET rank = 5 WHERE id = 'p1'")
        try fixture.external("UPDATE Post SET title = CAST(X'F0' AS TEXT) WHERE id = 'p2'")
        try fixture.external("DELETE FROM Post WHERE id = 'p3'")
        #expect(fixture.liveOrder() == (try fixture.sqliteOrder("title DESC, id")))
        #expect([fixture.liveOrder()] == (try fixture.freshOrder()))
    }

    @Test func distinctBytesAreDistinctSections() throws {
        let fixture = try Fixture(sort: [SortKey("title")], section: "title", titles: ["p1": "'a'"])
        try fixture.external("INSERT INTO Post(id, title) VALUES ('p2', CAST(X'C3' AS TEXT)), ('p3', CAST(X'EFBFBD' AS TEXT))")
        #expect(fixture.controller.snapshot.count == 3)
        #expect(fixture.controller.snapshot.map { $0.items.map(Fixture.hex) } == [["7031"], ["7032"], ["7033"]])
        #expect(try fixture.freshOrder() == [["7031"], ["7032"], ["7033"]])
        // The U+FFFD section empties; X'C3' keeps its own.
        try fixture.external("DELETE FROM Post WHERE id = 'p3'")
        #expect(fixture.controller.snapshot.map { $0.items.map(Fixture.hex) } == [["7031"], ["7032"]])
        #expect(fixture.controller.snapshot.map(\.id).map(Fixture.hex) == ["61", "C3"])
    }

    @Test func aChangeOfInvalidBytesIsAnUpdate() throws {
        let fixture = try Fixture(sort: [SortKey("rank")], titles: ["p1": "CAST(X'C5' AS TEXT)"])
        _ = fixture.recorder.takeGroups()
        try fixture.external("UPDATE Post SET title = CAST(X'C2' AS TEXT) WHERE id = 'p1'")
        let groups = fixture.recorder.takeGroups()
        #expect(groups == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p1", from: IndexPath(item: 0, section: 0), to: IndexPath(item: 0, section: 0)),
        ])])
    }

    @Test func aKeyThatIsNotValidUTF8RoundTrips() throws {
        let fixture = try Fixture(sort: [SortKey("id")], titles: ["p1": "'a'"])
        try fixture.external("INSERT INTO Post(id, title) VALUES (CAST(X'70C3' AS TEXT), 'b'), (CAST(X'70EFBFBD' AS TEXT), 'c')")
        #expect(fixture.liveOrder() == ["7031", "70C3", "70EFBFBD"])
        let key = fixture.controller.snapshot[0].items[1]
        #expect(Fixture.hex(key) == "70C3")
        #expect(try fixture.store.fetch("Post", key: key)?["title"] == "b")
        try fixture.store.update("Post", key: key, ["title": "B"])
        #expect(try fixture.sqliteOrder("id") == ["7031", "70C3", "70EFBFBD"])
        try fixture.store.delete("Post", key: key)
        #expect(fixture.liveOrder() == ["7031", "70EFBFBD"])
        #expect(try fixture.sqliteOrder("id") == ["7031", "70EFBFBD"])
    }

    @Test func aValueIsItsBytes() {
        let lone: Value = .invalidUTF8([0xC3])
        #expect(lone != "\u{FFFD}")
        #expect(lone.type == .string)
        #expect(lone.textBytes == [0xC3])
        #expect(lone.description == "<invalid UTF-8 c3>")
        #expect(Value(textBytes: [0xC3]) == lone)
        #expect(Value(textBytes: Array("é".utf8)) == "é")
        if case .invalidUTF8 = Value(textBytes: [0xEF, 0xBF, 0xBD]) { Issue.record("U+FFFD is valid UTF-8") }
        // Equal bytes are equal values, whichever case holds them, and hash alike.
        #expect(Value.invalidUTF8(Array("ab".utf8)) == "ab")
        #expect(Value.invalidUTF8(Array("ab".utf8)).hashValue == Value.string("ab").hashValue)
        #expect(Set<Value>([lone, "\u{FFFD}", .invalidUTF8([0xC5]), .invalidUTF8([0xC2]), .invalidUTF8([0xC3])]).count == 4)
        // SQLite's BINARY order: bytes as unsigned numbers, then the shorter first.
        let ordered: [Value] = [nil, 1, "", "A", "a", .invalidUTF8([0x61, 0xC3]), .invalidUTF8([0x80]), .invalidUTF8([0xC2]), lone, "é",
                                .invalidUTF8([0xC3, 0xA9, 0xA9]), .invalidUTF8([0xC5]), "\u{FFFD}", .invalidUTF8([0xFF])]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(Value.compare(a, b) == (i < j ? -1 : (i > j ? 1 : 0)), "\(a) against \(b)")
            }
        }
        // [c] folds the valid scalars and keeps the invalid bytes as they are.
        #expect(TextFolding.caseInsensitive.fold(.invalidUTF8([0x41, 0xC3])) == .invalidUTF8([0x61, 0xC3]))
        #expect(TextFolding.caseInsensitive.fold(.invalidUTF8([0xFF] + Array("ẞ".utf8))) == .invalidUTF8([0xFF, 0x73, 0x73]))
    }

    @Test func textThatIsNotValidUTF8IsWrittenBackByteForByte() throws {
        let store = try postStore()
        try store.insert("Post", ["id": .invalidUTF8([0x70, 0xC3]), "title": .invalidUTF8([0xFF, 0x61]), "day": .invalidUTF8([])])
        let object = try #require(try store.fetch("Post", key: .invalidUTF8([0x70, 0xC3])))
        #expect(object["title"] == .invalidUTF8([0xFF, 0x61]))
        // Empty bytes are empty text, not null.
        #expect(object["day"] == "")
        #expect(try store.fetch("Post", key: "p\u{FFFD}") == nil)
        try store.update("Post", key: .invalidUTF8([0x70, 0xC3]), ["title": .invalidUTF8([0xC2])])
        #expect(try store.fetch("Post", key: .invalidUTF8([0x70, 0xC3]))?["title"] == .invalidUTF8([0xC2]))
        try store.delete("Post", key: .invalidUTF8([0x70, 0xC3]))
        #expect(try store.fetch("Post", key: .invalidUTF8([0x70, 0xC3])) == nil)
    }

    @Test func predicatesMatchTheBytesAsSQLiteReadsThem() throws {
        let entity = try postEntity()
        func matches(_ format: String, _ title: Value, _ arguments: Value...) throws -> Bool {
            let predicate = try BoundPredicate(QueryPredicate(format: format, arguments: arguments), entity: entity)
            return predicate.evaluate(["p1", title, nil, nil, nil, nil])
        }
        // SQLite reads a lone lead byte as U+FFFD, and a lone continuation byte as the
        // character of its value; equality is by bytes all the same.
        #expect(try matches("title LIKE '\u{FFFD}'", .invalidUTF8([0xC3])))
        #expect(try !matches("title == '\u{FFFD}'", .invalidUTF8([0xC3])))
        #expect(try matches("title LIKE '\u{80}'", .invalidUTF8([0x80])))
        #expect(try matches("title BEGINSWITH[c] 'A'", .invalidUTF8([0x61, 0xC3])))
        #expect(try !matches("title BEGINSWITH 'é'", .invalidUTF8([0xC3, 0xA9, 0xA9])))
        #expect(try matches("title LIKE '?'", .invalidUTF8([0xC3, 0xA9, 0xA9])))
        // Text that is not valid UTF-8 as an argument: compared, and matched, by its bytes.
        #expect(try matches("title == %@", .invalidUTF8([0xC3]), .invalidUTF8([0xC3])))
        #expect(try !matches("title == %@", "\u{FFFD}", .invalidUTF8([0xC3])))
        #expect(try matches("title ENDSWITH %@", .invalidUTF8([0x61, 0xC3]), .invalidUTF8([0xC3])))
        #expect(try matches("title > %@ AND title < 'é'", .invalidUTF8([0xC3]), .invalidUTF8([0xC2])))
        let predicate = try QueryPredicate("title == %@", .invalidUTF8([0xC3]))
        #expect(predicate.description == "title == <invalid UTF-8 c3>")
        #expect(try BoundPredicate(predicate, entity: entity).arguments == [.invalidUTF8([0xC3])])
    }

    struct Note: Record {
        var id: String
        var title: String
    }

    @Test func aRecordPropertyCannotHoldInvalidText() throws {
        let store = try Store.temporary()
        try store.define(Note.self)
        try store.insert(Note(id: "n1", title: "fine"))
        try ExternalConnection(path: store.path).execute("UPDATE Note SET title = CAST(X'61C3' AS TEXT)")
        do {
            _ = try store.fetch(Note.self, key: "n1")
            Issue.record("a String property read text that is not valid UTF-8")
        } catch {
            let message = "\(error)"
            #expect(message.contains("Note.title") && message.contains("61 c3") && message.contains("not valid UTF-8"), "\(message)")
        }
        // The object itself reads fine, as its bytes.
        #expect(try store.fetch("Note", key: "n1")?["title"] == .invalidUTF8([0x61, 0xC3]))
    }
}
