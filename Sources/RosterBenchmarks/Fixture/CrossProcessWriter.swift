import Foundation
import Roster
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The other process of the `cross-process` scenario, run as `roster bench-writer`: opens
/// the store the bench made, and inserts one post per commit, each after the bench
/// acknowledged the previous one.
///
/// Protocol, one line each way per commit: after commit `i` the writer prints
/// `i STAMP` on standard output, where `STAMP` is when the commit was done
/// (`CLOCK_MONOTONIC` nanoseconds, taken by the same WAL hook as every other scenario's
/// commit stamps, in this process); then it waits for a line on standard input before
/// the next commit. Before each commit it pauses a random time below `maximumPause`, so
/// that commits fall at random moments of the reader's poll timer. It stops after
/// `commits` commits, or when standard input ends.
package enum CrossProcessWriter {
    /// The day of the inserted posts: a section in the middle of the fixture's 30.
    static let day = "2026-10-15"

    /// The key of the i-th post the writer inserts.
    static func key(prefix: String, _ index: Int) -> String {
        "\(prefix)\(index)"
    }

    /// Runs the writer in this process; see the type's documentation.
    ///
    /// - Throws: `StoreError` or ``BenchmarkError`` when the store cannot be opened or a
    ///   commit fails.
    package static func run(storePath: String, commits: Int, keyPrefix: String, maximumPause: Duration, seed: UInt64) throws {
        // On a PostgreSQL server (the `server` scenario) the stamp is taken just before the
        // COMMIT is sent, in a transaction of the insert; on a file, SQLite's WAL hook stamps it.
        let onServer = PostgresSchema.isURL(storePath)
        let store: Store
        if onServer {
            store = try Store(postgresURL: storePath)
        } else {
            try CommitClock.install()
            guard FileManager.default.fileExists(atPath: storePath) else {
                throw BenchmarkError("no store at '\(storePath)'")
            }
            store = try Store(path: storePath)
        }
        var random = SeededGenerator(seed: seed)
        let (seconds, attoseconds) = maximumPause.components
        let maximumNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        for index in 0..<commits {
            if maximumNanoseconds > 0 {
                pause(nanoseconds: UInt64.random(in: 0..<maximumNanoseconds, using: &random))
            }
            CommitClock.arm()
            let values: [String: Value] = [
                "id": .string(key(prefix: keyPrefix, index)), "day": .string(day),
                "rank": .integer(-1 - Int64(index)), "score": .double(0), "title": .string("From another process \(index)"),
                "pinned": .bool(false),
            ]
            var beforeCommit: UInt64?
            if onServer {
                try store.write {
                    try store.insert("Post", values)
                    beforeCommit = MonotonicClock.now()
                }
            } else {
                try store.insert("Post", values)
            }
            guard let stamp = onServer ? beforeCommit : CommitClock.firstCommitSinceArm else {
                throw BenchmarkError("commit #\(index) was not stamped")
            }
            FileHandle.standardOutput.write(Data("\(index) \(stamp)\n".utf8))
            if index < commits - 1, !readLine(from: STDIN_FILENO) { return }
        }
    }

    /// Reads up to a line feed; false at the end of the input.
    private static func readLine(from descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return false }
            if byte == UInt8(ascii: "\n") { return true }
        }
    }

    private static func pause(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
