import Foundation

/// An object store over one SQLite database file, with change tracking for live queries.
///
/// A store keeps entities in tables (one column per attribute), runs writes in
/// transactions, and tells every ``ResultsController`` on it exactly what each committed
/// transaction changed — whether the write came through this API, raw SQL on this store
/// (``execute(_:arguments:)``), or another connection or process writing the same file
/// (seen by ``pollExternalChanges()``).
///
/// ```swift
/// let store = try Store.temporary()
/// try store.define(Entity("Post", key: "id", attributes: [
///     Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer),
/// ]))
/// try store.write {
///     try store.insert("Post", ["id": "p1", "title": "Hello", "rank": 3])
///     try store.update("Post", key: "p1", ["rank": 4])
/// }
/// ```
///
/// ## Isolation
/// `Store` is not `Sendable`: create it and use it, and its results controllers, from one
/// isolation domain (the main actor, another actor, or one thread). Delegate callbacks
/// arrive synchronously on that same domain, after the transaction has committed and
/// before the call that committed it returns. Swift 6's strict concurrency checking keeps
/// a store from being used from two domains at once.
///
/// ## Durability
/// The file is in WAL mode with `synchronous = NORMAL`: a commit is atomic and survives a
/// crash of the process; a power loss may lose the last commits but never corrupts the file.
public final class Store {
    /// The database: tables, writes, transactions, committed reads and change tracking
    /// (``StorageBackend``; SQLite's, ``SQLiteStorage``).
    let storage: any StorageBackend
    /// Entities by name.
    var entitiesByName: [String: Entity] = [:]
    /// Live queries, in the order they were registered.
    var observers: [WeakObserver] = []
    /// How many registrations `removeObserver` emptied since `observers` last dropped them.
    var emptiedObservers = 0
    /// Set while observers are being notified, so nested commits are delivered after.
    var isDelivering = false
    /// Set when a commit happens during delivery, so another round follows.
    var hasPendingDelivery = false
    /// Set when a delivery failed: the next poll delivers even if no other connection
    /// committed meanwhile, so that observers catch up as soon as reads work again.
    var hasFailedDelivery = false
    /// Set once observers have heard that the file was deleted or replaced.
    var hasReportedMovedFile = false
    /// Entities a live query started watching while their tracking could not start at once
    /// (inside a transaction, or during a delivery): the next delivery starts it, and
    /// their live queries re-fetch then (see ``ensureTracking(of:)``).
    var pendingTracking: Set<String> = []
    /// Objects that key paths lead to, as of the committed state observers were last told
    /// about, by entity and key (nil: no object has the key): what a touched row's key-path
    /// values are read from without a query. Kept current by each delivery's changes of
    /// the entity; dropped for an entity whose changes a delivery did not collect, and
    /// entirely on a resync (``RelatedRows``).
    var relatedRows = RelatedRows()
    /// The folder to remove when a temporary store closes.
    private let temporaryDirectory: URL?

    /// The path of the database file; for a store on PostgreSQL, its URL without the password.
    public var path: String { storage.path }

    /// For a store on PostgreSQL: the URL it connected with (password included) and the
    /// channel its schema's commits notify, for a watcher's own connection.
    package var serverChannel: (url: String, channel: String)? {
        #if PostgreSQL
        (storage as? PostgresStorage).map { ($0.url, $0.names.channel) }
        #else
        nil
        #endif
    }

    /// Opens or creates the database file at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file; it is created when it does not exist (unless
    ///     `readOnly`).
    ///   - readOnly: open an existing store for reading only: live queries work and hear
    ///     other connections' commits; every write fails with ``ResultCode/readonly``. The
    ///     file must already be a store of this Roster's log format (open it read-write
    ///     once to create or upgrade it).
    /// - Throws: ``StoreError/database(_:)`` when the file cannot be opened, or
    ///   ``StoreError/schemaMismatch(entity:reason:)`` when it holds Roster metadata that
    ///   cannot be read.
    public convenience init(path: String, readOnly: Bool = false) throws {
        try self.init(path: path, readOnly: readOnly, temporaryDirectory: nil)
    }

    /// Creates a store in a new temporary file, removed when the store is released.
    public static func temporary() throws -> Store {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("roster-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.database(DatabaseError(code: .cantOpen, message: "cannot create temporary directory \(directory.path): \(error)"))
        }
        return try Store(path: directory.appendingPathComponent("store.sqlite").path, readOnly: false, temporaryDirectory: directory)
    }

