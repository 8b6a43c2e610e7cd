import Foundation
import RosterJSON
import Testing
import Roster
@testable import RosterScript

/// A script's runs of `entity` and `query` lines are defined and tracked in batches
/// (`ScriptRunner+Batches.swift`); the trace must be byte for byte the one the same lines
/// print run one at a time (`run(line:number:)`, which never batches), errors included.
@Suite("Scripts that define many entities")
struct ScriptBatchTests {
    static func entity(_ name: String, _ attributes: String = #""id":"string","title":"string","rank":"integer""#) -> String {
        #"{"op":"entity","name":"\#(name)","key":"id","attributes":{\#(attributes)}}"#
    }

    static func query(_ name: String, on entity: String) -> String {
        #"{"op":"query","name":"\#(name)","entity":"\#(entity)","sort":[["rank","asc"]]}"#
    }

    static func insert(_ entity: String, _ key: String) -> String {
        #"{"op":"insert","entity":"\#(entity)","values":{"id":"\#(key)","title":"T","rank":1}}"#
    }

    static let scripts: [(name: String, lines: [String])] = [
        ("entities and queries alternating, then writes",
         (0..<30).flatMap { [entity("E\($0)"), query("q\($0)", on: "E\($0)")] } + [insert("E0", "a"), insert("E29", "b")]),
        ("entities, then queries, then writes",
         (0..<30).map { entity("E\($0)") } + (0..<30).map { query("q\($0)", on: "E\($0)") } + [insert("E7", "a")]),
        ("bad lines inside a run",
         [entity("A"), "# a comment", "", entity("B"), query("early", on: "C"), entity("C"),
          entity("Bad", #""id":"string","x":"nope""#), entity("a"), entity("D", #""id":"string","c":{"to":"C"}"#),
          query("qa", on: "A"), query("qd", on: "D"), insert("A", "x")]),
        ("a redefinition that adds an attribute, inside a run",
         [entity("A"), entity("B"), query("qa", on: "A"), entity("A", #""id":"string","title":"string","rank":"integer","more":"string""#),
          query("qb", on: "B"), insert("B", "y"),
          // A batch that would migrate an entity is not one: the lines run one by one.
          entity("B", #""id":"string","title":"string","rank":"integer","more":"string""#), entity("F"), query("qf", on: "F"), insert("B", "z")]),
        ("an entity line inside a transaction",
         [entity("A"), query("qa", on: "A"), #"{"op":"begin"}"#, entity("B"), entity("C"), #"{"op":"commit"}"#, entity("B"), entity("C"),
          query("qb", on: "B")]),
        ("runs after other ops",
         [entity("A"), query("qa", on: "A"), insert("A", "1"), entity("B"), entity("C"), query("qc", on: "C"), query("qa2", on: "A"),
          #"{"op":"external","sql":"INSERT INTO C(id, rank) VALUES ('z', 3)"}"#, entity("D"), entity("E"), query("qe", on: "E")]),
    ]

    @Test(arguments: scripts.map(\.name))
    func aScriptPrintsTheSameTraceAsItsLinesOneByOne(name: String) throws {
        let lines = try #require(Self.scripts.first { $0.name == name }).lines
        var batched: [String] = []
        ScriptRunner(store: try Store.temporary()).run(script: lines.joined(separator: "\n")) { batched.append($0.serialized()) }
        var oneByOne: [String] = []
        let runner = ScriptRunner(store: try Store.temporary())
        for (index, line) in lines.enumerated() {
            oneByOne += runner.run(line: Substring(line), number: index + 1).map { JSONValue.object($0).serialized() }
        }
        #expect(batched == oneByOne)
        // The scripts print something worth comparing: snapshots, and in most an error.
        #expect(batched.contains { $0.contains(#""event":"snapshot""#) })
    }
}
