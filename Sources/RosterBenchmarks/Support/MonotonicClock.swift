#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one clock every number in the report is read from — the commit hook's stamps
/// included — so that any two of them can be subtracted.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (`CLOCK_MONOTONIC`).
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Nanoseconds of CPU the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what it
    /// did itself, without the time the system or the host gave other work.
    static func threadCPU() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// The nanoseconds from `start` to `end`; zero if the stamps are out of order.
    static func elapsed(from start: UInt64, to end: UInt64) -> UInt64 {
        end >= start ? end - start : 0
    }

    /// Runs `body` and returns its result and how long it took, in nanoseconds.
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, nanoseconds: UInt64) {
        let start = now()
        let result = try body()
        return (result, elapsed(from: start, to: now()))
    }
}
