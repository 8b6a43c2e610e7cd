/// Noticing what other connections did to the tables of the store's entities.
extension SQLiteStorage {
    /// Checks, in the delivery's read transaction, whether another connection changed the
    /// schema since the last check, and if so whether each entity's table still fits it
    /// and whether each entity a live query of this store watches still has its change
    /// log (an entity nobody watches needs none: `observed` names those that need one). Costs one
    /// `PRAGMA schema_version` when nothing changed, and one pass over `sqlite_schema`
    /// when it did.
    ///
    /// Triggers of watched entities that are gone are created again through the writer
    /// (not inside a write transaction of the store's: then the check waits for the next
    /// delivery). A table that is gone or lost an attribute is reported, and checked again
    /// at every delivery until it fits again.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the schema cannot be read.
    func checkSchema(of entities: [Entity], observed: Set<String>) throws(StoreError) -> SchemaCheck {
        let version: Int64
        do {
            version = try reader.schemaVersion()
        } catch {
            throw .database(error)
        }
        // Logs put back by an earlier check, in a snapshot taken before: reported from a
        // later one (SchemaCheck.needsNewRead), until a delivery read past them.
        var check = SchemaCheck()
        check.restored = restoredAwaitingDelivery.intersection(entities.map(\.name))
        guard version != knownSchemaVersion, !isInTransaction else { return check }
        var missingTriggers: [Entity] = []
        let changeLogs: ChangeLogNames
        let looseTables: Set<String>
        do {
            changeLogs = try ChangeLogNames.read(on: reader, version: version)
            looseTables = try looseTableNames()
        } catch {
            throw .database(error)
        }
        changeLogNames = changeLogs
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            do throws(DatabaseError) {
                let hasChangeLog = changeLogs.hasTriggers(of: entity)
                if hasChangeLog {
                    entitiesWithChangeLog.insert(entity.name)
                } else {
                    // Looked for again when a live query next starts watching it.
                    entitiesWithChangeLog.remove(entity.name)
                }
                if let problem = try tableProblem(entity, looseTables: looseTables) {
                    check.broken[entity.name] = .schemaMismatch(entity: entity.name, reason: "\(problem), by another connection: its live queries keep their results until the table fits again")
                } else if !hasChangeLog && observed.contains(entity.name) {
                    missingTriggers.append(entity)
                }
            } catch {
                throw .database(error)
            }
        }
        if !missingTriggers.isEmpty {
            if writer.isReadOnly {
                for entity in missingTriggers {
                    check.broken[entity.name] = .schemaMismatch(entity: entity.name, reason: "its change-log triggers were removed by another connection, and a read-only store cannot put them back")
                }
            } else {
                do throws(StoreError) {
                    do { try writer.execute("BEGIN IMMEDIATE") } catch { throw .database(error) }
                    // Under the write lock: another store may have put them back meanwhile
                    // (its gap mark then tells this one).
                    let current: ChangeLogNames
                    do { current = try ChangeLogNames.read(on: writer, version: try writer.schemaVersion()) } catch { throw .database(error) }
                    missingTriggers = missingTriggers.filter { !current.hasTriggers(of: $0) }
                    // As the file records each entity: another process may have added attributes.
                    var entities: [Entity] = []
                    for entity in missingTriggers { entities.append(try SchemaCatalog.recordedEntity(named: entity.name, on: writer) ?? entity) }
                    do {
                        if !entities.isEmpty { try writer.execute(SchemaCatalog.changeLogs(for: entities, on: writer)) }
                        try writeGapMarks(of: entities)
                        try writer.execute("COMMIT")
                    } catch { throw .database(error) }
                } catch {
                    if !writer.isAutocommit { try? writer.execute("ROLLBACK") }
                    for entity in missingTriggers {
                        check.broken[entity.name] = .schemaMismatch(entity: entity.name, reason: "its change-log triggers were removed by another connection and could not be put back: \(error)")
                    }
                    missingTriggers = []
                }
                // Their live queries re-fetch in a snapshot that sees what the logs missed
                // (none when another store put them back, or they could not be: then no
                // new read, which would only fail the same way).
                restoredAwaitingDelivery.formUnion(missingTriggers.map(\.name))
                entitiesWithChangeLog.formUnion(missingTriggers.map(\.name))
                check.needsNewRead = !missingTriggers.isEmpty
            }
        }
        // Checked again next time until every table fits.
        if check.broken.isEmpty { knownSchemaVersion = version }
        return check
    }

    /// Writes a gap mark for each entity (``SchemaCatalog/changeLogGap(of:)``), in the
    /// writer's open transaction, for readers of the log other than this store; this
    /// store's deliveries skip them (its live queries re-fetch, or start, after them).
    /// None when the log's numbers are near their end, where a mark would take the
    /// largest one, which makes every reader fail (the log is broken there anyway).
    func writeGapMarks(of entities: [Entity]) throws(DatabaseError) {
        guard !entities.isEmpty else { return }
        let newest = try writer.prepare("SELECT coalesce(max(seq), 0) FROM _roster_changes")
        guard try newest.step(), case let .integer(last) = newest.column(0), last < Int64.max - Int64(entities.count) else { return }
        var marks: [Int64] = []
        for entity in entities {
            try writer.execute(SchemaCatalog.changeLogGap(of: entity))
            marks.append(writer.lastInsertRowID)
        }
        tracker.skipOwnGapMarks(marks)
    }

    func checkTable(of entity: Entity, always: Bool) throws(StoreError) {
        let problem: String?
        do {
            if !always, try reader.schemaVersion() == knownSchemaVersion { return }
            problem = try tableProblem(entity)
        } catch {
            throw .database(error)
        }
        if let problem { throw .schemaMismatch(entity: entity.name, reason: "\(problem), by another connection") }
    }


    /// What is wrong with the entity's table, or nil when it still keeps Roster's rules: it
    /// holds every attribute with its column type (other columns may have been added), the
    /// key is its only primary key, and it is `STRICT`.
    ///
    /// Another process may rebuild the table as it likes. Live queries rely on these rules:
    /// without `STRICT` a column takes values of any type (a BLOB in a TEXT column, which
    /// SQLite orders after all text), and without the primary key two rows may share a key.
    ///
    /// - Parameter looseTables: the lowercased names of the file's tables that are not
    ///   `STRICT`, when the caller read them in one pass for many entities
    ///   (``looseTableNames()``); nil reads this entity's table alone.
    func tableProblem(_ entity: Entity, looseTables: Set<String>? = nil) throws(DatabaseError) -> String? {
        let statement = try SchemaCatalog.tableInfo(of: entity.name, on: reader)
        defer { statement.reset() }
        var columns: [String: String] = [:]
        var primaryKey: [String] = []
        while try statement.step() {
            guard case let .string(name) = statement.column(1), case let .string(type) = statement.column(2) else { continue }
            columns[name.lowercased()] = type.uppercased()
            if case let .integer(position) = statement.column(5), position > 0 { primaryKey.append(name.lowercased()) }
        }
        guard !columns.isEmpty else { return "its table '\(entity.name)' was dropped or renamed" }
        for attribute in entity.attributes {
            guard let type = columns[attribute.name.lowercased()] else {
                return "the column '\(attribute.name)' of its table was dropped or renamed"
            }
            guard type == attribute.type.columnType else {
                return "the column '\(attribute.name)' of its table is now \(type), not \(attribute.type.columnType)"
            }
        }
        guard !primaryKey.isEmpty else {
            return "its table has no primary key any more (it was the key '\(entity.key.name)'), so rows may share a key"
        }
        guard primaryKey == [entity.key.name.lowercased()] else {
            return "its table's primary key is now (\(primaryKey.joined(separator: ", "))), not its key '\(entity.key.name)', so rows may share a key"
        }
        let isLoose: Bool
        if let looseTables {
            isLoose = looseTables.contains(entity.name.lowercased())
        } else {
            isLoose = try SchemaCatalog.isStrictTable(entity.name, on: reader) == false
        }
        return isLoose ? "its table is no longer STRICT, so its columns take values of any type" : nil
    }

    /// The lowercased names of the tables in the file that are not `STRICT`, in one pass
    /// (`pragma_table_list` reads every table; once per entity it would cost the square).
    func looseTableNames() throws(DatabaseError) -> Set<String> {
        let statement = try reader.prepare("SELECT lower(name) FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND strict = 0")
        var names: Set<String> = []
        while try statement.step() {
            if case let .string(name) = statement.column(0) { names.insert(name) }
        }
        return names
    }
}
