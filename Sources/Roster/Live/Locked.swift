import Foundation

/// A value that one thread at a time may read or change: `Synchronization.Mutex`'s
/// `withLock` over an `NSLock`.
///
/// Why not `Mutex`: on Linux it is built on futexes that ThreadSanitizer does not model,
/// so TSan reports races in code that locks correctly (an eight-line program that counts
/// to 200,000 under a `Mutex` from two threads gets the right count and a race report).
/// `NSLock` is a POSIX mutex, which TSan follows, so the sanitizer run in `.ci/run`
/// checks Roster's own locking instead of crying wolf. The cost per lock is the same.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A lock without a value: what guards a ``LiveResults``' engine for the frozen orders its
/// snapshots read (``FrozenSections``), which must not hold the live results themselves.
final class EngineLock: Sendable {
    private let lock = NSLock()

    /// Runs `body` holding the lock.
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
