import Foundation
import Synchronization

/// A ``Store`` that any thread, task or actor can use: every call is serialized.
///
/// `Store` belongs to one isolation domain. `StoreQueue` wraps one in a lock so that a
/// background sync task can write while the main actor reads, and so that ``LiveResults``
/// can deliver changes on the actor of your choice. Calls block while another call holds
/// the store (like GRDB's `DatabaseQueue`); keep them short. A writer never waits for a
/// live query's consumer: commits only leave a note in each live query's inbox.
///
/// ## The store stays inside the lock
/// ``read(_:)`` and ``write(_:)`` lend the `Store` to a `@Sendable` closure, and return
/// only `Sendable` values, so the compiler (Swift 6 language mode) refuses code that would
/// keep the store after the closure returns and use it while another thread holds the
/// queue: assigning it to a captured variable (`var s: Store?; try queue.read { s = $0 }`),
/// to a property of a captured object, or to actor-isolated state, returning it, or
/// sending it to a task or a `Mutex` (region-based isolation checking refuses those). The
/// same holds for the objects the store makes, such as a ``ResultsController``: return
/// what they computed (a count, a snapshot), not them. Only explicit opt-outs of checking
/// (`nonisolated(unsafe)`, `@unchecked Sendable`, unsafe pointers) get past this, and
/// using a store obtained that way outside the lock is a data race. A closure cannot
/// capture mutable variables of its caller: return the result instead.
///
/// ```swift
/// let queue = try StoreQueue.temporary()
/// try queue.read { store in try store.define(postEntity) }   // outside a transaction
/// Task.detached {   // a background sync
///     try queue.write { store in try store.insert("Post", ["id": "p1", "day": "2026-11-20"]) }
/// }
/// ```
public final class StoreQueue: Sendable {
    private let store: SerializedStore
    /// The database file's path; for a store on PostgreSQL, its URL without the password.
    public let path: String
    /// The server's URL (password included) and the schema's notification channel, for a
    /// store on PostgreSQL.
    private let server: (url: String, channel: String)?
    private let poller = Locked<Task<Void, Never>?>(nil)
    private let watcher = Locked<ChangeWatch?>(nil)

    /// Opens or creates the database file at `path`.
    ///
    /// - Throws: ``StoreError`` as ``Store/init(path:readOnly:)`` does.
    public convenience init(path: String) throws {
        try self.init(store: Store(path: path))
    }

    /// Opens the store in a PostgreSQL database, as ``Store/init(postgresURL:)`` does.
    ///
    /// - Throws: ``StoreError`` as ``Store/init(postgresURL:)`` does.
    public convenience init(postgresURL url: String) throws {
        try self.init(store: Store(postgresURL: url))
    }

    /// A queue over a new temporary store, removed when the queue is released.
    public static func temporary() throws -> StoreQueue {
        try StoreQueue(store: Store.temporary())
    }

    private init(store: Store) {
        path = store.path
        server = store.serverChannel
        self.store = SerializedStore(store)
    }

    deinit {
        poller.withLock { $0?.cancel() }
        watcher.withLock { $0?.stop() }
    }

