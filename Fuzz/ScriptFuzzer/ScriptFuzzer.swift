import Foundation
import Roster
import RosterFuzzSupport
import RosterJSON
import RosterScript

// Fuzzes the script runner: each input is a mutation script (JSON Lines, see
// Docs/ScriptFormat.md), run by `ScriptRunner(store:).run(script:emit:)` on a new
// temporary store, so that every input runs the same way whatever ran before it.
//
// Every event must serialize to JSON that parses back, and must be an object with a
// `line`. After the run the store must still answer: each entity's rows can be fetched
// by a live query that matches a direct fetch by key. Error events are fine; a trap or a
// failed property is a finding.
//
// SQL that can run without bound is not a Roster problem, so inputs whose SQL asks for it
// are skipped: recursive CTEs (infinite rows), blob and printf functions (gigabyte
// values), and ATTACH and VACUUM (files outside the store).

@main
enum ScriptFuzzer {
    static func main() {
        FuzzEntry.main(corpus: "script", summary: {
            "\(counts.events) events, \(counts.errors) of them errors; \(counts.objects) objects checked against a fetch by key"
        }) { data, size in testOneInput(data, size) }
    }
}

#if ROSTER_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { testOneInput(data, size) }
#endif

/// The longest script run: longer ones are skipped, so that each run stays fast.
let maximumScriptSize = 4_096

/// Words of SQL whose work or effects are unbounded (see above), in lower case.
let unboundedSQL = ["recursive", "blob", "printf", "format", "attach", "vacuum", "load_extension"]

/// What the inputs caused, for the replay's summary.
nonisolated(unsafe) var counts = (events: 0, errors: 0, objects: 0)

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size <= maximumScriptSize else { return 0 }
    let script = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lowercased = script.lowercased()
    if unboundedSQL.contains(where: { lowercased.contains($0) }) { return 0 }
    let store: Store
    do { store = try Store.temporary() } catch { fatalError("cannot create a temporary store: \(error)") }
    let runner = ScriptRunner(store: store)
    runner.run(script: script) { event in
        let text = event.serialized()
        guard case let .object(object) = try? JSONParser().parse(text) else {
            fuzzCheck(false, "an event does not parse back: \(text)")
            return
        }
        fuzzCheck(object["line"] != nil, "an event without a line: \(text)")
        counts.events += 1
        if object["event"]?.stringValue == "error" { counts.errors += 1 }
    }
    // The store must still answer after whatever the script did.
    if store.isInTransaction { try? store.rollback() }
    for entity in store.entities.values.sorted(by: { $0.name < $1.name }) {
        guard let controller = try? ResultsController(store: store, request: FetchRequest(entity: entity.name)),
              (try? controller.performFetch()) != nil,
              let objects = try? controller.fetchedObjects else { continue }
        for object in objects {
            let fetched = try? store.fetch(entity.name, key: object.key)
            counts.objects += 1
            fuzzCheck(fetched == object, "\(entity.name) \(object.key): a live query holds \(object), a fetch by key gives \(String(describing: fetched))")
        }
    }
    return 0
}
