import Foundation
import Testing
import RosterTestSupport
@testable import Roster

/// Helpers of the predicate tests' random cases, on the shared seeded generator.
extension SplitMix64 {
    /// A random element of a non-empty array.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &self)] }

    /// True with the given probability.
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }

    /// A string of up to `maxLength` fragments chosen from `fragments`.
    mutating func string(from fragments: [String], maxLength: Int) -> String {
        (0..<Int.random(in: 0...maxLength, using: &self)).map { _ in pick(fragments) }.joined()
    }
}

/// A database file in a fresh temporary directory, removed with the value.
final class QueryTestDatabase {
    let directory: URL
    let connection: Connection

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("roster-query-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        connection = try Connection(path: directory.appendingPathComponent("test.sqlite").path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Creates the STRICT table of an entity, as the store lays it out.
    func createTable(for entity: Entity) throws {
        let columns = entity.attributes.enumerated().map { index, attribute in
            "\(Identifier.quoted(attribute.name)) \(attribute.type.columnType)"
                + (index == entity.keyIndex ? " PRIMARY KEY NOT NULL" : "")
        }
        try connection.execute("CREATE TABLE \(Identifier.quoted(entity.name))(\(columns.joined(separator: ", "))) STRICT")
    }

    /// Inserts rows (values in attribute order) into an entity's table.
    func insert(_ rows: [[Value]], into entity: Entity) throws {
        let marks = Array(repeating: "?", count: entity.attributes.count).joined(separator: ", ")
        let statement = try connection.prepare("INSERT INTO \(Identifier.quoted(entity.name)) VALUES (\(marks))")
        try connection.execute("BEGIN")
        for row in rows {
            try statement.bind(row)
            try statement.step()
        }
        try connection.execute("COMMIT")
    }

    /// Every row of the query, each column read as the given attribute type.
    func rows(_ sql: String, _ arguments: [Value] = [], types: [AttributeType]) throws -> [[Value]] {
        let statement = try connection.prepare(sql)
        try statement.bind(arguments)
        var rows: [[Value]] = []
        while try statement.step() {
            rows.append(types.indices.map { statement.column($0, as: types[$0]) })
        }
        return rows
    }

    /// Expects SQLite's `WHERE` over the entity's table and `evaluate` over `rows` (read back
    /// from that table) to select the same keys, naming both sides' extra keys when they
    /// differ; returns the keys SQLite selected.
    @discardableResult
    func expectSameKeys(_ bound: BoundPredicate, rows: [[Value]], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Value] {
        let keyColumn = Identifier.quoted(bound.entity.attributes[bound.entity.keyIndex].name)
        let sqlite = try column("SELECT \(keyColumn) FROM \(Identifier.quoted(bound.entity.name)) WHERE \(bound.sql)", bound.arguments)
        let swift = rows.filter(bound.evaluate).map { $0[bound.entity.keyIndex] }
        let (onlySQLite, onlySwift) = (Set(sqlite).subtracting(swift), Set(swift).subtracting(sqlite))
        #expect(onlySQLite.isEmpty && onlySwift.isEmpty,
                "\(bound.predicate)\n  sql: \(bound.sql)\n  arguments: \(bound.arguments)\n  only SQLite: \(onlySQLite)\n  only Swift: \(onlySwift)",
                sourceLocation: sourceLocation)
        return sqlite
    }

    /// The first column of every row of the query, as SQLite stores it.
    func column(_ sql: String, _ arguments: [Value] = []) throws -> [Value] {
        let statement = try connection.prepare(sql)
        try statement.bind(arguments)
        var values: [Value] = []
        while try statement.step() { values.append(statement.column(0)) }
        return values
    }
}
