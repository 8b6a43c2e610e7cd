/// Objects that live queries' key paths lead to (`feed.title` leads to feeds), kept as of
/// the committed state observers were last told about: a touched row's key-path values
/// come from here, without a query, once its related object has been read.
///
/// Correct only while every change of a cached entity is seen: each delivery's
/// ``take(_:collected:)`` applies the rows it collected for an entity, and forgets an
/// entity whose changes it did not collect (no observer watches it any more) or everything
/// on a resync (the log no longer says what changed). Bounded: an entity's rows are
/// forgotten when they pass ``capacity``.
struct RelatedRows {
    /// The most rows kept for one entity.
    static let capacity = 65_536
    private var rows: [String: [Value: [Value]?]] = [:]

    /// Whether no object is kept (no live query reads through a key path).
    var isEmpty: Bool { rows.isEmpty }

    /// The object of `entity` with `key`, as committed at the cursor: `.some(nil)` when it
    /// is known that there is none, nil when it is not known.
    func row(of entity: String, key: Value) -> [Value]?? {
        rows[entity]?[key]
    }

    /// Notes an object read at the cursor (nil: none has the key).
    mutating func note(_ row: [Value]?, of entity: String, key: Value) {
        if rows[entity]?.count ?? 0 >= Self.capacity { rows[entity] = nil }
        rows[entity, default: [:]][key] = .some(row)
    }

    /// Moves to the state `changes` lead to: their rows for each entity collected, every
    /// other entity forgotten; all of it on a resync.
    mutating func take(_ changes: CommittedChanges, collected: Set<String>) {
        guard !rows.isEmpty else { return }
        guard changes.resync == nil else {
            rows = [:]
            return
        }
        for name in Array(rows.keys) {
            guard collected.contains(name) else {
                rows[name] = nil
                continue
            }
            for (key, touched) in changes.rowsByEntity[name] ?? [:] where rows[name]?[key] != nil {
                rows[name]?[key] = .some(touched.after)
            }
        }
    }
}
