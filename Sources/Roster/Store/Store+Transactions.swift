extension Store {
    /// Whether a transaction is open on the store's connection.
    public var isInTransaction: Bool { storage.isInTransaction }

    /// Runs `body` in one transaction: it commits if `body` returns and rolls back if it throws.
    ///
    /// Live queries hear about the transaction once, after it commits, before `write`
    /// returns. Called inside another transaction, `body` runs in a savepoint of it, so a
    /// throw undoes only what `body` did.
    ///
    /// - Throws: what `body` throws (after rolling back), or ``StoreError``.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try beginTransaction()
        let result: T
        do {
            result = try body()
        } catch {
            try? rollback()
            throw error
        }
        try commit()
        return result
    }

    /// Runs `body` in a savepoint: if it throws, everything it did is undone and the
    /// enclosing transaction goes on. Outside a transaction it is ``write(_:)``: `body`
    /// runs in a transaction of its own.
    ///
    /// - Throws: what `body` throws, or ``StoreError``.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        // Outside a transaction a savepoint is one: the same as `write`, which takes the
        // write lock at once and commits through the one path that logs the changes.
        guard isInTransaction else { return try write(body) }
        try storage.perform(.savepoint("roster_savepoint"))
        let result: T
        do {
            result = try body()
        } catch {
            try? storage.perform(.rollbackTo("roster_savepoint"))
            try? storage.perform(.release("roster_savepoint"))
            throw error
        }
        try storage.perform(.release("roster_savepoint"))
        return result
    }

    /// Opens a transaction that lasts until ``commit()`` or ``rollback()``.
    ///
    /// The store takes the write lock at once (`BEGIN IMMEDIATE`), so another connection
    /// cannot slip a write in between and make the commit fail later.
    ///
    /// - Throws: ``StoreError/transaction(_:)`` when a transaction is already open.
    public func beginTransaction() throws {
        guard !isInTransaction else { throw StoreError.transaction("begin: a transaction is already open") }
        try storage.perform(.begin)
    }

    /// Commits the open transaction, then tells live queries what it changed.
    ///
    /// - Throws: ``StoreError/transaction(_:)`` when no transaction is open, or
    ///   ``StoreError/database(_:)`` when SQLite cannot commit (the transaction is then rolled back).
    public func commit() throws {
        try commitTransaction()
    }

    /// ``commit()``, for the store's own code, which throws ``StoreError`` alone.
    func commitTransaction() throws(StoreError) {
        guard isInTransaction else { throw .transaction("commit: no transaction is open") }
        try storage.perform(.commit)
        deliverChanges()
    }

    /// Rolls back the open transaction: nothing it did is kept, and nothing is reported.
    ///
    /// - Throws: ``StoreError/transaction(_:)`` when no transaction is open.
    public func rollback() throws {
        guard isInTransaction else { throw StoreError.transaction("rollback: no transaction is open") }
        try storage.perform(.rollback)
    }

    /// Checks whether another connection or process has committed to the file, and if so
    /// tells live queries what changed.
    ///
    /// Call it when another process may have written — on a timer, or when told so. It
    /// costs one `PRAGMA data_version` when nothing happened. After a delivery failed
    /// (observers heard the error), it delivers again even if nothing new was committed.
    ///
    /// - Returns: whether anything was committed since the last check.
    /// - Throws: ``StoreError/database(_:)`` when the file cannot be read, or was deleted or
    ///   replaced under the store (live queries hear that once, through their error channel).
    @discardableResult
    public func pollExternalChanges() throws -> Bool {
        guard !isInTransaction else { return false }
        if storage.hasMoved {
            // Commits to the file at `path` no longer reach this store, nor its own reach others.
            let error = StoreError.database(DatabaseError(code: .cantOpen, message: "the database file '\(path)' was deleted or replaced while the store had it open: this store no longer sees other connections' commits; open the store again"))
            if !hasReportedMovedFile {
                hasReportedMovedFile = true
                for registration in observers { registration.observer?.storeDidFailToDeliver(error, mustResync: false) }
            }
            throw error
        }
        let changed: Bool
        do {
            changed = try storage.hasChangedSinceLastCheck()
        } catch {
            // Pollers on a timer drop what they throw; the live queries must hear it.
            for registration in observers { registration.observer?.storeDidFailToDeliver(error, mustResync: false) }
            throw error
        }
        // Entities whose tracking waits (first watched in a transaction that rolled back)
        // start it now: on PostgreSQL, other clients' commits until then leave nothing for
        // `hasChangedSinceLastCheck()` to see, and would wait for this store's next commit.
        if changed || hasFailedDelivery || !pendingTracking.isEmpty { deliverChanges() }
        return changed
    }

    /// Delivers other clients' commits after a server said there were some (a
    /// notification), without first asking whether there were: what a watching queue on
    /// PostgreSQL does on each notification. Outside a transaction only, like a poll.
    func deliverNotifiedChanges() {
        guard !isInTransaction else { return }
        deliverChanges()
    }

    /// How many times a write of the store's own transaction is tried when the server
    /// rolls it back for a serialization failure or a deadlock (``ServerError/isRetryable``).
    static let maximumWriteAttempts = 4

    /// Runs `body` as one atomic write: in a savepoint inside a transaction, or in its own
    /// transaction followed by delivery of the changes.
    ///
    /// In its own transaction, a write that the server rolled back for a serialization
    /// failure or a deadlock is run again, up to ``maximumWriteAttempts`` times, then the
    /// error is thrown; nothing of a failed attempt is kept. (Inside a caller's
    /// transaction the caller decides: the whole transaction must run again.)
    func atomically<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        guard !isInTransaction else { return try attempt(body) }
        var attempts = 1
        while true {
            do {
                return try attempt(body)
            } catch where error.serverError?.isRetryable == true && attempts < Self.maximumWriteAttempts {
                attempts += 1
            }
        }
    }

    /// ``atomically(_:)``'s one attempt.
    private func attempt<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let outermost = !isInTransaction
        try storage.perform(outermost ? .begin : .savepoint("roster_statement"))
        let result: T
        do {
            result = try body()
        } catch {
            if outermost {
                try? storage.perform(.rollback)
            } else {
                try? storage.perform(.rollbackTo("roster_statement"))
                try? storage.perform(.release("roster_statement"))
            }
            throw error
        }
        if outermost {
            try commitTransaction()
        } else {
            try storage.perform(.release("roster_statement"))
        }
        return result
    }
}
