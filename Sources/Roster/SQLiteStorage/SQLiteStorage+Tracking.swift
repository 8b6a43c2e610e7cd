/// Change tracking over the change log: reading it in the reader's transactions, and
/// creating an entity's log when a live query first watches the entity.
extension SQLiteStorage {
    var hasMoved: Bool { writer.fileHasMoved() }

    func hasChangedSinceLastCheck() throws(StoreError) -> Bool {
        do { return try tracker.fileChangedSinceLastCheck() } catch { throw .database(error) }
    }

    func beginCommittedRead() throws(StoreError) {
        do { try reader.execute("BEGIN") } catch { throw .database(error) }
    }

    func endCommittedRead(abandon: Bool) {
        try? reader.execute(abandon ? "ROLLBACK" : "COMMIT")
    }

    func isAtNewestChange() throws(StoreError) -> Bool {
        do { return try tracker.newestEntry() == tracker.cursor } catch { throw .database(error) }
    }

    func collectChanges(of entities: [Entity]) throws(StoreError) -> CommittedChanges? {
        // The next writes note the rows of what is delivered here (``OwnRowImages``).
        capture?.imagesWanted = Set(entities.map(\.name))
        do { return try tracker.collect(entities: entities) } catch { throw .database(error) }
    }

    func willDeliver(_ entityNames: [String]) {
        // From the next transaction on; each delivery then says again what it read.
        capture?.imagesWanted.formUnion(entityNames)
    }

    var changeLogPosition: Int64 { tracker.cursor }

    func changes(of entity: Entity, since position: Int64, readingRows scope: RowReadScope?) throws(StoreError) -> CommittedChanges {
        do { return try tracker.changes(of: entity, since: position, readingRows: scope) } catch { throw .database(error) }
    }

    func storeIdentifier() throws(StoreError) -> String {
        // The file's, set once when a writer first opened it: read once. (A file replaced
        // under the store is another file, which the store stops reading: ``hasMoved``.)
        if let knownStoreIdentifier { return knownStoreIdentifier }
        do throws(DatabaseError) {
            let statement = try reader.prepare("SELECT value FROM _roster_meta WHERE name = 'store_id'")
            guard try statement.step(), case let .string(identifier) = statement.column(0), !identifier.isEmpty else {
                throw DatabaseError(code: .error, message: "the file holds no store identifier (_roster_meta.store_id); open it once for writing to give it one")
            }
            knownStoreIdentifier = identifier
            return identifier
        } catch {
            throw .database(error)
        }
    }

    func changeLogEntryDigest(at position: Int64) throws(StoreError) -> String? {
        do { return try tracker.entryDigest(at: position) } catch { throw .database(error) }
    }

    func changesAtCursor() -> CommittedChanges {
        CommittedChanges(through: tracker.cursor)
    }

    func noteCommittedState() {
        // Their live queries heard it in this delivery (the check came before).
        restoredAwaitingDelivery = []
        // If it cannot be read, the next poll merely looks at the log for nothing.
        try? tracker.noteDataVersion()
    }

    var changeLogRetention: ChangeLogRetention {
        get { tracker.retention }
        set { tracker.retention = newValue }
    }

    func pruneChanges(of entities: [Entity]) {
        guard !isInTransaction, !writer.isReadOnly else { return }
        try? tracker.pruneIfNeeded(using: writer)
    }

    // MARK: Tracking entities

    func isTracking(_ entityName: String) -> Bool {
        entitiesWithChangeLog.contains(entityName)
    }

    func findTracking(of entities: [Entity]) throws(StoreError) -> [Entity] {
        let logs: ChangeLogNames
        let columns: ChangeLogColumns
        do {
            logs = try currentChangeLogNames()
            columns = try SchemaCatalog.logColumns(on: writer)
        } catch {
            throw .database(error)
        }
        var untracked: [Entity] = []
        for entity in entities {
            if logs.hasTriggers(of: entity) && SchemaCatalog.logColumnsFit(columns, attributeCount: entity.attributes.count, on: writer) {
                entitiesWithChangeLog.insert(entity.name)
            } else {
                untracked.append(entity)
            }
        }
        return untracked
    }

