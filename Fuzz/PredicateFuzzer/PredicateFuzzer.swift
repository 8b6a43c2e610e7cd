import CRosterText
import CSQLite
import Roster
import RosterFuzzSupport

// Fuzzes the predicate parser and binder: each input is a predicate's text.
//
// For each input: `QueryPredicate(format:arguments:)` (with no arguments, and again with
// one argument per `%@`/`%K` when the text has any), then for each predicate that parses:
// - its description parses back to an equal predicate (`QueryPredicate`'s promise);
// - `BoundPredicate(_:entity:)` against a fixed entity;
// - for each predicate that binds: SQLite's `WHERE` over the bound SQL and
//   `BoundPredicate.evaluate(_:)` select the same rows of a small fixed table.
// Errors thrown by the parser or binder are fine; a trap, or a property that fails, is a
// finding.

@main
enum PredicateFuzzer {
    static func main() {
        FuzzEntry.main(corpus: "predicate", summary: {
            "\(counts.parsed) predicates parsed, \(counts.bound) bound and compared with SQLite (\(counts.selective) selecting some rows but not all)"
        }) { data, size in testOneInput(data, size) }
    }
}

#if ROSTER_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { testOneInput(data, size) }
#endif

/// The entity every predicate is bound to: each type, nulls allowed, one attribute named
/// like a keyword (written `#in`).
let entity = try! Entity("T", key: "k", attributes: [
    Attribute("k", .integer), Attribute("s", .string), Attribute("t", .string),
    Attribute("i", .integer), Attribute("d", .double), Attribute("b", .bool), Attribute("in", .string),
])

/// Values handed to `%@`, in turn.
let argumentValues: [Value] = [
    .integer(2), .string("a*"), .double(1.5), .null, .bool(true), .string("é"),
    .integer(Int64.min), .double(-.infinity), .string(""), .integer(0),
]

/// Attribute names handed to `%K`, in turn.
let argumentNames: [Value] = [.string("s"), .string("i"), .string("d"), .string("b"), .string("in"), .string("nope")]

/// How far the inputs got, for the replay's summary.
nonisolated(unsafe) var counts = (parsed: 0, bound: 0, selective: 0)

/// The fixed table, read back from SQLite so that both sides see the same stored values.
nonisolated(unsafe) let table = FixedTable()

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // Beyond PredicateLimits.maxLength the parser refuses at once; longer inputs add nothing.
    guard let data, size <= 8_192 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    check(text, arguments: [])
    let arguments = placeholderArguments(text)
    if !arguments.isEmpty { check(text, arguments: arguments) }
    return 0
}

/// One argument per `%@` and `%K` in the text, in order (strings included: the parser
/// then reports too many arguments, which is fine).
func placeholderArguments(_ text: String) -> [Value] {
    var arguments: [Value] = []
    var previousWasPercent = false
    for byte in text.utf8 {
        if previousWasPercent {
            if byte == UInt8(ascii: "@") { arguments.append(argumentValues[arguments.count % argumentValues.count]) }
            if byte == UInt8(ascii: "K") || byte == UInt8(ascii: "k") { arguments.append(argumentNames[arguments.count % argumentNames.count]) }
            previousWasPercent = false
        } else {
            previousWasPercent = byte == UInt8(ascii: "%")
        }
    }
    return arguments
}

func check(_ text: String, arguments: [Value]) {
    let predicate: QueryPredicate
    do { predicate = try QueryPredicate(format: text, arguments: arguments) } catch { return }
    counts.parsed += 1
    let description = predicate.description
    let reparsed: QueryPredicate
    do {
        reparsed = try QueryPredicate(format: description, arguments: [])
    } catch {
        fuzzCheck(false, "the description of \(debug(text)) does not parse: \(debug(description)): \(error)")
        return
    }
    fuzzCheck(reparsed == predicate, "\(debug(text)) prints as \(debug(description)), which parses to another predicate")
    let bound: BoundPredicate
    do { bound = try BoundPredicate(predicate, entity: entity) } catch { return }
    let swift = table.rows.filter(bound.evaluate).map { $0[0] }
    guard let sqlite = table.keys(where: bound.sql, bound.arguments) else {
        fuzzCheck(false, "SQLite refused the SQL of \(debug(text)): \(bound.sql) \(bound.arguments): \(table.lastError)")
        return
    }
    counts.bound += 1
    if !swift.isEmpty && swift.count < table.rows.count { counts.selective += 1 }
    fuzzCheck(Set(sqlite) == Set(swift), "\(debug(text)): SQLite selects \(sqlite), evaluate selects \(swift); sql: \(bound.sql) \(bound.arguments)")
}

func debug(_ text: String) -> String { String(reflecting: text) }

/// A small STRICT table laid out as the store lays out `entity`, in memory.
final class FixedTable {
    let handle: OpaquePointer
    var rows: [[Value]] = []
    var lastError = ""

