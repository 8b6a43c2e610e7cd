import Foundation
import Testing
@testable import Roster
import RosterTestSupport

@Suite("Incremental engine")
struct IncrementalEngineTests {
    func makeStore(rows: Int) throws -> Store {
        let store = try postStore()
        try store.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO Post(id, title, day, rank, score, pinned)
            SELECT printf('p%05d', i), 'title ' || i, printf('d%02d', i % 7), i % 13, i * 0.5, i % 2 FROM n
            """)
        return store
    }

    func request() -> FetchRequest {
        FetchRequest(entity: "Post", sortKeys: [SortKey("day", ascending: false), SortKey("rank"), SortKey("id")], sectionAttribute: "day")
    }

    @Test func objectsFarFromTheTopAreLoadedOnDemandAndExact() throws {
        let store = try makeStore(rows: 10_000)
        let controller = try ResultsController(store: store, request: request())
        try controller.performFetch()
        let last = controller.numberOfSections - 1
        let path = IndexPath(item: controller.numberOfObjects(inSection: last) - 1, section: last)
        let object = try #require(controller.object(at: path))
        #expect(object == (try store.fetch("Post", key: object.key)))
        #expect(controller.indexPath(for: object.key) == path)
    }

    /// A query sectioned by its own key has a section per object, named by the key, from
    /// the first fetch on (the fetch counts them as it reads, without comparing names).
    @Test func aQuerySectionedByItsKeyHasASectionPerObject() throws {
        let store = try makeStore(rows: 50)
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("id")], sectionAttribute: "id"))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.numberOfSections == 50)
        #expect(try controller.sections.map(\.name) == (1...50).map { .string(String(format: "p%05d", $0)) })
        #expect(try controller.sections.allSatisfy { $0.objects.count == 1 })
        try store.insert("Post", ["id": "p00000", "title": "first", "day": "d00", "rank": 0, "score": 0.0, "pinned": false])
        #expect(controller.numberOfSections == 51)
        #expect(recorder.takeGroups().first?.sectionChanges == [SectionChange(type: .insert, index: 0, section: "p00000")])
    }

    /// A commit that touches more rows than the row cache holds (4,096): the engine caches
    /// only the last of them, and still never serves an old row — neither to the delegate
    /// nor afterwards, for rows edited in place or moved.
    @Test(arguments: [CommitPath.rowByRow, .resort])
    func aCommitLargerThanTheRowCacheReportsAndKeepsEveryRowCurrent(path: CommitPath) throws {
        let store = try makeStore(rows: 10_000)
        let controller = try ResultsController(store: store, request: request())
        controller.forcedCommitPath = path
        final class Reported: ResultsControllerDelegate {
            var objects: [Object] = []
            func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
                objects.append(object)
            }
        }
        let reported = Reported()
        controller.delegate = reported
        try controller.performFetch()
        // Touch every row first, so that the cache holds old versions of many of them.
        for item in stride(from: 0, to: controller.numberOfObjects(inSection: 0), by: 1) {
            _ = controller.object(at: IndexPath(item: item, section: 0))
        }
        try store.execute("UPDATE Post SET title = title || ' edited' WHERE CAST(substr(id, 2) AS INTEGER) % 5 < 3")
        try store.execute("UPDATE Post SET title = title || ' moved', rank = rank + 1 WHERE CAST(substr(id, 2) AS INTEGER) % 5 >= 3")
        // Every row is reported (an untouched one may move too, when that moves fewer).
        #expect(Set(reported.objects.map(\.key)).count == 10_000)
        for object in reported.objects {
            #expect(object == (try store.fetch("Post", key: object.key)))
        }
        for section in 0..<controller.numberOfSections {
            for item in stride(from: 0, to: controller.numberOfObjects(inSection: section), by: 7) {
                let object = try #require(controller.object(at: IndexPath(item: item, section: section)))
                #expect(object == (try store.fetch("Post", key: object.key)))
            }
        }
    }

    @Test func aDeleteOfARowNeverLoadedStillNamesItsKeyAndSortValues() throws {
        let store = try makeStore(rows: 10_000)
        let controller = try ResultsController(store: store, request: request())
        final class Deleted: ResultsControllerDelegate {
            var objects: [Object] = []
            func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
                if type == .delete { objects.append(object) }
            }
        }
        let deleted = Deleted()
        controller.delegate = deleted
        try controller.performFetch()
        let lastKey = controller.object(at: IndexPath(item: controller.numberOfObjects(inSection: 6) - 1, section: 6))?.key
        try store.delete("Post", key: "p09999")
        #expect(deleted.objects.map(\.key) == ["p09999"])
        #expect(deleted.objects.first?["day"] == "d03")
        _ = lastKey
    }

    @Test func rewritingEveryRowUnchangedReportsNothing() throws {
        let store = try makeStore(rows: 2_000)
        let controller = try ResultsController(store: store, request: request())
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.execute("UPDATE Post SET title = title || '', rank = rank + 0")
        try store.write {
            try store.execute("UPDATE Post SET title = 'x' WHERE id = 'p00001'")
            try store.execute("UPDATE Post SET title = 'title 1' WHERE id = 'p00001'")
        }
        #expect(recorder.takeGroups().isEmpty)
    }

    @Test(arguments: [1, 20, 300, 1_500], [nil, CommitPath.rowByRow, .refetch, .resort])
    func bulkAndSmallChangesAgreeWithRefetchAndDiff(changed: Int, path: CommitPath?) throws {
        let store = try makeStore(rows: 3_000)
        let incremental = try ResultsController(store: store, request: request())
        incremental.forcedCommitPath = path
        let simple = try ResultsController(store: store, request: request(), engine: .refetchAndDiff)
        let a = GroupRecorder(), b = GroupRecorder()
        incremental.delegate = a
        simple.delegate = b
        try incremental.performFetch()
        try simple.performFetch()
        try store.execute("""
            UPDATE Post SET rank = (rank * 7 + 3) % 13, day = CASE WHEN rank % 5 = 0 THEN 'd9' ELSE day END
            WHERE id IN (SELECT id FROM Post ORDER BY (rowid * 7919) % 3001 LIMIT \(changed))
            """)
        try store.execute("DELETE FROM Post WHERE id IN (SELECT id FROM Post ORDER BY (rowid * 104729) % 3001 LIMIT \(changed / 3))")
        let groupsA = a.takeGroups(), groupsB = b.takeGroups()
        #expect(groupsA == groupsB)
        #expect(groupsA.count == (changed >= 3 ? 2 : 1))
        #expect(incremental.snapshot == simple.snapshot)
    }

    /// Renames of whole sections, to new names (moved as blocks) and to names in use, with
    /// other rows of the commit and of the renamed section edited alongside; both engines
    /// and both sort directions hear the same callbacks and hold the same sections.
    @Test(arguments: [false, true], [7, 8] as [UInt64])
    func renamedSectionsAgreeWithRefetchAndDiff(dayAscending: Bool, seed: UInt64) throws {
        let store = try makeStore(rows: 600)
        let request = FetchRequest(entity: "Post", sortKeys: [SortKey("day", ascending: dayAscending), SortKey("rank"), SortKey("id")],
                                   sectionAttribute: "day")
        let incremental = try ResultsController(store: store, request: request)
        incremental.forcedCommitPath = .rowByRow
        let simple = try ResultsController(store: store, request: request, engine: .refetchAndDiff)
        let a = GroupRecorder(), b = GroupRecorder()
        incremental.delegate = a
        simple.delegate = b
        try incremental.performFetch()
        try simple.performFetch()
        var random = SplitMix64(seed: seed)
        var fresh = 0
        for step in 0..<60 {
            let days = try simple.sections.compactMap { section -> String? in
                if case let .string(day) = section.name { return day } else { return nil }
            }
            guard days.count > 1 else { break }
            try store.write {
                // One or two sections renamed: mostly to a name no row has.
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let from = days[Int.random(in: 0..<days.count, using: &random)]
                    fresh += 1
                    let to = Int.random(in: 0..<4, using: &random) == 0
                        ? days[Int.random(in: 0..<days.count, using: &random)]
                        : String(format: "d%02d.%d", Int.random(in: 0..<20, using: &random), fresh)
                    try store.execute("UPDATE Post SET day = ? WHERE day = ?", arguments: [.string(to), .string(from)])
                    if Int.random(in: 0..<4, using: &random) == 0 {
                        // A row of the renamed section also changes its place in it.
                        try store.execute("UPDATE Post SET rank = rank + 7 WHERE id = (SELECT id FROM Post WHERE day = ? ORDER BY id LIMIT 1)",
                                          arguments: [.string(to)])
                    }
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        // A new row joins the new name (first, last or between the block's rows).
                        fresh += 1
                        try store.insert("Post", ["id": .string(String(format: "n%05d", fresh)), "title": "new", "day": .string(to),
                                                  "rank": .integer(Int64.random(in: -1..<14, using: &random)), "score": 0, "pinned": false])
                    }
                }
                if Int.random(in: 0..<2, using: &random) == 0 {
                    let id = "p" + String(format: "%05d", Int.random(in: 1...600, using: &random))
                    try store.execute("UPDATE Post SET rank = ?, day = ? WHERE id = ?",
                                      arguments: [.integer(Int64.random(in: 0..<13, using: &random)), .string(days[Int.random(in: 0..<days.count, using: &random)]), .string(id)])
                }
                if Int.random(in: 0..<5, using: &random) == 0 {
                    try store.execute("DELETE FROM Post WHERE id = (SELECT id FROM Post ORDER BY (rowid * 7919 + ?) % 601 LIMIT 1)",
                                      arguments: [.integer(Int64(step))])
                }
            }
            let groupsA = a.takeGroups(), groupsB = b.takeGroups()
            #expect(groupsA == groupsB, "seed \(seed), step \(step)")
            #expect(incremental.snapshot == simple.snapshot, "seed \(seed), step \(step)")
            if groupsA != groupsB { return }
        }
        #expect(a.callbackOrderProblems.isEmpty)
    }
}
