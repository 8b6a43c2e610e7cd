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
/// ```swift
/// let queue = try StoreQueue.temporary()
/// try queue.write { store in try store.define(postEntity) }
/// Task.detached {   // a background sync
///     try queue.write { store in try store.insert("Post", ["id": "p1", "day": "2026-11-20"]) }
/// }
/// ```
public final class StoreQueue: Sendable {
    private let store: SerializedStore
    /// The database file's path.
    public let path: String
    private let poller = Mutex<Task<Void, Never>?>(nil)

    /// Opens or creates the database file at `path`.
    ///
    /// - Throws: ``StoreError`` as ``Store/init(path:)`` does.
    public convenience init(path: String) throws(StoreError) {
        try self.init(store: Store(path: path))
    }

    /// A queue over a new temporary store, removed when the queue is released.
    public static func temporary() throws(StoreError) -> StoreQueue {
        try StoreQueue(store: Store.temporary())
    }

    private init(store: Store) {
        path = store.path
        self.store = SerializedStore(store)
    }

    deinit {
        poller.withLock { $0?.cancel() }
    }

    /// Runs `body` in one transaction, committed if it returns and rolled back if it
    /// throws. Live queries hear about the commit after it; their consumers are not waited for.
    ///
    /// - Throws: what `body` throws, or ``StoreError``.
    @discardableResult
    public func write<T: Sendable>(_ body: (Store) throws -> T) throws -> T {
        try store.withLock { store throws -> T in
            try store.write { try body(store) }
        }
    }

    /// Runs `body` with the store, outside any transaction it does not open itself: for
    /// reads, schema definitions, or several transactions in a row.
    ///
    /// - Throws: what `body` throws.
    @discardableResult
    public func read<T: Sendable>(_ body: (Store) throws -> T) throws -> T {
        try store.withLock { store throws -> T in try body(store) }
    }

    /// Checks for commits by other connections or processes and tells live queries.
    ///
    /// - Returns: whether anything was committed since the last check.
    @discardableResult
    public func pollExternalChanges() throws(StoreError) -> Bool {
        try store.withLock { store throws(StoreError) -> Bool in try store.pollExternalChanges() }
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
