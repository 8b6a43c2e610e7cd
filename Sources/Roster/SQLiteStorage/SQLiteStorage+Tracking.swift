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

    func changes(of entity: Entity, since position: Int64) throws(StoreError) -> CommittedChanges {
        do { return try tracker.changes(of: entity, since: position) } catch { throw .database(error) }
    }

    func storeIdentifier() throws(StoreError) -> String {
        do throws(DatabaseError) {
            let statement = try reader.prepare("SELECT value FROM _roster_meta WHERE name = 'store_id'")
            guard try statement.step(), case let .string(identifier) = statement.column(0), !identifier.isEmpty else {
                throw DatabaseError(code: .error, message: "the file holds no store identifier (_roster_meta.store_id); open it once for writing to give it one")
            }
            return identifier
        } catch {
            throw .database(error)
        }
    }

    func changesAtCursor() -> CommittedChanges {
        CommittedChanges(through: tracker.cursor)
    }

    func noteCommittedState() {
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

    func findTracking(of entity: Entity) throws(StoreError) -> Bool {
        let exists: Bool
        do { exists = try SchemaCatalog.hasChangeLog(of: entity, on: writer) } catch { throw .database(error) }
        if exists { entitiesWithChangeLog.insert(entity.name) }
        return exists
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
            do { versionBefore = try writer.schemaVersion() } catch { throw .database(error) }
            var missing: [Entity] = []
            for known in entities {
                let entity = try SchemaCatalog.recordedEntity(named: known.name, on: writer) ?? known
                let exists: Bool
                do { exists = try SchemaCatalog.hasChangeLog(of: entity, on: writer) } catch { throw .database(error) }
                if !exists { missing.append(entity) }
            }
            let versionAfter: Int64
            do {
                if !missing.isEmpty { try writer.execute(SchemaCatalog.changeLogs(for: missing, on: writer)) }
                versionAfter = try writer.schemaVersion()
                try writer.execute("COMMIT")
            } catch {
                throw .database(error)
            }
            // The store's own change is no news to its schema check; another's, made
            // before, still is.
            if versionBefore == knownSchemaVersion { knownSchemaVersion = versionAfter }
        } catch {
            if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
            throw error
        }
        entitiesWithChangeLog.formUnion(entities.map(\.name))
    }
}
