import Foundation
import RosterJSON
import Testing
import Roster
import RosterTestSupport
import RosterUpdates
@testable import RosterScript

/// Random sectioned scripts of three sizes, with sort changes that flip the order of the
/// sections, run as `roster run` runs them. From the printed trace alone: every group's
/// moves are the fewest that any choice of staying sections allows (by brute force), and
/// the sections that stay are the ones the tie order picks.
@Suite("Section moves in scripts")
struct SectionMovesScriptTests {
    @Test(arguments: [(objects: 12, steps: 60, seeds: 0..<12), (objects: 150, steps: 40, seeds: 100..<106), (objects: 1_500, steps: 16, seeds: 200..<202)])
    func movesAreTheFewestPossible(size: (objects: Int, steps: Int, seeds: Range<Int>)) throws {
        var reorders = 0
        for seed in size.seeds {
            var random = SeededScript(seed: UInt64(seed))
            let script = random.script(objects: size.objects, steps: size.steps)
            let runner = ScriptRunner(store: try Store.temporary())
            var events: [JSONObject] = []
            runner.run(script: script) { if let event = $0.objectValue { events.append(event) } }
            let problems = TraceMoveCheck.problems(in: events)
            #expect(problems.isEmpty, "seed \(seed), \(size.objects) objects: \(problems.prefix(3))")
            #expect(TraceMoveCheck.groupCount(in: events) > size.steps / 4, "seed \(seed): too few groups to test anything")
            reorders += TraceMoveCheck.reorderCount(in: events)
        }
        #expect(reorders >= size.seeds.count, "only \(reorders) groups reordered sections: the scripts test too little")
    }
}

/// The bundled example scripts and the fixtures, under the same check.
@Suite("Section moves in the bundled scripts")
struct BundledScriptMovesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var scripts: [String] {
        ["Examples/Scripts", "Tests/Fixtures"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".jsonl") && !$0.hasSuffix(".trace.jsonl") }
                .map { "\(folder)/\($0)" }
        }.sorted()
    }

    @Test func thereAreScriptsToCheck() {
        #expect(Self.scripts.contains("Examples/Scripts/address-book.jsonl"))
        #expect(Self.scripts.contains("Tests/Fixtures/sort-reverses-sections.jsonl"))
    }

    @Test(arguments: BundledScriptMovesTests.scripts)
    func movesAreTheFewestPossible(script: String) throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent(script), encoding: .utf8)
        let runner = ScriptRunner(store: try Store.temporary())
        var events: [JSONObject] = []
        runner.run(script: text) { if let event = $0.objectValue { events.append(event) } }
        let problems = TraceMoveCheck.problems(in: events)
        #expect(problems.isEmpty, "\(script): \(problems.prefix(3))")
    }
}

/// Reads a trace and checks each group's moves against ``fewestMoves(from:to:)``.
enum TraceMoveCheck {
    /// Sections and keys named by the UTF-8 bytes of their JSON text: Swift's `String`
    /// equality is canonical ("e\u{301}" == "\u{e9}"), but the store's keys are distinct by
    /// bytes, and a key that is not valid UTF-8 prints as an object.
    typealias Snapshot = [ListSection<String, [UInt8]>]

    /// The groups (willChange events) in a trace.
    static func groupCount(in events: [JSONObject]) -> Int {
        events.filter { $0["event"]?.stringValue == "willChange" }.count
    }

    /// The groups that delete and insert a section of the same name: sections that reordered.
    static func reorderCount(in events: [JSONObject]) -> Int {
        var count = 0
        var deleted: Set<String> = []
        var counted = false
        for event in events {
            switch event["event"]?.stringValue {
            case "willChange":
                deleted = []
                counted = false
            case "section":
                let name = event["name"]?.serialized() ?? ""
                if event["change"]?.stringValue == "delete" {
                    deleted.insert(name)
                } else if deleted.contains(name) && !counted {
                    count += 1
                    counted = true
                }
            default:
                break
            }
        }
        return count
    }

