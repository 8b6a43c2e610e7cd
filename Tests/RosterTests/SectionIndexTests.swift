import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The section index, as NSFetchedResultsController gives it: a capitalized first letter
/// per section, each once, and the first section a title stands for.
@Suite("Section index titles")
struct SectionIndexTests {
    func makeController(_ delegate: (any ResultsControllerDelegate<ResultsController>)? = nil) throws -> (Store, ResultsController) {
        let store = try postStore()
        try store.write {
            for (id, day) in [("p1", "apple"), ("p2", "avocado"), ("p3", "banana"), ("p4", "ångström"), ("p5", "")] {
                try store.insert("Post", ["id": .string(id), "day": .string(day), "rank": 1])
            }
            try store.insert("Post", ["id": "p0", "rank": 1])
        }
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")], sectionAttribute: "day"))
        controller.delegate = delegate
        try controller.performFetch()
        return (store, controller)
    }

    @Test func eachSectionGivesItsCapitalizedFirstLetterOnce() throws {
        let (_, controller) = try makeController()
        // Sections: null, "", apple, avocado, banana, ångström (by bytes).
        #expect(controller.snapshot.map(\.id) == [.null, "", "apple", "avocado", "banana", "ångström"])
        #expect(controller.sectionIndexTitles == ["A", "B", "Å"])
        #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 2)
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 4)
        #expect(controller.section(forSectionIndexTitle: "Z", at: 3) == nil)
        #expect(controller.sectionIndexTitle(forSectionName: 42) == "4")
        #expect(controller.sectionIndexTitle(forSectionName: false) == "F")
    }

    final class WholeNames: ResultsControllerDelegate {
        func controller(_ controller: ResultsController, sectionIndexTitleForSectionName name: Value) -> String? {
            if case let .string(text) = name, !text.isEmpty { return text }
            return nil
        }
    }

    @Test func theDelegateCanNameTheTitles() throws {
        let delegate = WholeNames()
        let (_, controller) = try makeController(delegate)
        #expect(controller.sectionIndexTitles == ["apple", "avocado", "banana", "ångström"])
        #expect(controller.section(forSectionIndexTitle: "banana", at: 2) == 4)
    }

    @Test func aWindowIndexesTheSectionsItShows() throws {
        let (_, controller) = try makeController()
        try controller.setWindow(.offset(3, length: 2))
        #expect(controller.snapshot.map(\.id) == ["avocado", "banana"])
        #expect(controller.sectionIndexTitles == ["A", "B"])
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 1)
    }
}
