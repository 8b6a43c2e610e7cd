import Roster
import RosterJSON

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
    /// The message of the last poll that failed, until one succeeds: the same failure is
    /// printed once, not at every wake-up.
    private var lastPollError: String?

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
    /// A poll that fails as the last one did prints nothing more (a deleted file would
    /// otherwise be reported at every wake-up); once a poll succeeds, or fails otherwise,
    /// it is reported again.
    package func poll() -> [JSONObject] {
        var failure: String?
        do {
            try store.pollExternalChanges()
        } catch {
            failure = "\(error)"
        }
        let queryEvents = runner.queries.flatMap { $0.recorder.takeEvents() }
        var events: [JSONObject] = []
        // Said once: not again at the next wake-up, nor beside the query's own error event.
        if let failure, failure != lastPollError,
           !queryEvents.contains(where: { $0["event"] == .string("error") && $0["message"] == .string(failure) }) {
            events.append(JSONObject(uniqueKeysWithValues: [("event", .string("error")), ("message", .string(failure))]))
        }
        lastPollError = failure
        return Self.numbered(queryEvents + events)
    }

    /// Checks, without changing anything, that the store at `location` (a file or a
    /// PostgreSQL URL) records the entity `query` names: what `roster watch` does before it
    /// opens the store, since opening a file that is not a store yet makes it one (the
    /// store's tables, WAL mode) and a refused watch must leave the file as it was.
    ///
    /// - Throws: ``QueryWatchError`` when the query does not parse or names no entity, the
    ///   location is not a Roster store, or the store has no such entity.
    package static func checkEntity(of query: String, at location: String) throws(QueryWatchError) {
        let entity: String
        do {
            guard case let .object(members) = try JSONParser().parse(query) else {
                throw QueryWatchError("the query must be a JSON object such as {\"entity\":\"Post\"}")
            }
            guard case let .string(name)? = members["entity"] else {
                throw QueryWatchError("the query names no entity: give \"entity\", such as {\"entity\":\"Post\"}")
            }
            entity = name
        } catch let error as QueryWatchError {
            throw error
        } catch {
            throw QueryWatchError("the query is not valid JSON: \(error)")
        }
        guard Identifier.isValid(entity) else {
            throw QueryWatchError("the query's entity '\(entity)' is not an entity name (letters, digits and '_'); nothing was changed")
        }
        let catalog = PostgresSchema.isURL(location)
            ? "SELECT to_regclass('_roster_entities') IS NOT NULL"
            : "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = '_roster_entities'"
        do {
            let other = try ExternalConnection(path: location)
            guard let isStore = try other.run(catalog).first?.first ?? nil, ["1", "t"].contains(isStore) else {
                throw QueryWatchError("'\(location)' is not a Roster store (it has no _roster_entities table), so it has no entity '\(entity)'; nothing was changed")
            }
            guard try !other.run("SELECT 1 FROM _roster_entities WHERE name = '\(entity)'").isEmpty else {
                throw QueryWatchError("the store has no entity '\(entity)'; nothing was changed")
            }
        } catch let error as QueryWatchError {
            throw error
        } catch {
            throw QueryWatchError("cannot read the store at '\(location)': \(error); nothing was changed")
        }
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
