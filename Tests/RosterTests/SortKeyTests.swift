import RosterTestSupport
import Testing
@testable import Roster

@Suite("BoundSort orders rows as SQLite's ORDER BY")
struct SortDescriptorTests {
    static let entity = try! Entity("Post", key: "id", attributes: [
        Attribute("id", .string), Attribute("day", .string), Attribute("rank", .integer),
        Attribute("score", .double), Attribute("pinned", .bool),
    ])

    @Test("the key is appended ascending as the last tie-breaker")
    func keyIsAppended() throws {
        let sort = try BoundSort([SortKey("day", ascending: false), SortKey("rank")], entity: Self.entity)
        #expect(sort.orderBySQL == #""day" COLLATE BINARY DESC, "rank" COLLATE BINARY ASC, "id" COLLATE BINARY ASC"#)
        #expect(sort.attributeIndexes == [1, 2, 0])
        #expect(sort.ascending == [false, true, true])
    }

    @Test("a list that already names the key, or names an attribute twice, is not extended")
    func keyAndDuplicatesAreNotRepeated() throws {
        let sort = try BoundSort([SortKey("id", ascending: false), SortKey("day"),
                                  SortKey("id")], entity: Self.entity)
        #expect(sort.orderBySQL == #""id" COLLATE BINARY DESC, "day" COLLATE BINARY ASC"#)
        let empty = try BoundSort([], entity: Self.entity)
        #expect(empty.orderBySQL == #""id" COLLATE BINARY ASC"#)
    }

    @Test("an unknown attribute is an error naming it and the entity")
    func unknownAttribute() {
        let error = #expect(throws: SchemaError.self) {
            try BoundSort([SortKey("dya")], entity: Self.entity)
        }
        #expect(error?.message == "sort: entity 'Post' has no attribute 'dya'")
    }

    @Test("random rows with nulls sort the same in SQLite and in Swift, by rows and by sort keys",
          arguments: [7, 8, 9] as [UInt64])
    func randomRowsAgree(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try QueryTestDatabase()
        try database.createTable(for: Self.entity)
        let rows: [[Value]] = (0..<300).map { key in
            [
                .string("k\(key)"),
                random.chance(0.2) ? .null : .string(random.pick(["", "2026-11-20", "2026-11-21", "B", "b", "é"])),
                random.chance(0.2) ? .null : random.pick([.integer(Int64.random(in: -2...2, using: &random)),
                                                         .integer(9_007_199_254_740_993), .integer(Int64.min)]),
                random.chance(0.2) ? .null : random.pick([.double(Double(Int.random(in: -4...4, using: &random)) / 2),
                                                         .double(9_007_199_254_740_992), .double(-.infinity)]),
                random.chance(0.2) ? .null : .bool(random.chance(0.5)),
            ]
        }
        try database.insert(rows, into: Self.entity)
        let types = Self.entity.attributes.map(\.type)
        let stored = try database.rows("SELECT * FROM Post", types: types)
        let names = Self.entity.attributes.map(\.name)
        for _ in 0..<20 {
            var descriptors: [SortKey] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                descriptors.append(SortKey(random.pick(names), ascending: random.chance(0.5)))
            }
            let sort = try BoundSort(descriptors, entity: Self.entity)
            let sqlite = try database.rows("SELECT * FROM Post ORDER BY \(sort.orderBySQL)", types: types)
            let byRows = stored.sorted { sort.compare($0, $1) < 0 }
            let byKeys = stored.map { (sort.sortKey(of: $0), $0) }
                .sorted { sort.compareKeys($0.0, $1.0) < 0 }.map(\.1)
            #expect(byRows == sqlite, "ORDER BY \(sort.orderBySQL)")
            #expect(byKeys == sqlite, "ORDER BY \(sort.orderBySQL), by sort keys")
        }
    }
}
