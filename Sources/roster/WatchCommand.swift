import ArgumentParser
import Dispatch
import Foundation
import Roster
import RosterJSON
import RosterScript
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `roster watch --store PATH --query JSON`: prints a live query's snapshot, then the groups
/// that other processes' commits cause, as trace events, until interrupted.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a live query's changes as other processes commit to a store, until interrupted.",
        discussion: """
            Prints the query's snapshot, then a group of events for each change that other \
            processes' commits make to its results, as the trace of roster run (Docs/ScriptFormat.md); \
            "line" is 0 in every event. Wakes on file events (inotify), with a poll every second \
            (--safety-poll); where file events are unavailable, it polls every 100 ms. \
            Exit status: 0 when interrupted (SIGINT, SIGTERM), 1 when the store cannot be opened \
            or the query does not fit it, 2 for bad flags.
            """
    )

    @Option(help: "The store's database file (it must exist), or a PostgreSQL URL whose search path names the store's schema.")
    var store: String

    @Option(help: #"The query: a script's query line without "op" and "name", e.g. {"entity":"Post","sort":[["day","desc"]],"section":"day"}."#)
    var query: String

    @Option(help: "The query's name in the events.")
    var name = "watch"

    @Flag(help: "Print the events for a person to read, as roster run --pretty does (not JSON).")
    var pretty = false

    @Flag(help: "Keep moves in batches as moveItems instead of splitting them into a delete and an insert.")
    var keepMoves = false

    @Option(help: "Seconds between the polls made besides file events, in case one is missed.")
    var safetyPoll = 1.0

    func validate() throws {
        guard safetyPoll >= 0.001, safetyPoll <= 86_400 else { throw ValidationError("--safety-poll takes seconds from 0.001 to 86400") }
    }

    func run() throws {
        // Like roster sql: a mistyped path must not become a new, empty store.
        let onServer = StoreLocation.isServer(store)
        guard onServer || FileManager.default.fileExists(atPath: store) else {
            FileHandle.standardError.write(Data("roster watch: no store at '\(store)' (nothing was created)\n".utf8))
            throw ExitCode(1)
        }
        let watch: QueryWatch
        do {
            try QueryWatch.checkEntity(of: query, at: store)
            watch = try QueryWatch(store: onServer ? Store(postgresURL: store) : Store(path: store), query: query, name: name, keepsMoves: keepMoves)
        } catch {
            FileHandle.standardError.write(Data("roster watch: \(error)\n".utf8))
            throw ExitCode(1)
        }

        // SIGINT and SIGTERM end the watch between two polls; the events of a poll are
        // printed whole.
        let wakeUp = WakeUp()
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { wakeUp.stop() }
            source.resume()
            return source
        }
        // Watching starts before the snapshot is printed: a commit made after a reader saw
        // the snapshot is always reported.
        let safety = Duration.milliseconds(Int64(safetyPoll * 1_000))
        let stopMonitor: @Sendable () -> Void
        if let stopServerMonitor = Self.watchServer(of: watch.store, safetyInterval: safety, wakeUp: wakeUp) {
            stopMonitor = stopServerMonitor
        } else {
            let monitor = FileChangeMonitor(databasePath: watch.store.path, safetyInterval: safety) {
                wakeUp.change()
            }
            stopMonitor = { monitor.stop() }
            if monitor.mode == .polling {
                FileHandle.standardError.write(Data("roster watch: file events are unavailable here; polling every 100 ms\n".utf8))
            }
        }
        defer {
            stopMonitor()
            signals.forEach { $0.cancel() }
        }

        var format = TraceFormat()
        func print(_ events: [JSONObject]) {
            guard !events.isEmpty else { return }
            var text = ""
            for event in events {
                if let line = pretty ? format.readable(.object(event)) : JSONValue.object(event).serialized() {
                    text += line + "\n"
                }
            }
            // One write per change, so a reader sees each change whole and at once.
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        print(watch.snapshot)
        while wakeUp.waitForChange() {
            print(watch.poll())
        }
    }
}

/// Wakes the watch's loop: when the files may have changed (the monitor's thread), or to
/// stop (a signal).
private final class WakeUp: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let pending = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    /// The files may have changed; several calls before the loop wakes make one wake-up.
    func change() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    /// Ends the loop.
    func stop() {
        stopped.store(true, ordering: .releasing)
        semaphore.signal()
    }

    /// Waits for a change; false when the loop must stop.
    func waitForChange() -> Bool {
        semaphore.wait()
        pending.store(false, ordering: .releasing)
        return !stopped.load(ordering: .acquiring)
    }
}

extension WatchCommand {
    /// For a store on a PostgreSQL server, watches its schema's notifications (LISTEN/NOTIFY;
    /// the safety poll covers a lost one) and returns what stops it; nil for a file, and in
    /// a roster built without the PostgreSQL trait, whose stores are all files.
    fileprivate static func watchServer(of store: Store, safetyInterval: Duration, wakeUp: WakeUp) -> (@Sendable () -> Void)? {
        #if PostgreSQL
        guard let server = store.serverChannel else { return nil }
        let monitor = ServerChangeMonitor(url: server.url, channel: server.channel, safetyInterval: safetyInterval, retryInterval: .milliseconds(100)) { _ in
            wakeUp.change()
        }
        return { monitor.stop() }
        #else
        return nil
        #endif
    }
}