    /// Opens the store in a PostgreSQL database: the entities, live queries and change
    /// tracking of the schema that the connection's search path names first, shared with
    /// every other client opened on it (Docs/ScaleOut.md).
    ///
    /// - Parameter url: a `postgresql://user:password@host:port/database?…` URL or a
    ///   `key=value` connection string, read as libpq reads it (its environment variables,
    ///   `PGPASSWORD` among them, fill what it leaves out). Name the schema with
    ///   `options=-csearch_path%3Dname`; it must exist. The store's own tables are created
    ///   in it on first open.
    /// - Throws: ``StoreError/server(_:)`` when the server cannot be reached, refuses the
    ///   role or its rights, or the search path names no schema that exists;
    ///   ``StoreError/schemaMismatch(entity:reason:)`` when the schema holds Roster metadata
    ///   that cannot be read.
    ///   In a build without the backend (``RosterRelease/hasPostgreSQL``),
    ///   ``StoreError/server(_:)`` with SQLSTATE `0A000`.
    public convenience init(postgresURL url: String) throws {
        #if PostgreSQL
        try self.init(storage: PostgresStorage(url: url))
        #else
        throw StoreError.server(.notBuilt)
        #endif
    }

    private convenience init(path: String, readOnly: Bool, temporaryDirectory: URL?) throws(StoreError) {
        try self.init(storage: SQLiteStorage(path: path, readOnly: readOnly), temporaryDirectory: temporaryDirectory)
    }

    /// A store over any backend: the one place where a backend is chosen.
    ///
    /// - Parameter temporaryDirectory: a folder to remove (after closing the backend) when
    ///   the store is released.
    init(storage: any StorageBackend, temporaryDirectory: URL? = nil) throws(StoreError) {
        self.storage = storage
        self.temporaryDirectory = temporaryDirectory
        entitiesByName = try storage.loadEntities()
    }

    deinit {
        if let temporaryDirectory {
            storage.close()
            try? FileManager.default.removeItem(at: temporaryDirectory)
        }
    }

    /// How long a write waits for another connection's or process's write lock before it
    /// fails with ``ResultCode/busy`` (and changes nothing). 5 seconds by default.
    ///
    /// On PostgreSQL it is the writer's `lock_timeout` (SQLSTATE `55P03` past it), set when
    /// the next transaction begins (a failure to set it is that write's error); a commit
    /// still waits its turn behind other clients' commits for up to 5 seconds.
    public var busyTimeout: Duration = .seconds(5) {
        didSet {
            let milliseconds = Int32(clamping: busyTimeout.components.seconds * 1_000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000)
            storage.setBusyTimeout(milliseconds: milliseconds)
        }
    }

    /// How long the change log keeps what it recorded before this store prunes it:
    /// ``ChangeLogRetention/default`` (7 days or 100,000 rows, whichever keeps more)
    /// unless set.
    public var changeLogRetention: ChangeLogRetention {
        get { storage.changeLogRetention }
        set { storage.changeLogRetention = newValue }
    }

    /// Whether the store was opened read-only (see ``init(path:readOnly:)``).
    public var isReadOnly: Bool { storage.isReadOnly }

    /// The entities the store knows, by name.
    public var entities: [String: Entity] { entitiesByName }

    /// The entity with this name.
    ///
    /// - Throws: ``StoreError/unknownEntity(_:)``.
    public func entity(named name: String) throws -> Entity {
        try definedEntity(named: name)
    }

    /// ``entity(named:)``, for the store's own code, which throws ``StoreError`` alone
    /// (the public API throws `any Error`: see ``StoreError``).
    func definedEntity(named name: String) throws(StoreError) -> Entity {
        guard let entity = entitiesByName[name] else { throw .unknownEntity(name) }
        return entity
    }

    /// The request bound to its entity as the store defines it now.
    ///
    /// - Throws: ``StoreError`` when the entity, an attribute or the predicate does not fit.
    func bind(_ request: FetchRequest) throws(StoreError) -> BoundQuery {
        let stored = try definedEntity(named: request.entityName)
        // Key paths (`feed.title`) extend the entity with the values they reach.
        let entity: Entity
        do {
            entity = try KeyPathColumns.extend(stored, following: request.attributeNames, lookup: { self.entitiesByName[$0] })
        } catch {
            throw .invalidKeyPath(entity: stored.name, path: error.path, reason: error.reason)
        }
        do {
            return try BoundQuery(request, entity: entity)
        } catch {
            throw StoreError(error)
        }
    }

