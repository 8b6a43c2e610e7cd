import CRosterCapture
import CSQLite

/// Logs the writes of the store's own connection per transaction, through SQLite's
/// preupdate hook, instead of by the change-log triggers row by row.
///
/// The hook (C: `RosterCapture.c`) copies, for every row a write changes in an entity that
/// has a change log, its key and what it held before the write (the whole row for a
/// delete, the old values an update changed) into one buffer per entity; a write that
/// leaves every value as it was is skipped, as the update trigger's `WHEN` skips it. Before the transaction commits, ``flush()`` appends each buffer to
/// `_roster_changes` as one entry with a `batch` (``ChangeBatch``), so the log stays in
/// the file for other processes, and ``ChangeTracker`` reads both kinds of entries.
///
/// The connection's triggers are off while the hook logs (`SQLITE_DBCONFIG_ENABLE_TRIGGER`),
/// so a write is not logged twice. The hook logs only when it can stand in for every
/// trigger in the file: when the file holds a trigger that is not the store's own (a
/// user's trigger must still run), or an entity's table lacks a column its definition
/// names, the connection keeps its triggers and the hook stays idle. This is decided
/// again at the start of each transaction whose schema differs from the last one seen,
/// under the write lock, so no other connection can change it before the commit.
///
/// Safety nets, in C: a commit while captured entries are still unwritten is refused
/// (SQLite's commit hook; the transaction rolls back), and a rollback drops them.
///
/// Beside the log, the hook notes each written row as the write leaves it; once the
/// transaction commits, those rows go to ``images`` (``OwnRowImages``), so the store's own
/// delivery need not read them back.
final class ChangeCapture {
    /// The rows committed transactions left, for the delivery (``OwnRowImages``).
    let images = OwnRowImages()
    /// This transaction's images, kept by ``flush()`` until ``transactionCommitted()``.
    private var pendingImages: [OwnRowImages.Images] = []
    /// Whether this transaction's images are the rows it writes: false once a savepoint
    /// rolled back (``invalidateImages()``) — which a failed write of the store's always is.
    private var imagesAreExact = true
    /// The entities whose row images a delivery in this process takes (those live queries
    /// watch, as the last delivery read them, and those of live queries opened since);
    /// the hook notes no others. Taken at the start of each transaction: a change in the
    /// middle of one would leave images that miss some of its writes.
    var imagesWanted: Set<String> = []
    /// ``imagesWanted`` as the current transaction started.
    private var imagesWantedInTransaction: Set<String> = []
    private let connection: Connection
    private var handle: OpaquePointer?
    /// The entity of each table the hook tracks, in the hook's order.
    private var trackedEntities: [Entity] = []
    /// Each tracked table's columns when it was tracked (``columnNames(of:on:)``).
    private var trackedLayouts: [[String]] = []
    /// The writer's schema version when the tracked tables were last resolved.
    private var resolvedSchemaVersion: Int64?
    private var insertStatement: Statement?
    /// Whether the hook logs the connection's writes (its triggers are off).
    private(set) var isLogging = false

    /// Installs the hook on `connection`; nil when the linked SQLite has none.
    init?(connection: Connection) {
        guard let handle = roster_capture_create(connection.handle) else { return nil }
        self.connection = connection
        self.handle = handle
    }

    deinit {
        roster_capture_destroy(handle, connection.isOpen ? 1 : 0)
    }

    /// Removes the hooks and turns the connection's triggers back on; call it before the
    /// connection closes.
    func close() {
        insertStatement = nil
        guard let handle else { return }
        roster_capture_destroy(handle, connection.isOpen ? 1 : 0)
        self.handle = nil
        if connection.isOpen { _ = roster_capture_set_triggers_enabled(connection.handle, 1) }
        isLogging = false
    }

    /// Decides, at the start of a write transaction, whether the hook logs it, and which
    /// tables it tracks, when the schema changed since the last decision.
    func prepareTransaction() throws(DatabaseError) {
        pendingImages = []
        imagesAreExact = true
        guard handle != nil else { return }
        if imagesWanted != imagesWantedInTransaction {
            imagesWantedInTransaction = imagesWanted
            applyImagesWanted()
        }
        let version = try connection.schemaVersion()
        guard version != resolvedSchemaVersion else { return }
        try resolve(atSchemaVersion: version)
    }

