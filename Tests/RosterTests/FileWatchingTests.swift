import Foundation
import Synchronization
import Testing
@testable import Roster

/// `StoreQueue.startWatching` and `FileChangeMonitor`: other connections' commits wake live
/// queries through file events, not a timer. Every test here sets the safety poll far
/// beyond its time limit, so a change that arrives in time arrived through a file event.
/// Serialized: one test counts the process's inotify descriptors, which only this suite makes.
@Suite("Watching the database file", .serialized)
struct FileWatchingTests {
    /// A safety poll that cannot fire during a test.
    static let neverPoll: Duration = .seconds(30)
    /// The longest a change may take to arrive.
    static let limit: Duration = .seconds(2)

    func makeQueue() throws -> StoreQueue {
        let queue = try StoreQueue.temporary()
        try queue.read { store in try store.define(postEntity()) }
        return queue
    }

    /// Takes changes until one arrives or `limit` passes.
    func awaitChange(of results: LiveResults, within limit: Duration) async throws -> (ResultsChange, Duration)? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if let change = try results.takeChange() { return (change, clock.now - start) }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    /// Lets the calls that follow earlier file events (up to 300 ms after) pass, so that
    /// only a new event can make the monitor call its handler.
    func settle() async throws {
        try await Task.sleep(for: .milliseconds(400))
    }

    #if os(Linux)
    /// The process's open inotify descriptors.
    func inotifyDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) == "anon_inode:inotify"
        }
    }
    #endif

    @Test func anotherConnectionsCommitReachesLiveResultsOnAWatchingQueue() async throws {
        let queue = try makeQueue()
        queue.startWatching(safetyPoll: Self.neverPoll)
        #expect(queue.watchMode == .fileEvents)
        let posts = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        try await settle()
        let path = queue.path
        // Another connection on another thread, as another process would write.
        try await Task.detached {
            try ExternalConnection(path: path).execute("INSERT INTO Post(id, day, rank) VALUES ('p1', 'd1', 1)")
        }.value
        let (change, elapsed) = try #require(await awaitChange(of: posts, within: Self.limit), "no change within \(Self.limit) without polling")
        #expect(change.snapshot.sections == sections([(.null, ["p1"])]))
        #expect(elapsed < Self.limit)

        // And the next one, after the calls that followed the first have passed.
        try await settle()
        try await Task.detached {
            try ExternalConnection(path: path).execute("UPDATE Post SET rank = 2 WHERE id = 'p1'")
        }.value
        let (update, _) = try #require(await awaitChange(of: posts, within: Self.limit))
        #expect(update.group.objectChanges.map(\.type) == [.update])
        queue.stopWatching()
        #expect(queue.watchMode == nil)
    }

    @Test func manyCommitsInARowAllArrive() async throws {
        let queue = try makeQueue()
        queue.startWatching(safetyPoll: Self.neverPoll)
        let posts = try LiveResults(queue: queue, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let path = queue.path
        try await Task.detached {
            let other = try ExternalConnection(path: path)
            for index in 0..<50 {
                try other.execute("INSERT INTO Post(id, rank) VALUES ('p\(index)', \(index))")
            }
        }.value
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while count < 50, clock.now - start < Self.limit {
            if try posts.takeChange() != nil { count = posts.snapshot.sections.first?.items.count ?? 0 }
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(count == 50)
    }

    @Test func aWalFileCreatedAfterTheWatchStartsIsWatched() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("store.sqlite").path
        let calls = Atomic<Int>(0)
        let monitor = FileChangeMonitor(databasePath: database, safetyInterval: Self.neverPoll) {
            calls.add(1, ordering: .relaxed)
        }
        #expect(monitor.mode == .fileEvents)
        try await settle()
        #expect(calls.load(ordering: .relaxed) == 1)  // the first call, at the start

        // Neither file exists yet: their creation is seen through the directory…
        #expect(FileManager.default.createFile(atPath: database + "-wal", contents: Data("x".utf8)))
        try await settle()
        let afterCreation = calls.load(ordering: .relaxed)
        #expect(afterCreation > 1)

        // …and a write to the new file through the watch made for it then.
        let handle = try #require(FileHandle(forWritingAtPath: database + "-wal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.synchronize()
        try await settle()
        #expect(calls.load(ordering: .relaxed) > afterCreation)
        try handle.close()

        // A write to another file in the directory is not a change.
        try await settle()
        let before = calls.load(ordering: .relaxed)
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("other.txt").path, contents: Data("y".utf8)))
        try await settle()
        #expect(calls.load(ordering: .relaxed) == before)
        monitor.stop()
    }

    @Test func withoutADirectoryToWatchTheMonitorPolls() async throws {
        let missing = "/nonexistent-\(UUID().uuidString)/store.sqlite"
        let calls = Atomic<Int>(0)
        let monitor = FileChangeMonitor(databasePath: missing, safetyInterval: Self.neverPoll, fallbackInterval: .milliseconds(10)) {
            calls.add(1, ordering: .relaxed)
        }
        #expect(monitor.mode == .polling)
        try await Task.sleep(for: .milliseconds(300))
        #expect(calls.load(ordering: .relaxed) >= 5)
        monitor.stop()
    }

    @Test func stoppingOrReleasingEndsTheThreadAndClosesTheWatches() async throws {
        let directory = FileManager.default.temporaryDirectory.path
        #if os(Linux)
        let descriptorsBefore = try inotifyDescriptorCount()
        #endif
        let monitors = (0..<8).map { index in
            FileChangeMonitor(databasePath: directory + "/roster-stop-\(index).sqlite", safetyInterval: .milliseconds(5)) {}
        }
        #if os(Linux)
        #expect(try inotifyDescriptorCount() == descriptorsBefore + 8)
        #endif
        for monitor in monitors { monitor.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        while monitors.contains(where: \.isRunning), clock.now - start < Self.limit {
            try await Task.sleep(for: .milliseconds(5))
        }
        let anyRunning = monitors.contains { $0.isRunning }
        #expect(!anyRunning)
        #if os(Linux)
        #expect(try inotifyDescriptorCount() == descriptorsBefore)
        #endif

        // Released without stop(): the handler is no longer called.
        let calls = Atomic<Int>(0)
        var monitor: FileChangeMonitor? = FileChangeMonitor(databasePath: directory + "/roster-release.sqlite", safetyInterval: .milliseconds(5)) {
            calls.add(1, ordering: .relaxed)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(monitor?.isRunning == true)
        monitor = nil
        try await Task.sleep(for: .milliseconds(100))
        let afterRelease = calls.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.load(ordering: .relaxed) == afterRelease)
        #if os(Linux)
        #expect(try inotifyDescriptorCount() == descriptorsBefore)
        #endif

        // A queue released while it watches stops its monitor too.
        var queue: StoreQueue? = try makeQueue()
        queue?.startWatching(safetyPoll: .milliseconds(5))
        weak let released = queue
        queue = nil
        try await Task.sleep(for: .milliseconds(100))
        #expect(released == nil)
        #if os(Linux)
        #expect(try inotifyDescriptorCount() == descriptorsBefore)
        #endif
    }
}