    /// Creates the entity's table, or checks that the existing table matches it.
    ///
    /// Defining an entity that already exists with the same attributes does nothing. A
    /// definition that adds attributes to the stored one migrates it: the new columns are
    /// added (null in existing objects) after the existing ones. Anything else — an
    /// attribute missing or of another type, another key — is an error, so no data is
    /// ever dropped or converted silently.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` with what differs, or
    ///   ``StoreError/database(_:)``.
    public func define(_ entity: Entity) throws {
        let existing = entitiesByName[entity.name]
        if existing == entity { return }
        guard !isInTransaction else {
            throw StoreError.transaction("define \(entity.name): entities are defined outside transactions")
        }
        if existing == nil, let clash = entitiesByName.keys.first(where: { $0.lowercased() == entity.name.lowercased() }) {
            throw StoreError.schema(.caseClash(entity.name, with: clash))
        }
        try checkRelationships(of: entity)
        if let existing {
            let migrated = try Self.migration(from: existing, to: entity)
            try storage.migrate(from: existing, to: migrated)
            entitiesByName[entity.name] = migrated
        } else {
            try storage.create([entity])
            entitiesByName[entity.name] = entity
        }
    }

    /// Checks that each relationship of `entity` refers to an entity the store defines (or
    /// `entity` itself) by a key of the attribute's type.
    ///
    /// - Throws: ``StoreError/Code/schema`` naming the attribute and what is wrong.
    ///
    /// - Parameter pending: entities about to be defined with it (in the same batch), which
    ///   a relationship may refer to too.
    func checkRelationships(of entity: Entity, among pending: [String: Entity] = [:]) throws(StoreError) {
        for attribute in entity.attributes {
            guard let relationship = attribute.relationship else { continue }
            let destination = relationship.destination == entity.name ? entity : entitiesByName[relationship.destination] ?? pending[relationship.destination]
            guard let destination else {
                throw .schema(SchemaError("relationship '\(attribute.name)' of entity '\(entity.name)' refers to '\(relationship.destination)', which the store does not define; define it first"))
            }
            guard destination.key.type == attribute.type else {
                throw .schema(SchemaError("relationship '\(attribute.name)' of entity '\(entity.name)' is \(attribute.type.article) \(attribute.type.rawValue), but '\(destination.name)' has \(destination.key.type.article) \(destination.key.type.rawValue) key"))
            }
            guard entity.keyIndex != entity.index(of: attribute.name) else {
                throw .schema(SchemaError("the key '\(attribute.name)' of entity '\(entity.name)' cannot be a relationship"))
            }
        }
    }

    /// The entity that results from migrating `existing` to `wanted`: the existing
    /// attributes, then those `wanted` adds.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` unless `wanted` has every
    ///   existing attribute with the same type, and the same key.
    private static func migration(from existing: Entity, to wanted: Entity) throws(StoreError) -> Entity {
        guard existing.key.name == wanted.key.name else {
            throw .schemaMismatch(entity: wanted.name, reason: "its key is '\(existing.key.name)' in the database, not '\(wanted.key.name)'")
        }
        var kept: [Attribute] = []
        for attribute in existing.attributes {
            guard let match = wanted.attribute(named: attribute.name) else {
                throw .schemaMismatch(entity: wanted.name, reason: "attribute '\(attribute.name)' is in the database but not in the new definition; Roster does not drop columns (their data would be lost)")
            }
            guard match.type == attribute.type else {
                throw .schemaMismatch(entity: wanted.name, reason: "attribute '\(attribute.name)' is \(attribute.type.rawValue) in the database, not \(match.type.rawValue); Roster does not convert stored values")
            }
            // A relationship may be added to an attribute, and its delete rule changed; it
            // keeps its destination (the stored keys are that entity's).
            if let stored = attribute.relationship, match.relationship?.destination != stored.destination {
                throw .schemaMismatch(entity: wanted.name, reason: "attribute '\(attribute.name)' refers to '\(stored.destination)' in the database; a relationship keeps its destination")
            }
            var updated = attribute
            updated.relationship = match.relationship
            kept.append(updated)
        }
        let added = wanted.attributes.filter { existing.attribute(named: $0.name) == nil }
        do {
            return try Entity(existing.name, key: existing.key.name, attributes: kept + added, allowingReservedAttributeNames: true)
        } catch {
            throw .schema(error)
        }
    }
}
