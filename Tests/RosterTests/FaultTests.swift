import Foundation
import RosterTestSupport
import Testing
@testable import Roster

/// What a user sees when the file under a store misbehaves: another process holding the
/// write lock, a full database, a damaged file, the file deleted or replaced, a file
/// opened read-only. Each is a clear error; nothing is half-written; live queries keep
/// their results; nothing traps.
@Suite("Faults")
struct FaultTests {
    typealias Watched = WatchedPosts

    func databaseCode(of error: any Error) -> ResultCode? {
        (error as? StoreError)?.databaseError?.code
    }

    /// The files this process has open whose path starts with `prefix` (Linux's /proc).
    func openFiles(under prefix: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(prefix) }
    }

    /// A store that had live queries and deliveries (which compile the connection's own
    /// `PRAGMA schema_version`) closes its file when released. It kept it open before:
    /// the connection held a statement that held the connection, so every store leaked its
    /// descriptors, and the script fuzzer ran out of them after about 4,000 stores.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func aReleasedStoreClosesItsFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-fd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let watched = try Watched(store: Store(path: path))
            try watched.store.insert("Post", ["id": "p9", "rank": 9])
            try watched.store.pollExternalChanges()
            #expect(watched.recorder.takeGroups().count == 1)
            #expect(!openFiles(under: folder.path).isEmpty, "the store has its file open while it lives")
        }
        #expect(openFiles(under: folder.path).isEmpty, "files still open after the store was released: \(openFiles(under: folder.path))")
    }

    @Test func anotherProcessHoldingTheWriteLockIsAClearBusyErrorAfterTheTimeout() throws {
        let watched = try Watched()
        watched.store.busyTimeout = .milliseconds(200)
        let other = try Connection(path: watched.store.path)
        try other.execute("BEGIN IMMEDIATE; UPDATE Post SET rank = 7 WHERE id = 'p1'")
        let start = ContinuousClock.now
        do {
            try watched.store.insert("Post", ["id": "p9", "rank": 9])
            Issue.record("the write went through another connection's lock")
        } catch {
            #expect(databaseCode(of: error) == .busy, "\(error)")
            #expect("\(error)".contains("locked"), "\(error)")
        }
        #expect(ContinuousClock.now - start >= .milliseconds(150), "the store waited its busy timeout")
        #expect(watched.recorder.takeGroups().isEmpty)
        try other.execute("ROLLBACK")
        try watched.store.insert("Post", ["id": "p9", "rank": 9])
        #expect(watched.recorder.takeGroups().count == 1)
    }

    @Test func aFullDatabaseFailsTheWriteAndLosesNothing() throws {
        let watched = try Watched()
        let before = watched.controller.snapshot
        // SQLite's page limit stands in for a full disk: both fail with SQLITE_FULL.
        try watched.store.execute("PRAGMA max_page_count = \(try pageCount(watched.store) + 2)")
        let big = String(repeating: "x", count: 20_000)
        do {
            try watched.store.write {
                for index in 0..<20 { try watched.store.insert("Post", ["id": .string("big\(index)"), "title": .string(big)]) }
            }
            Issue.record("twenty 20 KB rows fit in two pages")
        } catch {
            #expect(databaseCode(of: error) == .full, "\(error)")
        }
        #expect(watched.recorder.takeGroups().isEmpty)
        #expect(watched.controller.snapshot == before)
        #expect(try watched.store.fetch("Post", key: "big0") == nil, "nothing of the failed transaction is kept")
        try watched.store.execute("PRAGMA max_page_count = 1000000")
        try watched.store.insert("Post", ["id": "p4", "rank": 4, "title": .string(big)])
        #expect(watched.recorder.takeGroups().count == 1)
    }

    /// Runs a program to its end; its status and what it printed.
    func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try Programs.run(executable: URL(fileURLWithPath: program), arguments)
    }

    /// A real full disk: the store on a 512 KiB tmpfs, written past its end (`ENOSPC`), then
    /// the file system made larger. Mounting needs root, which CI has; elsewhere the test
    /// runs only where `mount` works, and under `CI=true` a failed mount is a failure.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/mount"), "mounting a tmpfs needs Linux's mount"))
    func aFullFileSystemFailsTheWriteAndLosesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", folder.path])
        guard mounted.status == 0 else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("cannot mount a tmpfs for the full-disk test: \(mounted.output)")
            }
            return
        }
        defer { _ = try? run("/bin/umount", [folder.path]) }
        try writePastAFullFileSystem(folder)
    }

    /// The body of the full-disk test, in its own function so that the store is released,
    /// and its files closed, before the tmpfs is unmounted.
    func writePastAFullFileSystem(_ folder: URL) throws {
        let watched = try Watched(store: Store(path: folder.appendingPathComponent("store.sqlite").path))
        let before = watched.controller.snapshot
        let big = String(repeating: "x", count: 20_000)
        do {
            try watched.store.write {
                for index in 0..<40 { try watched.store.insert("Post", ["id": .string("big\(index)"), "title": .string(big)]) }
            }
            Issue.record("forty 20 KB rows fit in a 512 KiB file system")
        } catch {
            #expect(databaseCode(of: error) == .full, "\(error)")
        }
        #expect(watched.recorder.takeGroups().isEmpty)
        #expect(watched.controller.snapshot == before)
        #expect(try watched.store.fetch("Post", key: "big0") == nil, "nothing of the failed transaction is kept")
        #expect(try watched.isExact())

        // Room again: the same store writes, and its live query hears it.
        let grown = try run("/bin/mount", ["-o", "remount,size=16m", folder.path])
        try #require(grown.status == 0, "\(grown.output)")
        try watched.store.write {
            for index in 0..<40 { try watched.store.insert("Post", ["id": .string("big\(index)"), "title": .string(big)]) }
        }
        #expect(watched.recorder.takeGroups().map { $0.objectChanges.count } == [40])
        #expect(try watched.isExact())
    }

    func pageCount(_ store: Store) throws -> Int {
        let statement = try store.writer.prepare("PRAGMA page_count")
        _ = try statement.step()
        guard case let .integer(count) = statement.column(0) else { return 0 }
        return Int(count)
    }

    @Test(arguments: 0..<12)
    func aDamagedFileIsAnErrorNeverACrash(seed: Int) throws {
        let source = try Watched()
        try source.store.write {
            for index in 0..<300 { try source.store.insert("Post", ["id": .string("q\(index)"), "rank": .integer(Int64(index)), "title": .string(String(repeating: "t", count: index))]) }
        }
        try Connection(path: source.store.path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("roster-damaged-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source.store.path)))
        var random = SplitMix64(seed: UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1)
        // Garbage over a run of bytes; the first seeds also hit the header.
        let start = seed < 3 ? Int.random(in: 0..<100, using: &random) : Int.random(in: 100..<bytes.count, using: &random)
        for index in start..<min(bytes.count, start + Int.random(in: 1...4_096, using: &random)) {
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        // Whatever the damage, each step either works or throws a StoreError.
        do {
            let store = try Store(path: copy)
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
            try controller.performFetch()
            _ = try? controller.fetchedObjects
            try? store.insert("Post", ["id": "new", "rank": 1])
            try? store.update("Post", key: "q5", ["rank": 500])
            _ = try? store.pollExternalChanges()
        } catch {
            #expect(!"\(error)".isEmpty)
        }
    }

    @Test func aDatabaseFileDeletedUnderALiveStoreIsReportedToLiveQueries() throws {
        let watched = try Watched()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: watched.store.path + suffix) }
        do {
            _ = try watched.store.pollExternalChanges()
            Issue.record("polling a deleted file succeeded")
        } catch {
            #expect("\(error)".contains("deleted or replaced"), "\(error)")
        }
        #expect(watched.recorder.errors.count == 1, "live queries hear it")
    }

    @Test func aDatabaseFileReplacedUnderALiveStoreIsReportedToLiveQueries() throws {
        let watched = try Watched()
        let other = try Watched()
        try FileManager.default.removeItem(atPath: watched.store.path)
        try FileManager.default.copyItem(atPath: other.store.path, toPath: watched.store.path)
        #expect(throws: StoreError.self) { try watched.store.pollExternalChanges() }
        #expect(watched.recorder.errors.count == 1)
    }

    @Test func aReadOnlyStoreReadsAndRefusesWritesClearly() throws {
        let watched = try Watched()
        let readOnly = try Store(path: watched.store.path, readOnly: true)
        let controller = try ResultsController(store: readOnly, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try controller.performFetch()
        #expect(controller.snapshot == watched.controller.snapshot)
        do {
            try readOnly.insert("Post", ["id": "p9", "rank": 9])
            Issue.record("a read-only store wrote")
        } catch {
            #expect(databaseCode(of: error) == .readonly, "\(error)")
        }
        // Another connection writes; the read-only store's live query hears it.
        try watched.store.update("Post", key: "p1", ["rank": 8])
        try readOnly.pollExternalChanges()
        #expect(controller.snapshot == watched.controller.snapshot)
    }
}

@Suite("Value limits")
struct ValueLimitTests {
    @Test func textOverTheLimitIsAClearErrorAndChangesNothing() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "title": "short"])
        let long = Value.string(String(repeating: "x", count: StoreLimits.maxTextBytes + 1))
        #expect(throws: StoreError.valueTooLarge(entity: "Post", attribute: "title", bytes: StoreLimits.maxTextBytes + 1, limit: StoreLimits.maxTextBytes)) {
            try store.update("Post", key: "p1", ["title": long])
        }
        #expect(throws: StoreError.self) { try store.insert("Post", ["id": "p2", "title": long]) }
        #expect(try store.fetch("Post", key: "p1")?["title"] == "short")
        #expect(try store.fetch("Post", key: "p2") == nil)
        // At the limit it is stored.
        try store.update("Post", key: "p1", ["title": .string(String(repeating: "y", count: StoreLimits.maxTextBytes))])
    }
}