    /// Creates the change logs in one write transaction, each from the entity's definition
    /// as the file records it then (another process may have migrated it), skipping those
    /// another process created meanwhile.
    ///
    /// The store refuses a read-only store's first watch before it gets here, with the
    /// reason; should it not, SQLite refuses the write (`readonly`) and nothing changes.
    func startTracking(_ entities: [Entity]) throws(StoreError) {
        do { try writer.execute("BEGIN IMMEDIATE") } catch { throw .database(error) }
        do throws(StoreError) {
            let versionBefore: Int64
            let logs: ChangeLogNames
            let columns: ChangeLogColumns
            do {
                versionBefore = try writer.schemaVersion()
                // Under the write lock: kept when nobody changed the schema since.
                if let known = changeLogNames, known.version == versionBefore {
                    logs = known
                } else {
                    logs = try ChangeLogNames.read(on: writer, version: versionBefore)
                }
                columns = try SchemaCatalog.logColumns(on: writer)
            } catch {
                throw .database(error)
            }
            var missing: [Entity] = []
            for known in entities {
                let entity = try SchemaCatalog.recordedEntity(named: known.name, on: writer) ?? known
                if !(logs.hasTriggers(of: entity) && SchemaCatalog.logColumnsFit(columns, attributeCount: entity.attributes.count, on: writer)) {
                    missing.append(entity)
                }
            }
            let versionAfter: Int64
            do {
                if !missing.isEmpty { try writer.execute(SchemaCatalog.changeLogs(for: missing, on: writer)) }
                // A log written again for a table that had lost it (recreated by a
                // migration tool) missed writes: readers of the log past the mark resync.
                // A first log, of an empty table the log never named, needs none.
                var marked: [Entity] = []
                for entity in missing where try mayHaveReaders(entity) { marked.append(entity) }
                try writeGapMarks(of: marked)
                versionAfter = try writer.schemaVersion()
                try writer.execute("COMMIT")
            } catch {
                throw .database(error)
            }
            changeLogNames = logs
            noteOwnSchemaChange((versionBefore, versionAfter), addingChangeLogsOf: missing)
        } catch {
            if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
            throw error
        }
        entitiesWithChangeLog.formUnion(entities.map(\.name))
    }

    /// Whether a reader may hold rows of the entity that writes without its change log
    /// escaped: its table has rows, or the log names it. False for a first watch of an
    /// empty table, whose gap mark would only cost every other reader a resync.
    private func mayHaveReaders(_ entity: Entity) throws(DatabaseError) -> Bool {
        let statement = try writer.prepare("""
            SELECT EXISTS (SELECT 1 FROM \(Identifier.quoted(entity.name))) OR EXISTS (SELECT 1 FROM _roster_changes WHERE entity = ?)
            """)
        try statement.bind([.string(entity.name)])
        return try statement.step() && statement.column(0) == .integer(1)
    }

    /// Takes a schema change of the store's own, whose versions before and after were read
    /// under the write lock, for no news: the schema check skips it, and the change-log
    /// names stay known (with `entities`' change logs added) when they held for the
    /// version before. Another connection's change, made before, still is news.
    func noteOwnSchemaChange(_ versions: (before: Int64, after: Int64), addingChangeLogsOf entities: [Entity] = []) {
        if versions.before == knownSchemaVersion { knownSchemaVersion = versions.after }
        guard var logs = changeLogNames, logs.version == versions.before else {
            changeLogNames = nil
            return
        }
        for entity in entities {
            // Writing a change log drops every trigger name it may have had.
            logs.names.subtract(SchemaCatalog.changeLogObjectNames(of: entity))
            logs.names.formUnion(SchemaCatalog.changeLogTriggerNames(of: entity))
        }
        logs.version = versions.after
        changeLogNames = logs
    }

    /// The change-log names as of the schema now: those known, when the schema has not
    /// changed since, or read again.
    private func currentChangeLogNames() throws(DatabaseError) -> ChangeLogNames {
        // The version before the names (``ChangeLogNames/read(on:version:)``).
        let version = try writer.schemaVersion()
        if let logs = changeLogNames, logs.version == version { return logs }
        let logs = try ChangeLogNames.read(on: writer, version: version)
        changeLogNames = logs
        return logs
    }
}
