import Foundation
import Testing
@testable import Roster
import RosterTestSupport

@Suite("Results controller")
struct ResultsControllerTests {
    /// A store with posts over two days, and a live query newest day first, by rank.
    /// The store, the controller (which must be kept alive to keep reporting) and its recorder.
    final class Feed {
        let store: Store
        let controller: ResultsController
        let recorder: GroupRecorder
        init(_ store: Store, _ controller: ResultsController, _ recorder: GroupRecorder) {
            self.store = store
            self.controller = controller
            self.recorder = recorder
        }
    }

    func makeFeed() throws -> Feed {
        let store = try postStore()
        try store.write {
            try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1, "title": "a"])
            try store.insert("Post", ["id": "p2", "day": "d1", "rank": 2, "title": "b"])
            try store.insert("Post", ["id": "p3", "day": "d2", "rank": 1, "title": "c"])
        }
        let controller = try ResultsController(store: store, request: FetchRequest(
            entity: "Post",
            sortKeys: [SortKey("day", ascending: false), SortKey("rank")],
            sectionAttribute: "day"))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return Feed(store, controller, recorder)
    }

    @Test func performFetchGivesSectionsInOrder() throws {
        let feed = try makeFeed()
        let controller = feed.controller, recorder = feed.recorder
        #expect(controller.snapshot == sections([("d2", ["p3"]), ("d1", ["p1", "p2"])]))
        #expect(controller.numberOfSections == 2)
        #expect(controller.object(at: IndexPath(item: 1, section: 1))?.key == "p2")
        #expect(controller.indexPath(for: "p2") == IndexPath(item: 1, section: 1))
        #expect(controller.indexPath(for: "p9") == nil)
        #expect(try controller.sections.map(\.name) == ["d2", "d1"])
        #expect(try controller.fetchedObjects.map(\.key) == ["p3", "p1", "p2"])
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test func beforePerformFetchTheControllerHoldsNothingAndHearsNothing() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "day": "d1", "rank": 1])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        #expect(!controller.hasFetched)
        #expect(controller.numberOfObjects == 0 && controller.numberOfSections == 0)
        #expect(controller.snapshot.isEmpty && controller.object(at: IndexPath(item: 0, section: 0)) == nil)
        #expect(try controller.fetchedObjects.isEmpty)
        try store.insert("Post", ["id": "p2", "day": "d1", "rank": 2])
        #expect(recorder.takeGroups().isEmpty, "a controller that has not fetched reports nothing")
        try controller.setSortKeys([SortKey("rank", ascending: false)])
        try controller.performFetch()
        #expect(controller.hasFetched)
        #expect(try controller.fetchedObjects.map(\.key) == ["p2", "p1"], "the request set before the fetch is the one fetched")
    }

    @Test func aSectionOutsideTheResultsHasNoObjects() throws {
        let feed = try makeFeed()
        #expect(feed.controller.numberOfObjects(inSection: 2) == 0)
        #expect(feed.controller.numberOfObjects(inSection: -1) == 0)
        #expect(feed.controller.numberOfObjects(inSection: 1) == 2)
    }

    @Test func anInsertIntoANewSectionReportsTheSectionAndTheObject() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.insert("Post", ["id": "p4", "day": "d3", "rank": 5])
        #expect(recorder.takeGroups() == [ChangeGroup(
            sectionChanges: [SectionChange(type: .insert, index: 0, section: "d3")],
            objectChanges: [ObjectChange(type: .insert, item: "p4", from: nil, to: IndexPath(item: 0, section: 0))])])
    }

    @Test func aChangeThatMovesAnObjectIsAMoveNotAnUpdate() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.update("Post", key: "p1", ["rank": 3])
        let groups = recorder.takeGroups()
        #expect(groups.count == 1)
        let moves = groups[0].objectChanges.filter { $0.type == .move }
        #expect(moves.count == 1)
        #expect(groups[0].objectChanges.allSatisfy { $0.type == .move })
    }

    @Test func aChangeThatKeepsThePlaceIsAnUpdateWithBothPaths() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.update("Post", key: "p2", ["title": "new"])
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 1), to: IndexPath(item: 1, section: 1)),
        ])])
    }

    @Test func writesThatChangeNoValueReportNothing() throws {
        let feed = try makeFeed()
        let store = feed.store, controller = feed.controller, recorder = feed.recorder
        try store.update("Post", key: "p2", ["title": "b", "rank": 2])
        try store.execute("UPDATE Post SET rank = rank")
        try store.write {
            try store.update("Post", key: "p1", ["title": "changed"])
            try store.update("Post", key: "p1", ["title": "a"])
        }
        #expect(recorder.takeGroups().isEmpty)
        #expect(controller.snapshot == sections([("d2", ["p3"]), ("d1", ["p1", "p2"])]))
    }

    @Test func deletedAndInsertedAgainWithOtherValuesIsAnUpdate() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.write {
            try store.delete("Post", key: "p2")
            try store.insert("Post", ["id": "p2", "day": "d1", "rank": 2, "title": "B"])
        }
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .update, item: "p2", from: IndexPath(item: 1, section: 1), to: IndexPath(item: 1, section: 1)),
        ])])
    }

    @Test func rawSQLThatChangesAKeyIsADeleteAndAnInsert() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.execute("UPDATE Post SET id = 'p0' WHERE id = 'p3'")
        let group = try #require(recorder.takeGroups().first)
        #expect(Set(group.objectChanges.map(\.type)) == [.insert, .delete])
        #expect(group.objectChanges.contains(ObjectChange(type: .delete, item: "p3", from: IndexPath(item: 0, section: 0), to: nil)))
        #expect(group.objectChanges.contains(ObjectChange(type: .insert, item: "p0", from: nil, to: IndexPath(item: 0, section: 0))))
    }

    @Test func aRolledBackTransactionReportsNothing() throws {
        let feed = try makeFeed()
        let store = feed.store, controller = feed.controller, recorder = feed.recorder
        try store.beginTransaction()
        try store.delete("Post", key: "p1")
        try store.insert("Post", ["id": "p9", "day": "d9"])
        try store.rollback()
        #expect(recorder.takeGroups().isEmpty)
        #expect(controller.numberOfObjects == 3)
    }

    @Test func aTransactionIsReportedOnceAtCommit() throws {
        let feed = try makeFeed()
        let store = feed.store, recorder = feed.recorder
        try store.beginTransaction()
        try store.delete("Post", key: "p1")
        try store.insert("Post", ["id": "p9", "day": "d1", "rank": 0])
        #expect(recorder.takeGroups().isEmpty)
        try store.commit()
        #expect(recorder.takeGroups().count == 1)
    }

    @Test func externalWritesAreSeenWhenPolled() throws {
        let feed = try makeFeed()
        let store = feed.store, controller = feed.controller, recorder = feed.recorder
        let other = try ExternalConnection(path: store.path)
        try other.execute("DELETE FROM Post WHERE day = 'd2'")
        #expect(recorder.takeGroups().isEmpty)
        #expect(try store.pollExternalChanges())
        #expect(recorder.takeGroups() == [ChangeGroup(
            sectionChanges: [SectionChange(type: .delete, index: 0, section: "d2")],
            objectChanges: [ObjectChange(type: .delete, item: "p3", from: IndexPath(item: 0, section: 0), to: nil)])])
        #expect(controller.snapshot == sections([("d1", ["p1", "p2"])]))
        #expect(try !store.pollExternalChanges())
    }

    @Test func writesFromAnotherProcessAreSeen() throws {
        let feed = try makeFeed()
        let store = feed.store, controller = feed.controller, recorder = feed.recorder
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE Post SET rank = 9 WHERE id = 'p1'\"); c.commit()", store.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        try store.pollExternalChanges()
        #expect(recorder.takeGroups().count == 1)
        #expect(controller.snapshot == sections([("d2", ["p3"]), ("d1", ["p2", "p1"])]))
    }

    @Test func changingTheSortReportsTheReorder() throws {
        let feed = try makeFeed()
        let controller = feed.controller, recorder = feed.recorder
        try controller.setSortKeys([SortKey("day"), SortKey("rank", ascending: false)])
        #expect(controller.snapshot == sections([("d1", ["p2", "p1"]), ("d2", ["p3"])]))
        let group = try #require(recorder.takeGroups().first)
        #expect(try group.apply(to: sections([("d2", ["p3"]), ("d1", ["p1", "p2"])])) == controller.snapshot)
        #expect(!group.objectChanges.contains { $0.type == .update })
    }

    @Test func changingThePredicateReportsTheDifference() throws {
        let feed = try makeFeed()
        let controller = feed.controller, recorder = feed.recorder
        try controller.setPredicate(QueryPredicate("rank == %@", 1))
        #expect(controller.snapshot == sections([("d2", ["p3"]), ("d1", ["p1"])]))
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .delete, item: "p2", from: IndexPath(item: 1, section: 1), to: nil),
        ])])
    }

    @Test func aBadSortOrPredicateChangesNothing() throws {
        let feed = try makeFeed()
        let controller = feed.controller, recorder = feed.recorder
        #expect(throws: StoreError.self) { try controller.setSortKeys([SortKey("nope")]) }
        #expect(throws: StoreError.self) { try controller.setPredicate(QueryPredicate("rank == 'one'")) }
        #expect(controller.snapshot == sections([("d2", ["p3"]), ("d1", ["p1", "p2"])]))
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test func aSortThatDoesNotStartWithTheSectionAttributeSortsSectionsAscending() throws {
        let feed = try makeFeed()
        try feed.controller.setSortKeys([SortKey("rank", ascending: false)])
        #expect(feed.controller.snapshot == sections([("d1", ["p2", "p1"]), ("d2", ["p3"])]))
        #expect(feed.controller.request.sortKeys == [SortKey("rank", ascending: false)])
    }

    @Test func aQueryWithoutSectionsHasOneUnnamedSectionOrNone() throws {
        let store = try postStore()
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.snapshot.isEmpty)
        try store.insert("Post", ["id": "p1", "rank": 1])
        #expect(controller.snapshot == sections([(nil, ["p1"])]))
        #expect(recorder.takeGroups().first?.sectionChanges == [SectionChange(type: .insert, index: 0, section: nil)])
    }

    @Test func aDelegateThatWritesDuringACallbackGetsTheNextGroupAfterward() throws {
        let feed = try makeFeed()
        let store = feed.store, controller = feed.controller
        final class Writer: ResultsControllerDelegate {
            let store: Store
            var groups = 0
            var depth = 0
            var maximumDepth = 0
            init(store: Store) { self.store = store }
            func controllerDidChangeContent(_ controller: ResultsController) {
                groups += 1
                depth += 1
                maximumDepth = max(maximumDepth, depth)
                if groups == 1 { try? store.insert("Post", ["id": "p8", "day": "d1"]) }
                depth -= 1
            }
        }
        let writer = Writer(store: store)
        controller.delegate = writer
        try store.insert("Post", ["id": "p7", "day": "d1"])
        #expect(writer.groups == 2)
        #expect(writer.maximumDepth == 1)
        #expect(controller.indexPath(for: "p8") != nil)
    }

    @Test func aSectionsTitleIsItsNameAsText() throws {
        let store = try Store.temporary()
        try store.define(Entity("Item", key: "id", attributes: [Attribute("id", .string), Attribute("group", .integer), Attribute("flag", .bool)]))
        try store.insert("Item", ["id": "a", "group": 7, "flag": true])
        try store.insert("Item", ["id": "b", "flag": false])
        let byGroup = try ResultsController(store: store, request: FetchRequest(entity: "Item", sortKeys: [SortKey("group")], sectionAttribute: "group"))
        try byGroup.performFetch()
        #expect(try byGroup.sections.map(\.title) == ["", "7"])
        let byFlag = try ResultsController(store: store, request: FetchRequest(entity: "Item", sortKeys: [SortKey("flag")], sectionAttribute: "flag"))
        try byFlag.performFetch()
        #expect(try byFlag.sections.map(\.title) == ["NO", "YES"])
        #expect(byFlag.counts?.sections.map(\.title) == ["NO", "YES"])
        #expect(Value.string("é").text == "é" && Value.double(2.5).text == "2.5" && Value.null.text == nil)
        #expect(Value.invalidUTF8([0x61, 0xC3]).text == "a\u{FFFD}")
    }
}