    /// Called after each statement of raw SQL run inside the store's transaction. When it
    /// changed the schema, what was captured so far is written to the log now (so that it
    /// precedes whatever logs the rest of the transaction), and the decision is made again:
    /// a trigger of the user's own turns the triggers back on for the rest of the
    /// transaction, and changed columns are mapped again. When a tracked table's columns
    /// changed, an entry per tracked table makes readers re-fetch: rows the statement
    /// rewrote cannot be trusted.
    func noteStatementRan() throws(DatabaseError) {
        guard let handle, let resolvedSchemaVersion else { return }
        let version = try connection.schemaVersion()
        guard version != resolvedSchemaVersion else { return }
        if isLogging {
            var layouts: [[String]] = []
            for entity in trackedEntities { layouts.append(try Self.columnNames(of: entity, on: connection)) }
            if layouts != trackedLayouts { roster_capture_mark_unknown(handle) }
            try flush()
        }
        try resolve(atSchemaVersion: version)
    }

    private func resolve(atSchemaVersion version: Int64) throws(DatabaseError) {
        guard let handle else { return }
        roster_capture_untrack_all(handle)
        trackedEntities = []
        trackedLayouts = []
        insertStatement = nil
        var logs = false
        do {
            let tracked = try Self.trackableEntities(on: connection)
            logs = tracked != nil
            for entity in tracked ?? [] where logs {
                logs = try track(entity, with: handle)
            }
        } catch {
            // The triggers log until a later transaction decides again (the version is
            // forgotten, so the next one does).
            handLoggingToTriggers(handle)
            resolvedSchemaVersion = nil
            throw error
        }
        // Triggers off only when the hook logs; should SQLite refuse, the triggers log.
        if logs, roster_capture_set_triggers_enabled(connection.handle, 0) != SQLITE_OK { logs = false }
        if !logs { handLoggingToTriggers(handle) }
        isLogging = logs
        resolvedSchemaVersion = version
        applyImagesWanted()
    }

    /// Tracks nothing and turns the connection's triggers back on: they log its writes.
    private func handLoggingToTriggers(_ handle: OpaquePointer) {
        roster_capture_untrack_all(handle)
        trackedEntities = []
        trackedLayouts = []
        _ = roster_capture_set_triggers_enabled(connection.handle, 1)
        isLogging = false
    }

    private func applyImagesWanted() {
        guard let handle else { return }
        for (table, entity) in trackedEntities.enumerated() {
            roster_capture_want_images(handle, Int32(table), imagesWantedInTransaction.contains(entity.name) ? 1 : 0)
        }
    }

    /// Appends what the transaction changed to the log, as one entry per entity and chunk.
    /// Call it inside the transaction, just before `COMMIT`.
    ///
    /// - Throws: ``DatabaseError`` when the hook ran out of memory (the transaction must
    ///   then roll back: its changes could not all be logged) or the log cannot be written.
    func flush() throws(DatabaseError) {
        guard isLogging, let handle else { return }
        guard roster_capture_failed(handle) == 0 else {
            throw DatabaseError(code: ResultCode(rawValue: SQLITE_NOMEM), message: "change tracking could not record every row this transaction changed (out of memory); the transaction was rolled back")
        }
        roster_capture_set_paused(handle, 1)
        defer { roster_capture_set_paused(handle, 0) }
        for (table, entity) in trackedEntities.enumerated() {
            let chunks = roster_capture_chunk_count(handle, Int32(table))
            guard chunks > 0 else { continue }
            let insert: Statement
            if let statement = insertStatement { insert = statement } else {
                insert = try connection.prepare("INSERT INTO _roster_changes(entity, batch) VALUES (?, ?)")
                insertStatement = insert
            }
            var entries: [Int64] = []
            for chunk in 0..<chunks {
                var size = 0
                guard let bytes = roster_capture_chunk(handle, Int32(table), chunk, &size) else { continue }
                insert.reset()
                try insert.bind(.string(entity.name), at: 1)
                try insert.bindBlob(UnsafeRawBufferPointer(start: bytes, count: size), at: 2)
                defer { insert.reset() }
                _ = try insert.step()
                entries.append(connection.lastInsertRowID)
            }
            var size = 0
            if imagesAreExact, let rows = roster_capture_images(handle, Int32(table), &size) {
                let bytes = [UInt8](UnsafeRawBufferPointer(start: rows, count: size))
                pendingImages.append(OwnRowImages.Images(entity: entity.name, entries: entries, bytes: bytes))
            }
        }
        roster_capture_clear(handle)
    }

