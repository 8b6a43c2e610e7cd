#if PostgreSQL
/// Change tracking over the schema's change log: reading it in the reader's snapshots,
/// creating an entity's log when a live query first watches it, pruning it, and checking
/// what other clients did to the schema.
extension PostgresStorage {
    /// A server is never moved out from under the store; a broken connection is an error
    /// of the read that met it, and the next read reconnects.
    var hasMoved: Bool { false }

    func hasChangedSinceLastCheck() throws(StoreError) -> Bool {
        guard newestInRead == nil else { return false }
        let (newest, fingerprint) = try reading { connection throws(ServerError) in
            // Notifications only wake a watcher (``ServerChangeMonitor``); the number decides,
            // and the schema's fingerprint: a client that disables or drops the triggers
            // commits nothing the log sees, but its change must still reach the queries.
            _ = try connection.drainNotifications()
            let rows = try connection.query("SELECT (SELECT coalesce(max(seq), 0) FROM \(names.commits)), \(schemaFingerprintSQL)")
            return (rows.integer(0, 0) ?? 0, rows.text(0, 1) ?? "")
        }
        defer { notedNewest = newest }
        return newest != notedNewest || (!knownFingerprint.isEmpty && fingerprint != knownFingerprint)
    }

    /// Begins the snapshot and reads, in the same round trip, what every delivery needs
    /// of it: the newest commit number, `pruned_through`, and the schema's fingerprint
    /// (``checkSchema(of:observed:)``).
    func beginCommittedRead() throws(StoreError) {
        try reading { connection throws(ServerError) in
            do throws(ServerError) {
                let rows = try connection.executeReturningLast("""
                    BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
                    SELECT (SELECT coalesce(max(seq), 0) FROM \(names.commits)),
                           (SELECT value FROM \(names.meta) WHERE name = 'pruned_through'),
                           \(schemaFingerprintSQL)
                    """)
                newestInRead = rows.integer(0, 0) ?? 0
                prunedInRead = rows.integer(0, 1) ?? 0
                fingerprintInRead = rows.text(0, 2) ?? ""
            } catch {
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// An expression for the schema's fingerprint: `schema_version`, then, for each entity
    /// the last schema check looked at, its table's identity, enabled trigger count and column
    /// types (or `-` when there is none), and its log table's identity. It moves when any client — Roster, `psql` —
    /// creates, drops, renames, alters or recreates one of those tables, or drops its
    /// triggers. Each table is found by name through the catalog's indexes, so the check
    /// costs the same however many schemas the database holds.
    var schemaFingerprintSQL: String {
        let tables = fingerprintEntities.map { name in
            """
            coalesce((SELECT c.oid::text || ':' || (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgenabled <> 'D') || ':' ||
                          (SELECT string_agg(a.atttypid::text, ',' ORDER BY a.attnum) FROM pg_attribute a
                           WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
                      FROM pg_class c WHERE c.oid = to_regclass(\(ServerText.literal(names.table(name))))), '-')
                || ':' || coalesce(to_regclass(\(ServerText.literal(names.log(name))))::oid::text, '-')
            """
        }
        return "(SELECT value FROM \(names.meta) WHERE name = 'schema_version')" + tables.map { " || '/' || " + $0 }.joined()
    }

    func endCommittedRead(abandon: Bool) {
        newestInRead = nil
        prunedInRead = nil
        fingerprintInRead = nil
        try? reader.execute(abandon ? "ROLLBACK" : "COMMIT")
    }

    /// The newest commit number the read transaction sees (or the reader now, outside one).
    private func newestVisible() throws(StoreError) -> Int64 {
        if let newestInRead { return newestInRead }
        return try reading { connection throws(ServerError) in try Self.newest(names, on: connection) }
    }

    func isAtNewestChange() throws(StoreError) -> Bool {
        try newestVisible() == cursor
    }

    func collectChanges(of entities: [Entity]) throws(StoreError) -> CommittedChanges? {
        let newest = try newestVisible()
        if newest < cursor {
            // The numbers went back: the schema was dropped and made again, or its sequence
            // restarted. Nothing between can be read; the live queries re-fetch.
            cursor = newest
            // As it is now: a mark left from the old numbers costs this one resync, not another.
            if let prunedInRead {
                knownPrunedThrough = prunedInRead
            } else {
                knownPrunedThrough = try reading { connection throws(ServerError) in try Self.meta("pruned_through", names, on: connection) }
            }
            return CommittedChanges(rowsByEntity: [:], resync: .logPruned, through: newest)
        }
        guard newest > cursor else { return nil }
        var changes = CommittedChanges(through: newest)
        let prunedThrough: Int64
        if let prunedInRead {
            prunedThrough = prunedInRead
        } else {
            prunedThrough = try reading { connection throws(ServerError) in try Self.meta("pruned_through", names, on: connection) }
        }
        let isNewlyPruned = prunedThrough > cursor && prunedThrough > knownPrunedThrough
        knownPrunedThrough = prunedThrough
        if isNewlyPruned {
            changes.resync = .logPruned
        } else {
            for entity in entities where entitiesWithChangeLog.contains(entity.name) {
                let read = try touchedRows(of: entity, after: cursor, through: newest)
                changes.rowsByEntity[entity.name] = read.rows
                if let gap = read.firstGap, gap > ownGapMarks[entity.name] ?? .min { changes.resync = changes.resync ?? .schemaChanged }
            }
        }
        // Read past: the marks this backend wrote behind the cursor now.
        ownGapMarks = ownGapMarks.filter { $0.value > newest }
        cursor = newest
        deliveriesSincePrune += 1
        return changes
    }

    var changeLogPosition: Int64 { cursor }

    /// Reads every touched key's row whatever the `scope`: the server's log does not say
    /// which attributes an update changed.
    func changes(of entity: Entity, since position: Int64, readingRows scope: RowReadScope?) throws(StoreError) -> CommittedChanges {
        let newest = try newestVisible()
        var changes = CommittedChanges(through: newest)
        let prunedThrough = try reading { connection throws(ServerError) in try Self.meta("pruned_through", names, on: connection) }
        guard prunedThrough <= position, position <= newest else {
            changes.resync = .logPruned
            return changes
        }
        guard position < newest else { return changes }
        let read = try touchedRows(of: entity, after: position, through: newest)
        changes.rowsByEntity[entity.name] = read.rows
        if read.firstGap != nil { changes.resync = .schemaChanged }
        return changes
    }

    /// Each key the entity's log holds for commits after `first` through `last`: the row
    /// before its first entry there (the row at `first`), and the row now — one statement,
    /// the log joined with the commits and with the table — and the commit number of the
    /// first gap mark there, if any (a row with no key, ``ServerCatalog/changeLogGap(of:_:)``).
    private func touchedRows(of entity: Entity, after first: Int64, through last: Int64) throws(StoreError) -> (rows: [Value: TouchedRow], firstGap: Int64?) {
        let attributes = Array(entity.attributes.prefix(entity.storedAttributeCount))
        let key = Identifier.quoted(entity.key.name)
        let logged = attributes.map { "l.\(Identifier.quoted($0.name))" }.joined(separator: ", ")
        let current = attributes.map { "t.\(Identifier.quoted($0.name))" }.joined(separator: ", ")
        let sql = """
            SELECT DISTINCT ON (l.\(key)) l._roster_existed, t.\(key) IS NOT NULL, \(logged), \(current), c.seq
            FROM \(names.log(entity.name)) l JOIN \(names.commits) c ON c.xid = l._roster_xid
            LEFT JOIN \(names.table(entity.name)) t ON t.\(key) = l.\(key)
            WHERE c.seq > $1 AND c.seq <= $2
            ORDER BY l.\(key), c.seq, l._roster_ord
            """
        let rows = try reading { connection throws(ServerError) in try connection.query(sql, [.integer(first), .integer(last)]) }
        var touched: [Value: TouchedRow] = [:]
        touched.reserveCapacity(rows.count)
        var firstGap: Int64?
        let width = attributes.count
        for row in 0..<rows.count {
            let existed = rows.text(row, 0) == "t"
            let exists = rows.text(row, 1) == "t"
            let before = attributes.indices.map { rows.value(row, 2 + $0, as: attributes[$0].type) }
            let after = attributes.indices.map { rows.value(row, 2 + width + $0, as: attributes[$0].type) }
            let keyValue = before[entity.keyIndex]
            guard !keyValue.isNull else {
                firstGap = rows.integer(row, 2 + 2 * width) ?? last
                continue
            }
            touched[keyValue] = TouchedRow(before: existed ? before : nil, after: exists ? after : nil)
        }
        return (touched, firstGap)
    }

    func storeIdentifier() throws(StoreError) -> String {
        let identifier = try reading { connection throws(ServerError) in
            try connection.query("SELECT value FROM \(names.meta) WHERE name = 'store_id'").text(0, 0)
        }
        guard let identifier, !identifier.isEmpty else {
            throw .schemaMismatch(entity: "_roster_meta", reason: "the schema '\(names.schema)' holds no store identifier")
        }
        return identifier
    }

    /// None: a resume here reads its window again (``readsNeighboursByRange`` is false),
    /// so its tokens keep no rows to check.
    func changeLogEntryDigest(at position: Int64) throws(StoreError) -> String? { nil }

    func changesAtCursor() -> CommittedChanges {
        CommittedChanges(through: cursor)
    }

    func noteCommittedState() {
        // Their live queries heard it in this delivery (the check came before); until one
        // gets this far, each check reports them again.
        restoredLastCheck = []
        if let newestInRead { notedNewest = newestInRead }
    }

    /// The server's log holds every row a delivery reads: nothing to note ahead.
    func willDeliver(_ entityNames: [String]) {}

    /// Drops the log of commits that every reader has had time to read: older than the
    /// retention's age, and not among its newest entries (a commit counts one entry).
    /// Tried every 64 deliveries; a failure leaves more records, nothing worse.
    func pruneChanges(of entities: [Entity]) {
        guard deliveriesSincePrune >= 64, !isInTransaction else { return }
        deliveriesSincePrune = 0
        let keep = Int64(min(max(changeLogRetention.minimumEntries, 1), Int.max / 4))
        let age = changeLogRetention.minimumAge.components
        let seconds = Double(age.seconds) + Double(age.attoseconds) / 1e18
        do {
            try writer.execute("BEGIN")
            let cutoff = try writer.query("""
                SELECT coalesce(max(seq), 0) FROM \(names.commits)
                WHERE seq <= (SELECT coalesce(max(seq), 0) FROM \(names.commits)) - $1::bigint
                  AND at < now() - make_interval(secs => $2::double precision)
                """, [.integer(keep), .double(seconds)]).integer(0, 0) ?? 0
            if cutoff > 0 {
                let logs = try writer.query("""
                    SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE '\\_roster\\_log\\_%'
                    """, [.string(names.schema)])
                for index in 0..<logs.count {
                    guard let table = logs.text(index, 0) else { continue }
                    _ = try writer.query("DELETE FROM \(table) WHERE _roster_xid IN (SELECT xid FROM \(names.commits) WHERE seq <= $1)", [.integer(cutoff)])
                }
                _ = try writer.query("DELETE FROM \(names.commits) WHERE seq <= $1", [.integer(cutoff)])
                _ = try writer.query("UPDATE \(names.meta) SET value = greatest(value::bigint, $1)::text WHERE name = 'pruned_through'", [.integer(cutoff)])
            }
            try writer.execute("COMMIT")
        } catch {
            try? writer.execute("ROLLBACK")
        }
    }

    // MARK: Tracking entities

    func isTracking(_ entityName: String) -> Bool {
        entitiesWithChangeLog.contains(entityName)
    }

    func findTracking(of entities: [Entity]) throws(StoreError) -> [Entity] {
        // The server's catalogs are indexed: a look-up per entity costs the same however
        // many the schema has.
        var untracked: [Entity] = []
        for entity in entities {
            let exists = try writing { connection throws(ServerError) in try ServerCatalog.hasChangeLog(of: entity, names, on: connection) }
            if exists { entitiesWithChangeLog.insert(entity.name) } else { untracked.append(entity) }
        }
        return untracked
    }

    func startTracking(_ entities: [Entity]) throws(StoreError) {
        var marked: Set<String> = []
        try schemaChange { (connection) throws(StoreError) in
            var sql = ""
            marked = []
            for known in entities {
                let entity = try ServerCatalog.recordedEntity(named: known.name, names, on: connection) ?? known
                let exists: Bool
                let hadLog: Bool
                do throws(ServerError) {
                    exists = try ServerCatalog.hasChangeLog(of: entity, names, on: connection)
                    hadLog = exists ? false : try ServerCatalog.hasLogTable(of: entity, names, on: connection)
                } catch { throw .server(error) }
                if !exists { sql += ServerCatalog.changeLog(for: entity, names) }
                // A log without its triggers: writes may have gone unlogged.
                if hadLog {
                    sql += ServerCatalog.changeLogGap(of: entity, names)
                    marked.insert(entity.name)
                }
            }
            return sql
        }
        entitiesWithChangeLog.formUnion(entities.map(\.name))
        if !marked.isEmpty {
            // The newest number now is the marks' or a later one.
            let newest = try writing { connection throws(ServerError) in try Self.newest(names, on: connection) }
            for name in marked { ownGapMarks[name] = newest }
        }
    }

    func checkTable(of entity: Entity, always: Bool) throws(StoreError) {
        if let problem = try tableProblem(of: entity) { throw problem }
    }

    /// What is wrong with the entity's table, or nil when it holds the entity's attributes
    /// with their types.
    ///
    /// - Parameter live: whether live queries on it keep going (a delivery's schema check),
    ///   which the message then says.
    private func tableProblem(of entity: Entity, live: Bool = false) throws(StoreError) -> StoreError? {
        let rows = try reading { connection throws(ServerError) in
            try connection.query("""
                SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
                """, [.string(names.table(entity.name))])
        }
        guard rows.count > 0 else {
            guard live else { return .schemaMismatch(entity: entity.name, reason: "the schema '\(names.schema)' has no table '\(entity.name)'") }
            return .schemaMismatch(entity: entity.name, reason: "its table '\(entity.name)' was dropped or renamed, by another connection: its live queries keep their results until the table fits again")
        }
        var types: [String: String] = [:]
        for row in 0..<rows.count { if let name = rows.text(row, 0) { types[name] = rows.text(row, 1) } }
        for attribute in entity.attributes.prefix(entity.storedAttributeCount) {
            let expected = ServerText.columnType(attribute.type).components(separatedBy: " COLLATE").first ?? ""
            guard let found = types[attribute.name] else {
                return .schemaMismatch(entity: entity.name, reason: "its table has no column '\(attribute.name)'")
            }
            guard found == expected else {
                return .schemaMismatch(entity: entity.name, reason: "column '\(attribute.name)' is \(found), not \(expected)")
            }
        }
        return nil
    }

    /// Checks, when the schema changed since the last check, each entity's table, and puts
    /// back the log of an observed entity another client removed (its live queries
    /// re-fetch). An entity another client migrated, or whose table fits again after it
    /// did not, is reported restored: its live queries re-fetch too.
    ///
    /// "Changed" is the schema's fingerprint (`_roster_meta.schema_version`, bumped by every
    /// Roster, and the schema's tables and triggers in the catalog, which also move when
    /// `psql` renames, drops, alters or recreates a table), read with the snapshot.
    func checkSchema(of entities: [Entity], observed: Set<String>) throws(StoreError) -> SchemaCheck {
        var check = SchemaCheck()
        let fingerprint: String
        let entityNames = entities.map(\.name).sorted()
        if entityNames != fingerprintEntities {
            // Other entities than the snapshot's fingerprint covers: read it for these.
            fingerprintEntities = entityNames
            fingerprint = try reading { connection throws(ServerError) in try connection.query("SELECT \(schemaFingerprintSQL)").text(0, 0) ?? "" }
        } else if let fingerprintInRead {
            fingerprint = fingerprintInRead
        } else {
            fingerprint = try reading { connection throws(ServerError) in try connection.query("SELECT \(schemaFingerprintSQL)").text(0, 0) ?? "" }
        }
        // Entities whose log was put back last time re-fetch, in a snapshot taken after it
        // was (SchemaCheck.needsNewRead): writes before the triggers were not logged.
        check.restored = restoredLastCheck.intersection(entityNames)
        guard fingerprint != knownFingerprint else {
            // Still broken: the deliveries leave their logs unread, as SQLite's do.
            for name in entityNames { check.broken[name] = brokenEntities[name] }
            return check
        }
        // The schema changed: statements prepared on a table recreated since would fail the
        // delivery's read (an anchored window's neighbours, a key path's join).
        if !knownFingerprint.isEmpty {
            reader.forgetPreparedStatements()
            writer.forgetPreparedStatements()
        }
        var missingLogs: [Entity] = []
        for entity in entities {
            if let problem = try tableProblem(of: entity, live: true) {
                check.broken[entity.name] = problem
                brokenEntities[entity.name] = problem
                continue
            }
            if brokenEntities.removeValue(forKey: entity.name) != nil { check.restored.insert(entity.name) }
            if let recorded = try ServerCatalog.recordedEntity(named: entity.name, names, on: reader),
               recorded.attributes != entity.attributes.prefix(entity.storedAttributeCount).map({ $0 }) {
                check.restored.insert(entity.name)
            }
            if observed.contains(entity.name) {
                let exists = try reading { connection throws(ServerError) in try ServerCatalog.hasChangeLog(of: entity, names, on: connection) }
                if !exists { missingLogs.append(entity) }
            }
        }
        if !missingLogs.isEmpty, !isInTransaction {
            try startTracking(missingLogs)
            restoredLastCheck.formUnion(missingLogs.map(\.name))
            check.needsNewRead = true
        }
        // Noted only once the check went through: a check that failed is made again, and so
        // is one that could not put logs back inside a transaction.
        if missingLogs.isEmpty || !isInTransaction { knownFingerprint = fingerprint }
        return check
    }
}
#endif
