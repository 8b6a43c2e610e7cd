/// The seam between a ``Store`` and the database that holds its objects.
///
/// The store keeps what does not depend on the database: checking and coercing values,
/// its live queries (observers), delivery rounds, and the rules of when an entity starts
/// being tracked. A backend does the rest: it keeps the entities' tables, runs writes and
/// transactions, reads committed state for live queries, and records every committed
/// write — whoever made it — so that ``collectChanges(of:)`` can say which keys changed
/// and what their rows were before and are now. The engine, the controllers and the
/// change events above only ever see `Value`s, ``BoundQuery``s, ``OrderedScan``s and
/// ``CommittedChanges``: nothing of which backend runs.
///
/// ``SQLiteStorage`` (a file) and ``PostgresStorage`` (a schema of a shared server)
/// conform; `Docs/Architecture.md` says what each requirement must guarantee, and
/// `Docs/ScaleOut.md` how the PostgreSQL backend meets them.
///
/// A backend is used from the store's isolation domain only, like the store itself.
/// Every method that can fail throws a ``StoreError`` and changes nothing.
protocol StorageBackend: AnyObject {
    // MARK: The database

    /// Where the database is: a file path (or a URL, for a server).
    var path: String { get }
    /// Whether writes are refused (a store opened read-only).
    var isReadOnly: Bool { get }
    /// How long a write waits for another writer's lock before it fails as busy.
    func setBusyTimeout(milliseconds: Int32)
    /// Closes the connections; the backend is not used again.
    func close()

    // MARK: Entities

    /// The entities the database records.
    func loadEntities() throws(StoreError) -> [String: Entity]
    /// Creates the tables of new entities and records them, all in one transaction (no
    /// table of any of their names may exist): one schema change however many there are.
    func create(_ entities: [Entity]) throws(StoreError)
    /// Adds the attributes `migrated` has beyond `existing` (which the database records),
    /// in one transaction, with its change tracking when the entity has any.
    func migrate(from existing: Entity, to migrated: Entity) throws(StoreError)

    // MARK: Transactions

    /// Whether a transaction is open on the writing connection.
    var isInTransaction: Bool { get }
    /// Begins, ends or rolls back a transaction or a savepoint on the writing connection.
    /// A commit that fails rolls the transaction back before it throws.
    func perform(_ step: TransactionStep) throws(StoreError)

    // MARK: Writes (inside a transaction)

    /// Inserts a whole row (one value per attribute, already of its type).
    ///
    /// - Throws: ``StoreError/duplicateKey(entity:key:)`` when the key exists.
    func insert(_ row: [Value], into entity: Entity) throws(StoreError)
    /// Sets attributes of the object with this key; false when there is none.
    func update(_ entity: Entity, key: Value, setting assignments: [(index: Int, value: Value)]) throws(StoreError) -> Bool
    /// Deletes the object with this key; false when there is none.
    func delete(_ entity: Entity, key: Value) throws(StoreError) -> Bool
    /// Runs raw SQL the store accepts (no transaction control, no attachments).
    func execute(_ sql: String, arguments: [Value]) throws(StoreError)
    /// The keys of the objects whose attribute at `index` holds `value`, as the writing
    /// connection sees them (an open transaction's writes included): the objects a
    /// relationship's delete rule applies to.
    func keys(of entity: Entity, whereAttribute index: Int, equals value: Value) throws(StoreError) -> [Value]
    /// The object with this key as the writing connection sees it (an open transaction's
    /// writes included), or nil.
    func row(of entity: Entity, key: Value) throws(StoreError) -> [Value]?

    // MARK: Committed state

    /// The committed rows a query selects, in order (an open transaction is not seen).
    func committedRows(_ query: BoundQuery) throws(StoreError) -> [[Value]]
    /// The committed rows of a range of ranks of a query's results, in order: a window
    /// read without the rest (an index on the sort serves it; the rows before are stepped
    /// over, not read).
    func committedRows(_ query: BoundQuery, ranks: Range<Int>) throws(StoreError) -> [[Value]]
    /// Whether an index gives a query's rows in its order, so that a window of them is
    /// read without sorting every row.
    func hasIndex(serving query: BoundQuery) throws(StoreError) -> Bool
    /// Creates an index that serves a query's order (the sort columns with their
    /// directions, then the key), unless there is one by that name; outside a transaction.
    func createIndex(serving query: BoundQuery) throws(StoreError)
    /// Up to `before` committed results of a query just above the place of `row`'s sort
    /// values (and key) in the order, and up to `after` just below it, in order, without
    /// the row of that key if it stands exactly there: an anchored window read without the
    /// rest (an index on the sort serves each of the few ranges it reads). `row` may be a
    /// row as it was: the place is its values', wherever its key stands now.
    func committedNeighbours(of row: [Value], in query: BoundQuery, before: Int, after: Int) throws(StoreError) -> (above: [[Value]], below: [[Value]])
    /// Whether ``committedNeighbours(of:in:before:after:)`` reads ranges of an index
    /// (O(log *n* + rows)) rather than the whole results: a window opened cold then stays
    /// cold through commits, placed from its edges; otherwise the first commit that
    /// reaches it loads the whole results once, as every later one would read them.
    var readsNeighboursByRange: Bool { get }
    /// The committed rows of the objects whose column `column` (a stored attribute, or a
    /// key-path column of an extended entity) holds one of `values`, in no particular
    /// order: the objects that refer to related objects a commit changed, read in one pass
    /// of the column's index. A list, not a dictionary by key: the caller goes through
    /// them once, and hashing each key here was a tenth of a relationship's rename.
    func committedRows(of entity: Entity, whereColumn column: String, in values: [Value]) throws(StoreError) -> [[Value]]
    /// The committed rows of these keys, those that exist.
    func committedRows(of entity: Entity, keys: [Value]) throws(StoreError) -> [Value: [Value]]
    /// The keys and sort values of a query's committed results, in order.
    func orderedScan(_ query: BoundQuery) throws(StoreError) -> OrderedScan
    /// Hands `body` each committed row a query selects, in no order, with only the values
    /// of `attributes` read (the others null): what its aggregates are built from.
    func forEachCommittedRow(_ query: BoundQuery, reading attributes: Set<Int>, _ body: ([Value]) -> Void) throws(StoreError)

