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

    /// Touched rows as a live query bound to an entity of `count` attributes sees them.
    /// Attributes are only ever added at the end, so a row of another width was read with
    /// a definition of another age than the query's: one with more values is cut to the
    /// query's attributes, one with fewer (logged before some were added) gets null for
    /// the rest, as the table gave existing rows. Rows of the right width (all of them, but
    /// across a migration) are returned as they are. O(rows).
    static func shown(_ rows: [Value: TouchedRow], attributeCount count: Int) -> [Value: TouchedRow] {
        guard rows.values.contains(where: { !$0.fits(count) }) else { return rows }
        return rows.mapValues { $0.fitted(to: count) }
    }

    /// Whether both rows have `count` values (a missing row fits).
    func fits(_ count: Int) -> Bool {
        (before?.count ?? count) == count && (after?.count ?? count) == count
    }

    /// The rows cut to `count` values, or given null for the attributes past their end.
    func fitted(to count: Int) -> TouchedRow {
        guard !fits(count) else { return self }
        let fit = { (row: [Value]) -> [Value] in
            row.count >= count ? Array(row.prefix(count)) : row + Array(repeating: .null, count: count - row.count)
        }
        return TouchedRow(before: before.map(fit), after: after.map(fit))
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
