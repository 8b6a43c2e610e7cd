import Foundation
import Testing
@testable import Roster
import RosterTestSupport
import RosterUpdates

/// The re-fetch path of a bulk commit diffs two engines by their ids
/// (`IncrementalResults.change(from:to:touched:)`) instead of diffing snapshots of keys: it
/// must give exactly the group ``SnapshotDiff`` gives for the same two results.
@Suite("Bulk diff by ids")
struct BulkDiffTests {
    static func request() throws -> FetchRequest {
        FetchRequest(entity: "Post", predicate: try QueryPredicate("pinned == NO OR rank < 9"),
                     sortKeys: [SortKey("day", ascending: false), SortKey("rank"), SortKey("id")], sectionAttribute: "day")
    }

    /// Random tables and random bulk commits — inserts, deletes, moves within and across
    /// sections, rows entering and leaving the predicate, values changed in place, values
    /// written back unchanged — against an engine whose ids were already scrambled by a
    /// first commit applied row by row.
    @Test(arguments: 0..<24)
    func theDiffByIdsIsTheSnapshotDiff(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ 17)
        let store = try postStore()
        let query = try store.bind(Self.request())
        var table: [Value: [Value]] = [:]
        for index in 0..<Int.random(in: 20...400, using: &random) {
            let row = Self.randomRow(key: index, using: &random)
            table[row[0]] = row
        }
        try write(table, to: store)

        let old = IncrementalResults(query: query, rows: try store.fetchCommittedRows(query), loader: { _ in [:] })
        // A first commit applied row by row, so that ids no longer follow the order.
        let (scrambled, firstTouched) = Self.mutate(table, share: 0.2, firstNewKey: 10_000, using: &random)
        try write(scrambled, to: store)
        _ = old.apply(touched: firstTouched)

        let share = [0.02, 0.1, 0.3, 0.6, 1.0][seed % 5]
        let (final, touched) = Self.mutate(scrambled, share: share, firstNewKey: 20_000, using: &random)
        try write(final, to: store)
        let new = IncrementalResults(query: query, rows: try store.fetchCommittedRows(query), loader: { _ in [:] })

        let expected = SnapshotDiff.changes(from: old.snapshot, to: new.snapshot, isUpdated: { touched[$0]?.isChanged ?? false })
        let change = IncrementalResults.change(from: old, to: new, touched: touched)
        #expect((change?.group ?? ChangeGroup()) == expected)
        for object in expected.objectChanges where object.type == .delete {
            #expect(change?.removedRows[object.item] == touched[object.item]?.before)
        }
        let oldSnapshot = old.snapshot
        for section in expected.sectionChanges where section.type == .delete {
            #expect(change?.oldSectionCounts[section.index] == oldSnapshot[section.index].items.count)
        }
    }

    /// Replaces the store's posts with `table`.
    private func write(_ table: [Value: [Value]], to store: Store) throws {
        try store.execute("DELETE FROM Post")
        for row in table.values {
            try store.execute("INSERT INTO Post(id, title, day, rank, score, pinned) VALUES (?, ?, ?, ?, ?, ?)", arguments: row)
        }
    }

    private static func randomRow(key: Int, using random: inout SplitMix64) -> [Value] {
        [.string(String(format: "p%04d", key)), .string("t\(Int.random(in: 0..<3, using: &random))"),
         .string("d\(Int.random(in: 0..<5, using: &random))"), .integer(Int64.random(in: 0..<12, using: &random)),
         .double(0.5), .integer(Int64.random(in: 0..<2, using: &random))]
    }

    /// The table after a commit that touches about `share` of its rows, and the touched rows.
    private static func mutate(_ table: [Value: [Value]], share: Double, firstNewKey: Int, using random: inout SplitMix64)
        -> ([Value: [Value]], [Value: TouchedRow]) {
        var result = table
        var touched: [Value: TouchedRow] = [:]
        for (key, row) in table.sorted(by: { Value.compare($0.key, $1.key) < 0 }) where Double.random(in: 0..<1, using: &random) < share {
            var after: [Value]? = row
            switch Int.random(in: 0..<6, using: &random) {
            case 0: after = nil
            case 1: after?[2] = .string("d\(Int.random(in: 0..<6, using: &random))")
            case 2: after?[3] = .integer(Int64.random(in: 0..<12, using: &random))
            case 3: after?[1] = .string("edited")
            case 4: after?[5] = .integer(1 - (row[5] == .integer(1) ? 1 : 0))
            default: break   // written back as it was
            }
            result[key] = after
            touched[key] = TouchedRow(before: row, after: after)
        }
        for index in 0..<Int(Double(table.count) * share / 4) {
            let row = randomRow(key: firstNewKey + index, using: &random)
            result[row[0]] = row
            touched[row[0]] = TouchedRow(before: nil, after: row)
        }
        return (result, touched)
    }
}
