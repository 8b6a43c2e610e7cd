import Roster

/// One live query on an existing store, reported as trace events: what `roster watch`
/// prints. The query is registered exactly as a script's `query` line registers it, and its
/// events are the ones `roster run` prints for an `external` line, in the same format.
///
/// ```swift
/// let watch = try QueryWatch(store: Store(path: path), query: #"{"entity":"Post","sort":[["day","desc"]],"section":"day"}"#)
/// print(watch.snapshot.map { JSONValue.object($0).serialized() })
/// // … when another process may have committed:
/// for event in watch.poll() { print(JSONValue.object(event).serialized()) }
/// ```
///
/// No script line causes these events, so each one's `line` is ``line`` (0, which no
/// script line has). Use a watch from one isolation domain, as its store.
package final class QueryWatch {
    /// The `line` member of every event a watch makes: 0, since no script line caused it.
    package static let line: Int64 = 0

    /// The store watched.
    package let store: Store
    /// The query's name in the events' `query` member.
    package let name: String
    /// The query's `snapshot` event, as of its registration.
    package let snapshot: [JSONObject]
    private let runner: ScriptRunner

    /// Registers the query.
    ///
    /// - Parameters:
    ///   - query: a JSON object: a script's `query` line without `op` and `name`
    ///     (`entity`, and optionally `predicate`, `sort`, `section`). Members `op` and
    ///     `name`, if present, are ignored, as members an op does not use are.
    ///   - name: the query's name in the trace.
    ///   - keepsMoves: whether batches keep moves as `moveItems` (`--keep-moves`).
    /// - Throws: ``QueryWatchError`` when the JSON does not parse, is not an object, or
    ///   the query does not fit the store (unknown entity or attribute, bad predicate or sort).
    package init(store: Store, query: String, name: String = "watch", keepsMoves: Bool = false) throws(QueryWatchError) {
        self.store = store
        self.name = name
        runner = ScriptRunner(store: store, keepsMoves: keepsMoves)
        let json: JSONValue
        do {
            json = try JSONParser().parse(query)
        } catch {
            throw QueryWatchError("the query is not valid JSON: \(error)")
        }
        guard case let .object(members) = json else {
            throw QueryWatchError("the query must be a JSON object such as {\"entity\":\"Post\"}, not \(json.serialized())")
        }
        let command = JSONObject(uniqueKeysWithValues: [("op", .string("query")), ("name", .string(name))]
            + members.members.filter { $0.key != "op" && $0.key != "name" }.map { ($0.key, $0.value) })
        var events: [JSONObject] = []
        do {
            try runner.perform(ScriptCommand(command), events: &events)
        } catch {
            throw QueryWatchError(error.message)
        }
        snapshot = Self.numbered(events + runner.queries.flatMap { $0.recorder.takeEvents() })
    }

    /// Checks the file for other connections' and processes' commits and returns the
    /// events they caused: a group (`willChange` … `snapshot`) when the results changed,
    /// nothing when they did not. A failure to read them is an `error` event (with the
    /// `query` member when it is this query's delivery that failed), and watching goes on.
    package func poll() -> [JSONObject] {
        var events: [JSONObject] = []
        do {
            try store.pollExternalChanges()
        } catch {
            events.append(JSONObject(uniqueKeysWithValues: [("event", .string("error")), ("message", .string("\(error)"))]))
        }
        return Self.numbered(runner.queries.flatMap { $0.recorder.takeEvents() } + events)
    }

    private static func numbered(_ events: [JSONObject]) -> [JSONObject] {
        events.map { event in
            JSONObject(uniqueKeysWithValues: [("line", JSONValue.integer(line))] + event.members.map { ($0.key, $0.value) })
        }
    }
}

/// Why a ``QueryWatch`` could not be set up; the message is for a person.
package struct QueryWatchError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package let description: String

    /// Creates an error with its message.
    package init(_ description: String) {
        self.description = description
    }
}
