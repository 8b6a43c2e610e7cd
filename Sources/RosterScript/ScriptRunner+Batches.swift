import Roster
import RosterJSON

/// Runs of `entity` and `query` lines, defined and tracked in batches.
///
/// Each `entity` line on its own is a schema change, and so is each entity's first live
/// query (its change log); SQLite reads its whole schema again after each one, so a
/// script that defines and watches a thousand entities line by line costs a minute. Before
/// the first line of a run of `entity` and `query` lines (blank and comment lines between
/// them included), the runner defines the run's entities in one batch
/// (`Store.define(_:)` with an array), and before the run's first `query` line it starts
/// tracking every entity the run's queries watch (`Store.startTracking(_:)`). The lines
/// then run one by one as before: an `entity` line finds its entity defined as it says
/// (which does nothing), a `query` line finds its entity tracked. The trace is the same
/// byte for byte:
///
/// - a run ends before any line that is not an `entity` or `query` line, an `entity` line
///   that does not describe an entity or names one the run named before (in any case),
///   and a `query` line on an entity that neither the store nor an earlier line of the run
///   defines, so that no line sees an entity that a later line defines;
/// - when the batch cannot be defined as a whole, nothing is, and the lines run one by
///   one, printing each error where it was;
/// - tracking prints nothing, and when it cannot start the queries start it themselves.
extension ScriptRunner {
    /// What a run prepared ahead: the line (an index into the script's lines) before
    /// which to start tracking, and the entities to track then.
    struct TrackingAhead {
        let line: Int
        let entityNames: [String]
    }

    /// Defines the entities of the run of `entity` and `query` lines that starts at
    /// `start`, in one batch, when it has at least two.
    ///
    /// - Returns: the index of the first line after the run, and the tracking to start
    ///   before its first `query` line (nil when there is none, or nothing was batched).
    func defineAhead(_ lines: [Substring], from start: Int) -> (end: Int, tracking: TrackingAhead?) {
        guard !store.isInTransaction else { return (start + 1, nil) }
        var entities: [Entity] = []
        var folded: Set<String> = []
        var firstQuery: Int?
        var watched: [String] = []
        var index = start
        scan: while index < lines.count {
            let text = lines[index].drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if text.isEmpty || text.hasPrefix("#") || text.allSatisfy(\.isWhitespace) {
                index += 1
                continue
            }
            guard case let .object(object)? = try? JSONParser().parse(lines[index]),
                  let command = try? ScriptCommand(object)
            else { break }
            switch command.op {
            case "entity":
                guard let entity = try? entityDefinition(command), folded.insert(entity.name.lowercased()).inserted else { break scan }
                entities.append(entity)
            case "query":
                // A run starts at an `entity` line.
                guard !entities.isEmpty, let name = try? command.string("entity"),
                      store.entities[name] != nil || entities.contains(where: { $0.name == name })
                else { break scan }
                if firstQuery == nil { firstQuery = index }
                watched.append(name)
            default:
                break scan
            }
            index += 1
        }
        guard entities.count >= 2 else { return (max(index, start + 1), nil) }
        do { try store.define(entities) } catch { return (max(index, start + 1), nil) }
        return (index, firstQuery.map { TrackingAhead(line: $0, entityNames: watched) })
    }

    /// Starts the tracking a run prepared, before its first `query` line; when it cannot
    /// start, each query starts its own as it would have.
    func startTracking(_ ahead: TrackingAhead) {
        try? store.startTracking(ahead.entityNames)
    }
}