    init() {
        var db: OpaquePointer?
        guard sqlite3_open(":memory:", &db) == SQLITE_OK, let db else { fatalError("cannot open SQLite in memory") }
        handle = db
        // [c], [d] and [cd] fold in SQL with the store's own function.
        guard roster_fold_register(db) == SQLITE_OK else { fatalError("cannot register roster_fold") }
        // String operators match whole texts in SQL with the store's own function.
        guard GlobFunction.register(on: db) == SQLITE_OK else { fatalError("cannot register \(GlobFunction.name)") }
        let columns = entity.attributes.enumerated().map { index, attribute in
            let check = attribute.type == .bool ? " CHECK (\"\(attribute.name)\" IN (0, 1))" : ""
            return "\"\(attribute.name)\" \(attribute.type.columnType)\(check)" + (index == entity.keyIndex ? " NOT NULL PRIMARY KEY" : "")
        }
        execute("CREATE TABLE T(\(columns.joined(separator: ", "))) STRICT")
        let strings: [Value] = [.null, .string(""), .string("a"), .string("A"), .string("abc"), .string("a*b?c"),
                                .string("[x]"), .string("é"), .string("e\u{301}"), .string("ß"), .string("日本"),
                                .string("it's"), .string("back\\slash"), .string("%_"), .string("SS"), .string("Σίσυφος"),
                                .string("ΣΊΣΥΦΟΣ"), .string("İstanbul"), .string("ﬃ"), .string("한글")]
        let integers: [Value] = [.null, .integer(0), .integer(1), .integer(-1), .integer(2), .integer(Int64.max),
                                 .integer(Int64.min), .integer(9_007_199_254_740_993)]
        let doubles: [Value] = [.null, .double(0), .double(-0.0), .double(1.5), .double(2), .double(-2.5),
                                .double(.infinity), .double(-.infinity), .double(9_223_372_036_854_775_808), .double(1e-300)]
        let bools: [Value] = [.null, .bool(false), .bool(true)]
        for key in 0..<40 {
            let row: [Value] = [
                .integer(Int64(key)), strings[key % strings.count], strings[(key * 7 + 3) % strings.count],
                integers[key % integers.count], doubles[(key * 3) % doubles.count], bools[key % bools.count],
                strings[(key * 5 + 1) % strings.count],
            ]
            insert(row)
        }
        rows = select("SELECT * FROM T", [])
    }

    func execute(_ sql: String) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            fatalError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    func insert(_ row: [Value]) {
        let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
        guard let statement = prepare("INSERT INTO T VALUES (\(marks))", row) else { fatalError(lastError) }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(handle))) }
    }

    /// The keys of the rows where `condition` holds, or nil when SQLite refuses it.
    func keys(where condition: String, _ arguments: [Value]) -> [Value]? {
        guard let statement = prepare("SELECT k FROM T WHERE \(condition)", arguments) else { return nil }
        defer { sqlite3_finalize(statement) }
        var keys: [Value] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return keys }
            guard code == SQLITE_ROW else { lastError = String(cString: sqlite3_errmsg(handle)); return nil }
            keys.append(.integer(sqlite3_column_int64(statement, 0)))
        }
    }

    /// Every row, each column read as its attribute's type.
    func select(_ sql: String, _ arguments: [Value]) -> [[Value]] {
        guard let statement = prepare(sql, arguments) else { fatalError(lastError) }
        defer { sqlite3_finalize(statement) }
        var rows: [[Value]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(entity.attributes.indices.map { column in
                let index = Int32(column)
                if sqlite3_column_type(statement, index) == SQLITE_NULL { return .null }
                let type = entity.attributes[column].type
                if type == .string { return .string(String(cString: sqlite3_column_text(statement, index))) }
                if type == .integer { return .integer(sqlite3_column_int64(statement, index)) }
                if type == .double { return .double(sqlite3_column_double(statement, index)) }
                return .bool(sqlite3_column_int64(statement, index) != 0)
            })
        }
        return rows
    }

    func prepare(_ sql: String, _ arguments: [Value]) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            lastError = String(cString: sqlite3_errmsg(handle))
            return nil
        }
        guard Int(sqlite3_bind_parameter_count(statement)) == arguments.count else {
            lastError = "\(sqlite3_bind_parameter_count(statement)) parameters for \(arguments.count) arguments"
            sqlite3_finalize(statement)
            return nil
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            // Not a switch: Value may gain cases, which this table never holds.
            if case let .integer(number) = value {
                sqlite3_bind_int64(statement, index, number)
            } else if case let .double(number) = value {
                sqlite3_bind_double(statement, index, number)
            } else if case let .bool(flag) = value {
                sqlite3_bind_int64(statement, index, flag ? 1 : 0)
            } else if case let .string(text) = value {
                // By length, as Roster binds: a string may hold NUL characters.
                _ = Array(text.utf8CString).withUnsafeBufferPointer { buffer in
                    sqlite3_bind_text64(statement, index, buffer.baseAddress, UInt64(buffer.count - 1), csqlite_transient, UInt8(SQLITE_UTF8))
                }
            } else if value.isNull {
                sqlite3_bind_null(statement, index)
            } else {
                lastError = "cannot bind \(value)"
                sqlite3_finalize(statement)
                return nil
            }
        }
        return statement
    }
}