    /// One line per group whose moves or staying sections are not the fewest.
    static func problems(in events: [JSONObject]) -> [String] {
        var snapshots: [String: Snapshot] = [:]
        var moves: [String: Int] = [:]
        var deletedSections: [String: Set<String>] = [:]
        var problems: [String] = []
        for event in events {
            guard let query = event["query"]?.stringValue, let kind = event["event"]?.stringValue else { continue }
            switch kind {
            case "willChange":
                moves[query] = 0
                deletedSections[query] = []
            case "object" where event["change"]?.stringValue == "move":
                moves[query, default: 0] += 1
            case "section" where event["change"]?.stringValue == "delete":
                deletedSections[query, default: []].insert(event["name"]?.serialized() ?? "")
            case "snapshot":
                let new = snapshot(event)
                if let old = snapshots[query], let reported = moves[query], let fewest = fewestMoves(from: old, to: new) {
                    let kept = old.map(\.id).filter { !(deletedSections[query] ?? []).contains($0) }
                    if reported != fewest.moves || kept != fewest.keptSections {
                        problems.append("line \(event["line"]?.serialized() ?? "?"): \(reported) moves keeping \(kept), fewest \(fewest.moves) keeping \(fewest.keptSections)")
                    }
                }
                snapshots[query] = new
                moves[query] = nil
            default:
                break
            }
        }
        return problems
    }

    /// A snapshot event's sections, named by their JSON text.
    static func snapshot(_ event: JSONObject) -> Snapshot {
        (event["sections"]?.arrayValue ?? []).map { section in
            ListSection(id: section["name"]?.serialized() ?? "", items: (section["keys"]?.arrayValue ?? []).map { Array($0.serialized().utf8) })
        }
    }
}

/// Writes random scripts: one entity sectioned by a tag, a sectioned query and a flat one,
/// inserts, updates and deletes (some in transactions), filter changes, and sort changes
/// that flip the tag's direction.
struct SeededScript {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func script(objects: Int, steps: Int) -> String {
        var lines = [
            #"{"op":"entity","name":"Item","key":"id","attributes":{"id":"string","tag":"string","rank":"integer","note":"string"}}"#,
            #"{"op":"query","name":"byTag","entity":"Item","sort":[["tag","asc"],["rank","asc"]],"section":"tag"}"#,
            #"{"op":"query","name":"pinned","entity":"Item","predicate":"rank < 40","sort":[["tag","desc"],["note","asc"]],"section":"tag"}"#,
            #"{"op":"begin"}"#,
        ]
        for index in 0..<objects { lines.append(insert(index)) }
        lines.append(#"{"op":"commit"}"#)
        var nextKey = objects
        for _ in 0..<steps {
            switch int(0..<10) {
            case 0, 1, 2:
                let query = int(0..<2) == 0 ? "byTag" : "pinned"
                lines.append(#"{"op":"sort","query":"\#(query)","sort":[["tag","\#(direction())"],["\#(int(0..<2) == 0 ? "rank" : "note")","\#(direction())"]]}"#)
            case 3:
                lines.append(#"{"op":"filter","query":"pinned","predicate":"rank < \#(int(10..<100))"}"#)
            case 4:
                lines.append(insert(nextKey))
                nextKey += 1
            case 5:
                lines.append(#"{"op":"delete","entity":"Item","key":"i\#(int(0..<nextKey))"}"#)
            default:
                lines.append(#"{"op":"begin"}"#)
                for _ in 0..<int(1..<max(2, objects / 10)) {
                    lines.append(#"{"op":"update","entity":"Item","key":"i\#(int(0..<nextKey))","values":{"tag":\#(tag()),"rank":\#(int(0..<100))}}"#)
                }
                lines.append(#"{"op":"commit"}"#)
            }
        }
        return lines.joined(separator: "\n")
    }

    private mutating func insert(_ index: Int) -> String {
        #"{"op":"insert","entity":"Item","values":{"id":"i\#(index)","tag":\#(tag()),"rank":\#(int(0..<100)),"note":"n\#(int(0..<50))"}}"#
    }

    /// One of eight tags, or null now and then: at most nine sections, few enough for brute force.
    private mutating func tag() -> String {
        let number = int(0..<9)
        return number == 8 ? "null" : "\"t\(number)\""
    }

    private mutating func direction() -> String { int(0..<2) == 0 ? "asc" : "desc" }

    private mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
}