    /// Keeps the images of the transaction that just committed.
    func transactionCommitted() {
        if !pendingImages.isEmpty { images.add(pendingImages) }
        pendingImages = []
    }

    /// Notes that this transaction's rows may differ from what the hook saw them become (a
    /// savepoint rolled back, perhaps after a write failed part way): it keeps no images,
    /// and its delivery reads the rows.
    func invalidateImages() {
        imagesAreExact = false
        pendingImages = []
    }

    /// Drops what was captured (the transaction rolled back).
    func discard() {
        pendingImages = []
        guard let handle else { return }
        roster_capture_clear(handle)
    }

    // MARK: Resolving the tracked tables

    /// The entities whose tables have the store's triggers, or nil when the hook cannot
    /// stand in for the triggers: the file holds a trigger that is not the store's, or one
    /// of the store's triggers is on a table no entity names.
    private static func trackableEntities(on connection: Connection) throws(DatabaseError) -> [Entity]? {
        let tables = try SchemaCatalog.entitiesWithTriggers(on: connection)
        let entities: [String: Entity]
        do { entities = try SchemaCatalog.loadEntities(from: connection) } catch {
            // Definitions no entity can be made of: leave the logging to the triggers.
            guard let failure = error.databaseError else { return nil }
            throw failure
        }
        var byTable: [String: Entity] = [:]
        for entity in entities.values { byTable[entity.name.lowercased()] = entity }
        var tracked: [Entity] = []
        var ownTriggers: Set<String> = [SchemaCatalog.removalGuardName]
        for table in tables.sorted() {
            guard let entity = byTable[table] else { return nil }
            tracked.append(entity)
            ownTriggers.formUnion(SchemaCatalog.changeLogObjectNames(of: entity))
        }
        // Any other trigger, whatever its name, is someone else's and must keep running.
        let triggers = try connection.prepare("SELECT lower(name) FROM sqlite_schema WHERE type = 'trigger'")
        while try triggers.step() {
            guard case let .string(name) = triggers.column(0), ownTriggers.contains(name) else { return nil }
        }
        return tracked
    }

    /// Tracks `entity`'s table; false when the table lacks one of its attributes.
    private func track(_ entity: Entity, with handle: OpaquePointer) throws(DatabaseError) -> Bool {
        let names = try Self.columnNames(of: entity, on: connection)
        var columnByName: [String: Int32] = [:]
        for (column, name) in names.enumerated() { columnByName[name] = Int32(column) }
        var columns: [Int32] = []
        for attribute in entity.attributes {
            guard let column = columnByName[attribute.name.lowercased()] else { return false }
            columns.append(column)
        }
        let index = columns.withUnsafeBufferPointer { buffer in
            roster_capture_track(handle, entity.name, columns[entity.keyIndex], buffer.baseAddress, Int32(buffer.count), Int32(names.count))
        }
        guard index >= 0 else { throw DatabaseError(code: ResultCode(rawValue: SQLITE_NOMEM), message: "out of memory tracking entity \(entity.name)") }
        trackedEntities.append(entity)
        trackedLayouts.append(names)
        return true
    }

    /// The table's column names (lowercased), in their order: what the hook's mapping of
    /// the entity's attributes rests on. `table_xinfo`, not `table_info`: it lists
    /// generated columns too, as the hook counts them.
    private static func columnNames(of entity: Entity, on connection: Connection) throws(DatabaseError) -> [String] {
        let info = try connection.prepare("SELECT lower(name) FROM pragma_table_xinfo(?, 'main') ORDER BY cid")
        try info.bind([.string(entity.name)])
        var names: [String] = []
        while try info.step() {
            // Every column keeps its place, named or not.
            if case let .string(name) = info.column(0) { names.append(name) } else { names.append("") }
        }
        return names
    }
}
