/// What committed transactions changed, as the current rows of the keys they touched.
///
/// A touched key maps to its row now, or to nil when no object has that key any more.
/// Because it carries current state rather than deltas, applying it twice, or after a
/// fetch that already saw part of it, gives the same result.
struct CommittedChanges {
    /// Current rows of touched keys, by entity name.
    var rowsByEntity: [String: [Value: [Value]?]] = [:]
    /// True when the log was pruned past the last entry read: observers must re-fetch.
    var needsResync = false
    /// The last change-log entry these changes include.
    var through: Int64 = 0
}

/// Reads the change log that the entity triggers fill (see ``SchemaCatalog``).
///
/// Each trigger appends the key it touched to `_roster_changes`, so the log records every
/// committed write, through this store or any other connection. The tracker remembers the
/// last entry it read (`cursor`); after a commit it reads the entries past it and the
/// current rows of those keys, all in one read transaction so they are consistent. A
/// write that changed a value and changed it back leaves the key in the log, but its row
/// compares equal to what the live query holds, so it reports nothing.
final class ChangeTracker {
    private let reader: Connection
    /// The last log entry read.
    private(set) var cursor: Int64
    private var lastDataVersion: Int64
    /// The newest `pruned_through` read from the file.
    private var knownPrunedThrough: Int64 = 0
    private var rowStatements: [String: Statement] = [:]
    private let maxStatement: Statement
    private let prunedStatement: Statement

    /// How many log entries to keep behind the newest when pruning, so that other
    /// processes reading the same file have time to read them.
    static let retainedEntries: Int64 = 10_000

    init(reader: Connection) throws(DatabaseError) {
        self.reader = reader
        maxStatement = try reader.prepare("SELECT coalesce(max(seq), 0) FROM _roster_changes")
        prunedStatement = try reader.prepare("SELECT value FROM _roster_meta WHERE name = 'pruned_through'")
        cursor = 0
        lastDataVersion = 0
        // Start after the history already in the file: only changes from now on are news.
        cursor = try Self.integer(from: maxStatement)
        lastDataVersion = try reader.dataVersion()
    }

    /// True when some connection has committed to the file since the last check.
    func fileChangedSinceLastCheck() throws(DatabaseError) -> Bool {
        let version = try reader.dataVersion()
        defer { lastDataVersion = version }
        return version != lastDataVersion
    }

    /// Reads the log past the cursor and the current rows of the touched keys of `entities`.
    ///
    /// - Returns: nil when nothing was committed since the last call.
    func collect(entities: [Entity]) throws(DatabaseError) -> CommittedChanges? {
        try reader.execute("BEGIN")
        do {
            let changes = try collectInTransaction(entities: entities)
            try reader.execute("COMMIT")
            lastDataVersion = try reader.dataVersion()
            return changes
        } catch {
            try? reader.execute("ROLLBACK")
            throw error
        }
    }

    private func collectInTransaction(entities: [Entity]) throws(DatabaseError) -> CommittedChanges? {
        let newest = try Self.integer(from: maxStatement)
        guard newest > cursor else { return nil }
        var changes = CommittedChanges(through: newest)
        let prunedThrough = try Self.integer(from: prunedStatement)
        knownPrunedThrough = prunedThrough
        if prunedThrough > cursor {
            changes.needsResync = true
        } else {
            for entity in entities {
                changes.rowsByEntity[entity.name] = try touchedRows(of: entity, after: cursor, through: newest)
            }
        }
        cursor = newest
        return changes
    }

    private func touchedRows(of entity: Entity, after first: Int64, through last: Int64) throws(DatabaseError) -> [Value: [Value]?] {
        let statement = try rowStatement(for: entity)
        try statement.bind([.integer(first), .integer(last), .string(entity.name)])
        var rows: [Value: [Value]?] = [:]
        let count = entity.attributes.count
        while try statement.step() {
            let key = statement.column(0, as: entity.key.type)
            if statement.column(1 + entity.keyIndex).isNull {
                rows[key] = .some(nil)
            } else {
                var values: [Value] = []
                values.reserveCapacity(count)
                for (index, attribute) in entity.attributes.enumerated() {
                    values.append(statement.column(1 + index, as: attribute.type))
                }
                rows[key] = values
            }
        }
        return rows
    }

    /// Drops compiled statements, after an entity's columns changed.
    func forgetStatements() {
        rowStatements = [:]
    }

    private func rowStatement(for entity: Entity) throws(DatabaseError) -> Statement {
        if let statement = rowStatements[entity.name] { return statement }
        let columns = entity.attributes.map { "t.\(Identifier.quoted($0.name))" }.joined(separator: ", ")
        let statement = try reader.prepare("""
            SELECT c.key, \(columns)
            FROM (SELECT DISTINCT key FROM _roster_changes WHERE seq > ? AND seq <= ? AND entity = ?) AS c
            LEFT JOIN \(Identifier.quoted(entity.name)) AS t ON t.\(Identifier.quoted(entity.key.name)) = c.key
            """)
        rowStatements[entity.name] = statement
        return statement
    }

    /// Removes log entries that every reader in this process has read, keeping the newest
    /// ``retainedEntries`` for readers in other processes; a reader that falls further
    /// behind re-fetches instead (``CommittedChanges/needsResync``).
    func pruneIfNeeded(using writer: Connection) throws(DatabaseError) {
        guard cursor - knownPrunedThrough > 2 * Self.retainedEntries else { return }
        let limit = cursor - Self.retainedEntries
        try writer.execute("BEGIN IMMEDIATE")
        do {
            let delete = try writer.prepare("DELETE FROM _roster_changes WHERE seq <= ?")
            try delete.bind([.integer(limit)])
            try delete.step()
            let mark = try writer.prepare("UPDATE _roster_meta SET value = max(value, ?) WHERE name = 'pruned_through'")
            try mark.bind([.integer(limit)])
            try mark.step()
            try writer.execute("COMMIT")
            knownPrunedThrough = limit
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    private static func integer(from statement: Statement) throws(DatabaseError) -> Int64 {
        try statement.bind([])
        defer { statement.reset() }
        guard try statement.step(), case let .integer(value) = statement.column(0) else { return 0 }
        return value
    }
}