    // MARK: Change tracking

    /// Whether the database the store opened is gone (the file was deleted or replaced):
    /// commits no longer reach the store.
    var hasMoved: Bool { get }
    /// Whether anyone committed since this was last asked (cheap; no log is read).
    func hasChangedSinceLastCheck() throws(StoreError) -> Bool
    /// Starts the read transaction in which a delivery reads changes and live queries read
    /// rows: one consistent committed state.
    func beginCommittedRead() throws(StoreError)
    /// Ends the read transaction; `abandon` after a failed read.
    func endCommittedRead(abandon: Bool)
    /// Whether the read transaction sees no change past the backend's cursor.
    func isAtNewestChange() throws(StoreError) -> Bool
    /// The changes past the cursor for these entities, and moves the cursor past them; nil
    /// when nothing was committed since. Called in the read transaction.
    func collectChanges(of entities: [Entity]) throws(StoreError) -> CommittedChanges?
    /// Says that the next deliveries read these entities' changes (a live query on them
    /// was just opened), before the first of them: a backend that notes the rows of its
    /// own writes for a delivery (SQLite's ``OwnRowImages``) starts with the next write.
    func willDeliver(_ entityNames: [String])
    /// The last change-log entry read: the committed state live queries show. A position
    /// to ask ``changes(of:since:readingRows:)`` about later, in this process or another.
    var changeLogPosition: Int64 { get }
    /// What committed writes did to the entity's rows after `position` through the
    /// newest entry, with each touched key's row at `position` and now, without moving
    /// the cursor; `resync` set when the log no longer reaches back to `position`. Called
    /// in the read transaction. With a `scope`, the keys it leaves unread are not in the
    /// changes (``RowReadScope``).
    func changes(of entity: Entity, since position: Int64, readingRows scope: RowReadScope?) throws(StoreError) -> CommittedChanges
    /// The database's own identifier, the same for every store on it, in every process:
    /// what a resume token is checked against.
    func storeIdentifier() throws(StoreError) -> String
    /// A digest of the change-log entry numbered `position`: the same in every process
    /// that reads the same log, another when the entry holds another write (a file put
    /// back from an older copy numbers its new entries again); nil when no entry has that
    /// number (pruned, or none written) or the backend gives none. A resume token that
    /// keeps its window's rows keeps it, and a resume takes the rows only while the log
    /// still holds that entry.
    func changeLogEntryDigest(at position: Int64) throws(StoreError) -> String?
    /// No changes, at the cursor: what a delivery hands its observers when they must hear
    /// something (a retry, a schema check) but nothing was committed.
    func changesAtCursor() -> CommittedChanges
    /// Notes the committed state the read transaction sees, so that
    /// ``hasChangedSinceLastCheck()`` reports only commits made after it.
    func noteCommittedState()
    /// How long change records stay before ``pruneChanges(of:)`` may drop them.
    var changeLogRetention: ChangeLogRetention { get set }
    /// Housekeeping after a delivery outside a transaction: drops change records every
    /// reader has had time to read (``changeLogRetention``). A failure leaves more
    /// records, nothing worse.
    func pruneChanges(of entities: [Entity])

    // MARK: Tracking entities

    /// Whether the backend records the entity's writes, as far as it knows without looking.
    func isTracking(_ entityName: String) -> Bool
    /// Looks whether the database records the writes of these entities already (another
    /// process may have started it), remembers those it does, and returns the others, at a
    /// cost that does not grow with the number of entities the database has.
    func findTracking(of entities: [Entity]) throws(StoreError) -> [Entity]
    /// Starts recording the writes of these entities, in one write transaction (none may
    /// be open), using each one's definition as the database records it then.
    func startTracking(_ entities: [Entity]) throws(StoreError)
    /// Checks, when the schema changed since the last check (or `always`), that the
    /// entity's table still fits it, before a live query fetches from it.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` naming what changed.
    func checkTable(of entity: Entity, always: Bool) throws(StoreError)
    /// Checks, in a delivery's read transaction, what another connection did to the
    /// entities' tables since the last check; puts back the change tracking of the
    /// `observed` entities when it was removed.
    func checkSchema(of entities: [Entity], observed: Set<String>) throws(StoreError) -> SchemaCheck
}

/// A step of a transaction on the writing connection (``StorageBackend/perform(_:)``).
enum TransactionStep {
    /// Begins a write transaction, taking the write lock at once.
    case begin
    /// Commits; rolls back when the commit fails.
    case commit
    /// Rolls the transaction back.
    case rollback
    /// Opens a savepoint with this name.
    case savepoint(String)
    /// Keeps the savepoint's writes, and closes it.
    case release(String)
    /// Undoes the writes made since the savepoint (which stays open).
    case rollbackTo(String)
}