    /// Runs `body` in one transaction, committed if it returns and rolled back if it
    /// throws. Live queries hear about the commit after it; their consumers are not waited for.
    ///
    /// `body` is `@Sendable` so that the store cannot leave it (see "The store stays
    /// inside the lock" above); it runs before `write` returns, on the calling thread.
    ///
    /// - Throws: what `body` throws, or ``StoreError``.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (Store) throws -> T) throws -> T {
        try store.withLock { store throws -> T in
            try store.write { try body(store) }
        }
    }

    /// Runs `body` with the store, outside any transaction it does not open itself: for
    /// reads, schema definitions, or several transactions in a row.
    ///
    /// `body` is `@Sendable` so that the store cannot leave it (see "The store stays
    /// inside the lock" above); it runs before `read` returns, on the calling thread.
    ///
    /// - Throws: what `body` throws.
    @discardableResult
    public func read<T: Sendable>(_ body: @Sendable (Store) throws -> T) throws -> T {
        try store.withLock { store throws -> T in try body(store) }
    }

    /// Checks for commits by other connections or processes and tells live queries.
    ///
    /// - Returns: whether anything was committed since the last check.
    @discardableResult
    public func pollExternalChanges() throws -> Bool {
        try store.withLock { store in try store.pollExternalChanges() }
    }

    /// Polls for other processes' commits every `interval`, until ``stopPolling()`` or the
    /// queue is released. Each poll costs one `PRAGMA data_version` when nothing changed.
    public func startPolling(every interval: Duration = .milliseconds(100)) {
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                _ = try? self.pollExternalChanges()
            }
        }
        poller.withLock { current in
            current?.cancel()
            current = task
        }
    }

    /// Stops the polling that ``startPolling(every:)`` started.
    public func stopPolling() {
        poller.withLock { current in
            current?.cancel()
            current = nil
        }
    }

    /// Wakes live queries when another process commits, without polling on a timer:
    /// watches the database file and its `-wal` file and polls (``pollExternalChanges()``)
    /// when they change, so a commit in another process reaches live queries' inboxes
    /// within a millisecond or so (see `Docs/Delivery.md`).
    ///
    /// The polls run on a thread of the queue's own (a ``FileChangeMonitor``'s), one at a
    /// time, under the queue's lock like any other call; consumers still take changes in
    /// their own isolation. Besides file events, the queue polls every `safetyPoll`, so a
    /// missed event delays a change but never loses it. Where file events are unavailable
    /// (no inotify, or the directory cannot be watched) it polls every `fallbackPoll`
    /// instead, as ``startPolling(every:)`` would; ``watchMode`` says which.
    ///
    /// Calling it again replaces the watch; ``stopWatching()`` or releasing the queue ends it.
    /// It is independent of ``startPolling(every:)``: use one or the other.
    public func startWatching(safetyPoll: Duration = .seconds(1), fallbackPoll: Duration = .milliseconds(100)) {
        let watch = serverWatch(safetyPoll: safetyPoll, retryInterval: fallbackPoll)
            ?? .file(FileChangeMonitor(databasePath: path, safetyInterval: safetyPoll, fallbackInterval: fallbackPoll) { [weak self] in
                _ = try? self?.pollExternalChanges()
            })
        let previous = watcher.withLock { current in
            defer { current = watch }
            return current
        }
        previous?.stop()
    }

    /// Stops the watching that ``startWatching(safetyPoll:fallbackPoll:)`` started. A poll
    /// already under way on the watching thread finishes; none starts after it.
    public func stopWatching() {
        let previous = watcher.withLock { current in
            defer { current = nil }
            return current
        }
        previous?.stop()
    }

    /// How the queue learns of other processes' commits while it watches
    /// (``startWatching(safetyPoll:fallbackPoll:)``): file events or polling; nil when it
    /// does not watch.
    public var watchMode: FileChangeMonitor.Mode? {
        watcher.withLock { $0?.mode }
    }

    /// For a queue on PostgreSQL, the watch that listens for its schema's notifications;
    /// nil for a file (and in a build without the PostgreSQL backend, which has no server).
    private func serverWatch(safetyPoll: Duration, retryInterval: Duration) -> ChangeWatch? {
        #if PostgreSQL
        guard let server else { return nil }
        return .server(ServerChangeMonitor(url: server.url, channel: server.channel, safetyInterval: safetyPoll, retryInterval: retryInterval) { [weak self] notified in
            guard let self else { return }
            // A notification means a commit: deliver without asking whether there was one.
            if notified {
                self.store.withLock { $0.deliverNotifiedChanges() }
            } else {
                _ = try? self.pollExternalChanges()
            }
        })
        #else
        return nil
        #endif
    }

    /// What watches for other processes' or clients' commits.
    private enum ChangeWatch: Sendable {
        case file(FileChangeMonitor)
        #if PostgreSQL
        case server(ServerChangeMonitor)
        #endif

        var mode: FileChangeMonitor.Mode {
            switch self {
            case let .file(monitor): monitor.mode
            #if PostgreSQL
            case .server: .serverNotifications
            #endif
            }
        }

        func stop() {
            switch self {
            case let .file(monitor): monitor.stop()
            #if PostgreSQL
            case let .server(monitor): monitor.stop()
            #endif
            }
        }
    }

    /// Runs `body` with the store under the lock, for the live-results machinery.
    func withStore<T: Sendable>(_ body: (Store) throws(StoreError) -> T) throws(StoreError) -> T {
        try store.withLock { store throws(StoreError) -> T in try body(store) }
    }
}

/// The one place where a non-`Sendable` ``Store`` crosses threads: it is only ever touched
/// inside ``withLock(_:)``, one caller at a time, which is what makes the unchecked
/// `Sendable` conformance sound (GRDB's `SerializedDatabase` does the same). SQLite's
/// connections are opened in multi-thread mode, so using them from successive threads
/// under a lock is allowed.
private final class SerializedStore: @unchecked Sendable {
    private let store: Store
    private let lock = NSLock()

    init(_ store: Store) {
        self.store = store
    }

    func withLock<T, E: Error>(_ body: (Store) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(store)
    }
}
