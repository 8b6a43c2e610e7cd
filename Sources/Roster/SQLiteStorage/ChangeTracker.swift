/// Reads the change log that the entity triggers fill (see ``SchemaCatalog``).
///
/// Each trigger appends the key it touched to `_roster_changes`, with the row's values
/// before the write, so the log records every committed write, through this store or any
/// other connection. The tracker remembers the last entry it read (`cursor`); after a
/// commit it reads, for each key in the entries past it, the before-image of its first
/// entry (the row at the cursor) and its current row, in the caller's read transaction.
/// A write that changed a value and changed it back leaves the key in the log, but its
/// row before equals its row now, so it reports nothing.
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
        knownPrunedThrough = try Self.integer(from: prunedStatement)
        lastDataVersion = try reader.dataVersion()
    }

    /// True when some connection has committed to the file since the last check.
    func fileChangedSinceLastCheck() throws(DatabaseError) -> Bool {
        let version = try reader.dataVersion()
        defer { lastDataVersion = version }
        return version != lastDataVersion
    }

    /// Reads the log past the cursor and the touched rows of `entities`, and moves the
    /// cursor past them. Call it inside a read transaction on the reading connection, so
    /// that the log and the rows are one consistent state.
    ///
    /// - Returns: nil when nothing was committed since the last call.
    func collect(entities: [Entity]) throws(DatabaseError) -> CommittedChanges? {
        let newest = try newestEntry()
        guard newest > cursor else { return nil }
        var changes = CommittedChanges(through: newest)
        let prunedThrough = try Self.integer(from: prunedStatement)
        // Entries were removed unread only if the mark moved past the cursor since last
        // seen: a mark beyond every entry (foreign data) costs one resync, not one per commit.
        let isNewlyPruned = prunedThrough > cursor && prunedThrough > knownPrunedThrough
        knownPrunedThrough = prunedThrough
        if isNewlyPruned {
            changes.resync = .logPruned
        } else {
            for entity in entities {
                changes.rowsByEntity[entity.name] = try touchedRows(of: entity, after: cursor, through: newest)
            }
        }
        cursor = newest
        return changes
    }

    /// The last entry in the log, as the current read transaction sees it.
    func newestEntry() throws(DatabaseError) -> Int64 {
        try Self.integer(from: maxStatement)
    }

    /// Notes the file's data version as the current read transaction sees it, so that
    /// ``fileChangedSinceLastCheck()`` reports only commits made after that state.
    func noteDataVersion() throws(DatabaseError) {
        lastDataVersion = try reader.dataVersion()
    }

    private func touchedRows(of entity: Entity, after first: Int64, through last: Int64) throws(DatabaseError) -> [Value: TouchedRow] {
        let statement = try rowStatement(for: entity)
        try statement.bind([.integer(first), .integer(last), .string(entity.name)])
        defer { statement.reset() }
        var rows: [Value: TouchedRow] = [:]
        let attributes = entity.attributes
        func row(startingAt offset: Int) -> [Value] {
            var values: [Value] = []
            values.reserveCapacity(attributes.count)
            for (index, attribute) in attributes.enumerated() {
                values.append(statement.column(offset + index, as: attribute.type))
            }
            return values
        }
        // Columns: the key, whether a before-image exists, the before-image, the row now.
        let afterOffset = 2 + attributes.count
        while try statement.step() {
            let key = statement.column(0, as: entity.key.type)
            let hadRow = statement.column(1) == .integer(1)
            let hasRow = !statement.column(afterOffset + entity.keyIndex).isNull
            rows[key] = TouchedRow(before: hadRow ? row(startingAt: 2) : nil, after: hasRow ? row(startingAt: afterOffset) : nil)
        }
        return rows
    }

    /// Drops compiled statements, after an entity's columns changed.
    func forgetStatements() {
        rowStatements = [:]
    }

    private func rowStatement(for entity: Entity) throws(DatabaseError) -> Statement {
        if let statement = rowStatements[entity.name] { return statement }
        func columns(_ table: String) -> String {
            entity.attributes.map { "\(table).\(Identifier.quoted($0.name))" }.joined(separator: ", ")
        }
        // A key's first entry after the cursor holds its row at the cursor (none for an insert).
        let statement = try reader.prepare("""
            SELECT c.key, b.\(SchemaCatalog.beforeSequenceColumn) IS NOT NULL, \(columns("b")), \(columns("t"))
            FROM (SELECT key, min(seq) AS first FROM _roster_changes WHERE seq > ? AND seq <= ? AND entity = ? GROUP BY key) AS c
            LEFT JOIN \(SchemaCatalog.beforeTable(entity)) AS b ON b.\(SchemaCatalog.beforeSequenceColumn) = c.first
            LEFT JOIN \(Identifier.quoted(entity.name)) AS t ON t.\(Identifier.quoted(entity.key.name)) = c.key AND t.\(Identifier.quoted(entity.key.name)) = c.key COLLATE BINARY
            """)
        rowStatements[entity.name] = statement
        return statement
    }

    /// Removes log entries that every reader in this process has read, keeping the newest
    /// ``retainedEntries`` for readers in other processes; a reader that falls further
    /// behind re-fetches instead (``CommittedChanges/needsResync``).
    ///
    /// Before-images go with their entries, from the tables of before-images that exist:
    /// an entity that no live query has ever watched has none.
    func pruneIfNeeded(using writer: Connection, entities: some Sequence<Entity>) throws(DatabaseError) {
        guard cursor - knownPrunedThrough > 2 * Self.retainedEntries else { return }
        let limit = cursor - Self.retainedEntries
        try writer.execute("BEGIN IMMEDIATE")
        do {
            var tables = [(SchemaCatalog.changesTable, "seq")]
            for entity in entities {
                guard try SchemaCatalog.hasTable(named: "_roster_before_\(entity.name)", on: writer) else { continue }
                tables.append((SchemaCatalog.beforeTable(entity), SchemaCatalog.beforeSequenceColumn))
            }
            for (table, sequence) in tables {
                let delete = try writer.prepare("DELETE FROM \(table) WHERE \(sequence) <= ?")
                try delete.bind([.integer(limit)])
                try delete.step()
            }
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
