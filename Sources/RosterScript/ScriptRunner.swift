import Roster
import RosterJSON

/// Runs a mutation script against a store and produces its trace, line by line, exactly
/// as `Docs/ScriptFormat.md` in the repository describes.
///
/// ```swift
/// let runner = try ScriptRunner(store: Store.temporary())
/// runner.run(script: text) { event in print(event.serialized()) }
/// ```
///
/// Each live query's delegate is a recorder that writes every callback as an event; after
/// each line the runner emits what the line caused, query by query in the order the
/// queries were registered, or an `error` event when the line could not be carried out.
package final class ScriptRunner {
    /// The store the script runs against.
    package let store: Store
    let adapter: BatchAdapter
    var queries: [(name: String, controller: ResultsController, recorder: TraceRecorder)] = []
    /// Every live query's and live count's recorder, in the order they were registered:
    /// the order their events are printed in.
    var eventSources: [any EventSource] = []
    /// The live counts (`count` lines), by name; their names are among the queries' too.
    var counts: [String: LiveCountRecorder] = [:]
    private var external: ExternalConnection?
    /// Resume tokens saved by `token` lines, by name, with the request they were saved for.
    var tokens: [String: (token: ResumeToken, request: FetchRequest, adapter: BatchAdapter)] = [:]

    /// Creates a runner.
    ///
    /// - Parameter keepsMoves: whether batches keep moves as `moveItems` instead of
    ///   splitting them into a delete and an insert.
    package init(store: Store, keepsMoves: Bool = false) {
        self.store = store
        self.adapter = BatchAdapter(keepsMoves: keepsMoves)
    }

    /// Runs every line of a script, handing each trace event to `emit` as it is made.
    ///
    /// Runs of `entity` and `query` lines are defined and tracked in batches first, which
    /// changes nothing in the trace (``defineAhead(_:from:)``).
    package func run(script: String, emit: (JSONValue) -> Void) {
        // "\r\n" is one Character in Swift, so a CR LF line end is not "\n" and is named too.
        let lines = script.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        var aheadUntil = 0
        var tracking: TrackingAhead?
        for (index, line) in lines.enumerated() {
            if index >= aheadUntil { (aheadUntil, tracking) = defineAhead(lines, from: index) }
            if let ahead = tracking, ahead.line == index {
                startTracking(ahead)
                tracking = nil
            }
            for event in run(line: line, number: index + 1) { emit(.object(event)) }
        }
    }

    /// Runs one script line and returns the events it caused, each starting with `line`.
    package func run(line: Substring, number: Int) -> [JSONObject] {
        let text = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        if text.isEmpty || text.hasPrefix("#") || text.allSatisfy(\.isWhitespace) { return [] }
        var events: [JSONObject] = []
        do {
            let json: JSONValue
            // The whole line, so that a column in an error counts from the line's start.
            do { json = try JSONParser().parse(line) } catch { throw ScriptError("\(error)") }
            guard case let .object(command) = json else {
                throw ScriptError("a script line must be a JSON object with an \"op\", not \(json.serialized())")
            }
            try perform(ScriptCommand(command), events: &events)
        } catch let error as ScriptError {
            events.append(JSONObject(uniqueKeysWithValues: [("event", .string("error")), ("message", .string(error.message))]))
        } catch {
            events.append(JSONObject(uniqueKeysWithValues: [("event", .string("error")), ("message", .string("\(error)"))]))
        }
        for source in eventSources {
            events.append(contentsOf: source.takeEvents())
        }
        return events.map { event in
            JSONObject(uniqueKeysWithValues: [("line", JSONValue.integer(Int64(number)))] + event.members.map { ($0.key, $0.value) })
        }
    }

    /// The second connection for `external` lines, opened on first use. It does not wait
    /// for locks: while the script holds a transaction open, an external write fails at
    /// once with SQLITE_BUSY, as another process's would after its timeout.
    func externalConnection() throws -> ExternalConnection {
        if let external { return external }
        let connection = try ExternalConnection(path: store.path, busyTimeout: 0)
        external = connection
        return connection
    }
}
