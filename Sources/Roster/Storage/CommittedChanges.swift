/// What committed writes did to one key: its row at the reader's cursor and its row now.
struct TouchedRow: Equatable {
    /// The row as it was at the cursor; nil when no object had the key then.
    let before: [Value]?
    /// The row now; nil when no object has the key any more.
    let after: [Value]?
    /// Whether some value differs: false for a value written and written back. Compared
    /// once, when the row is made: every stage of a delivery (the engine, the aggregates,
    /// the attributes reported) asks, and comparing two rows value by value was 9 % of a
    /// relationship's rename.
    let isChanged: Bool

    init(before: [Value]?, after: [Value]?) {
        self.before = before
        self.after = after
        isChanged = before != after
    }

    /// Touched rows as a live query bound to an entity of `count` attributes sees them:
    /// cut to those, when the entity has gained attributes since (they are always added
    /// at the end); as they are otherwise.
    static func shown(_ rows: [Value: TouchedRow], attributeCount count: Int) -> [Value: TouchedRow] {
        guard let sample = rows.first?.value, ((sample.after ?? sample.before)?.count ?? count) != count else { return rows }
        return rows.mapValues { row in
            TouchedRow(before: row.before.map { Array($0.prefix(count)) }, after: row.after.map { Array($0.prefix(count)) })
        }
    }
}

extension CommittedChanges {
    /// The touched rows of an entity as a live query bound to `entity` sees them.
    func rows(of entity: Entity) -> [Value: TouchedRow] {
        TouchedRow.shown(rowsByEntity[entity.name] ?? [:], attributeCount: entity.attributes.count)
    }
}

/// What committed transactions changed: for each key they touched, its row before (at the
/// backend's cursor) and now.
///
/// The rows now are current state rather than deltas, so applying them twice gives the
/// same result; the rows before tell a live query that keeps only sort values whether
/// anything else changed.
struct CommittedChanges {
    /// Touched keys of each entity, by entity name.
    var rowsByEntity: [String: [Value: TouchedRow]] = [:]
    /// Set when observers must re-fetch instead of applying rows: the log was pruned past
    /// the last entry read, or another connection changed the schema.
    var resync: ResyncReason?
    /// Set for observers of an entity whose tracking started after their fetch (a live
    /// query registered inside a transaction or a delivery): the writes between went
    /// unlogged, so they read their results again and report what differs from what they
    /// hold, as a commit's change — not a resync.
    var mustReread = false
    /// The last change-log entry these changes include.
    var through: Int64 = 0
}
