import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches a SQLite database file and its `-wal` file, and calls a handler when another
/// process may have committed to them — how a watching ``StoreQueue`` learns of other
/// processes' commits without polling every 100 ms (see ``StoreQueue/startWatching(safetyPoll:fallbackPoll:)``).
///
/// On Linux it uses inotify: a watch on the database file and on the `-wal` file for
/// writes (`IN_MODIFY`, `IN_CLOSE_WRITE`), and one on their directory for their creation
/// or replacement (`IN_CREATE`, `IN_MOVED_TO`), so a `-wal` file that does not exist yet
/// is watched as soon as it appears. On Apple systems it uses Dispatch's file-system
/// object sources on the same files. Where neither works (inotify disabled, the
/// per-user limit of inotify instances reached, the directory cannot be watched), the
/// monitor polls instead, every `fallbackInterval`: ``mode`` says which it does.
///
/// **Threads.** The monitor runs one thread of its own, which waits for file events and
/// calls `onChange` — always on that thread, one call at a time, never concurrently with
/// itself. It calls it:
/// - once when the monitor starts;
/// - when the kernel reports a write to either file (several writes in a row make one
///   call), and again shortly after — 0.2, 0.5, 1, 2, 3, 5, 10, 30, 100 and 300 ms after
///   the last event: SQLite writes a commit's pages to the `-wal` file *before* it
///   publishes the commit in shared memory (and, with `synchronous = FULL`, before it
///   syncs the file), which makes no file event, so the first call can come a moment too
///   early, all the more when the writing process is preempted in between;
/// - every `safetyInterval` without events, so that an event the kernel dropped (an
///   overflowing queue) or a write that makes none (another machine on a network file
///   system) still reaches the handler;
/// - every `fallbackInterval` when file events are unavailable.
///
/// ``stop()`` (or releasing the monitor) ends the thread; a call to `onChange` already
/// under way finishes first, and none starts after it. The monitor holds no reference
/// to whatever `onChange` captures beyond the closure itself.
///
/// ```swift
/// let monitor = FileChangeMonitor(databasePath: store.path) {
///     // on the monitor's thread
///     try? queue.pollExternalChanges()
/// }
/// ```
public final class FileChangeMonitor: Sendable {
    /// How a monitor learns that the files changed.
    public enum Mode: Sendable, Hashable {
        /// From file-system events (inotify, or Dispatch on Apple systems), with a poll
        /// every `safetyInterval` in case an event is missed.
        case fileEvents
        /// By polling every `fallbackInterval`: file-system events are unavailable.
        case polling
        /// From a PostgreSQL server's notifications (`LISTEN`), with a poll every
        /// `safetyInterval` in case one is lost: a ``StoreQueue`` on a server watches so.
        case serverNotifications
    }

    /// The database file watched (its `-wal` file is watched too).
    public let databasePath: String
    /// How often the handler runs without file events, when file events work.
    public let safetyInterval: Duration
    /// How often the handler runs when file events do not work.
    public let fallbackInterval: Duration
    private let control: MonitorControl

    /// Starts watching `databasePath` and its `-wal` file.
    ///
    /// - Parameters:
    ///   - databasePath: the database file; its folder is watched for the file and its
    ///     `-wal` file.
    ///   - safetyInterval: how often to call `onChange` when no event came (default 1 s).
    ///   - fallbackInterval: how often to call it when file events are unavailable
    ///     (default 100 ms, as ``StoreQueue/startPolling(every:)``).
    ///   - onChange: called on the monitor's own thread; see the type's documentation.
    public init(
        databasePath: String,
        safetyInterval: Duration = .seconds(1),
        fallbackInterval: Duration = .milliseconds(100),
        onChange: @escaping @Sendable () -> Void
    ) {
        self.databasePath = databasePath
        self.safetyInterval = max(safetyInterval, .milliseconds(1))
        self.fallbackInterval = max(fallbackInterval, .milliseconds(1))
        let control = MonitorControl()
        self.control = control
        // The watches are set up here, so that `mode` is known when `init` returns; the
        // thread's first call to `onChange` covers whatever was committed before.
        let watcher = FileEventWatcher(databasePath: databasePath, control: control)
        control.usesFileEvents.store(watcher != nil, ordering: .releasing)
        let loop = MonitorLoop(
            safetyInterval: self.safetyInterval, fallbackInterval: self.fallbackInterval,
            control: control, watcher: watcher, onChange: onChange)
        let thread = Thread { loop.run() }
        thread.name = "Roster.FileChangeMonitor"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Whether the monitor sees file events or polls.
    public var mode: Mode {
        control.usesFileEvents.load(ordering: .acquiring) ? .fileEvents : .polling
    }

    /// Whether the monitor's thread is still running: false shortly after ``stop()``.
    public var isRunning: Bool {
        !control.finished.load(ordering: .acquiring)
    }

    /// Stops watching: the thread ends after any call to `onChange` under way, and closes
    /// its file descriptors. Calling it again does nothing. It does not wait for the
    /// thread, so it may be called from `onChange` itself or under a lock that `onChange` takes.
    public func stop() {
        guard !control.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        control.wake(MonitorControl.stopByte)
    }
}

/// What the monitor and its thread share: flags, and the pipe that wakes the thread.
private final class MonitorControl: Sendable {
    static let stopByte: UInt8 = 0x73       // "s"
    static let fileEventByte: UInt8 = 0x65  // "e": a Dispatch source saw a change (Apple systems)

    let stopped = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    let usesFileEvents = Atomic<Bool>(false)
    /// The pipe's read end, owned by the thread; -1 when no pipe could be made.
    let wakeReader: Int32
    /// The pipe's write end; -1 once the thread closed it (or none was made). Under the
    /// mutex so that no write goes to a descriptor number that was closed and reused.
    private let wakeWriter: Locked<Int32>

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        wakeReader = ends[0]
        wakeWriter = Locked(ends[1])
    }

    /// Wakes the thread with one byte; does nothing once the thread has ended.
    func wake(_ byte: UInt8) {
        wakeWriter.withLock { descriptor in
            guard descriptor >= 0 else { return }
            var value = byte
            _ = write(descriptor, &value, 1)  // a full pipe is already a wake-up
        }
    }

    /// Closes the pipe: the thread's last act.
    func closePipe() {
        wakeWriter.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
        if wakeReader >= 0 { close(wakeReader) }
    }
}

/// The monitor's thread: waits for file events or the next deadline, and calls the handler.
private struct MonitorLoop: Sendable {
    /// When to call the handler again after a file event.
    static let settleDelays: [Duration] = [200, 500, 1_000, 2_000, 3_000, 5_000, 10_000, 30_000, 100_000, 300_000].map { .microseconds($0) }

    let safetyInterval: Duration
    let fallbackInterval: Duration
    let control: MonitorControl
    /// Handed over by `init`; from then on used only by the loop.
    let watcher: FileEventWatcher?
    let onChange: @Sendable () -> Void

    func run() {
        defer { control.finished.store(true, ordering: .releasing) }
        var watcher = self.watcher
        defer {
            watcher?.close()
            control.closePipe()
        }
        let clock = ContinuousClock()
        var settle: [ContinuousClock.Instant] = []
        var interval = watcher == nil ? fallbackInterval : safetyInterval
        var nextRegular = clock.now + interval
        if !control.stopped.load(ordering: .acquiring) { onChange() }

        while !control.stopped.load(ordering: .acquiring) {
            let deadline = settle.first.map { min($0, nextRegular) } ?? nextRegular
            // Without a wake-up pipe, look at the stop flag at least every 100 ms.
            var wait = max(deadline - clock.now, .zero)
            if control.wakeReader < 0 { wait = min(wait, .milliseconds(100)) }
            let input = waitForInput(watcher: watcher, timeout: wait)
            if control.stopped.load(ordering: .acquiring) { break }

            var changed = input.wakeFileEvent
            if input.watcherReadable || input.wakeFileEvent || input.watcherFailed, let current = watcher {
                var updated = current
                if !input.watcherFailed, updated.readEvents() { changed = true }
                if updated.isBroken || input.watcherFailed {
                    // The directory went away or cannot be read: poll from now on.
                    updated.close()
                    watcher = nil
                    control.usesFileEvents.store(false, ordering: .releasing)
                    interval = fallbackInterval
                    changed = true
                } else {
                    watcher = updated
                }
            }
            let now = clock.now
            if changed {
                settle = Self.settleDelays.map { now + $0 }
                nextRegular = now + interval
                onChange()
            } else if let first = settle.first, first <= now {
                settle.removeAll { $0 <= now }
                onChange()
            } else if nextRegular <= now {
                nextRegular = now + interval
                onChange()
            }
        }
    }

    /// Waits until the watcher or the wake-up pipe has something to read, or `timeout`.
    private func waitForInput(watcher: FileEventWatcher?, timeout: Duration) -> (watcherReadable: Bool, watcherFailed: Bool, wakeFileEvent: Bool) {
        var descriptors: [pollfd] = []
        if control.wakeReader >= 0 { descriptors.append(pollfd(fd: control.wakeReader, events: Int16(POLLIN), revents: 0)) }
        let watcherDescriptor = watcher?.pollDescriptor ?? -1
        if watcherDescriptor >= 0 { descriptors.append(pollfd(fd: watcherDescriptor, events: Int16(POLLIN), revents: 0)) }
        let (seconds, attoseconds) = timeout.components
        var milliseconds = min(max(seconds, 0), 1_000_000) * 1_000 + (max(attoseconds, 0) + 999_999_999_999_999) / 1_000_000_000_000_000
        if seconds == 0, attoseconds > 0, attoseconds < 1_000_000_000_000_000 {
            // poll counts whole milliseconds, and the first settle delays are shorter: sleep
            // them, then look without waiting. An event or a stop meanwhile waits that long.
            var pause = timespec(tv_sec: 0, tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&pause, &remaining) != 0, errno == EINTR { pause = remaining }
            milliseconds = 0
        }
        let ready = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), Int32(milliseconds))
        }
        if ready < 0, errno != EINTR {
            // Not expected with valid descriptors; never spin on it.
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            _ = nanosleep(&pause, nil)
        }
        guard ready > 0 else { return (false, false, false) }  // timeout, or EINTR: look at the deadlines again
        var wakeFileEvent = false
        var watcherReadable = false
        var watcherFailed = false
        for entry in descriptors where entry.revents != 0 {
            if entry.revents & Int16(POLLNVAL | POLLERR) != 0 {
                // Unusable: the watcher is given up for polling (the pipe is only read).
                if entry.fd != control.wakeReader { watcherFailed = true }
                continue
            }
            if entry.fd == control.wakeReader {
                var bytes = [UInt8](repeating: 0, count: 64)
                while true {
                    let count = read(entry.fd, &bytes, bytes.count)
                    guard count > 0 else { break }
                    if bytes[0..<count].contains(MonitorControl.fileEventByte) { wakeFileEvent = true }
                }
            } else {
                watcherReadable = true
            }
        }
        return (watcherReadable, watcherFailed, wakeFileEvent)
    }
}

/// The names a monitor watches in the database's directory.
private struct WatchedNames {
    let directory: String
    let database: String
    let names: [String]

    init(databasePath: String) {
        let url = URL(fileURLWithPath: databasePath)
        directory = url.deletingLastPathComponent().path
        database = url.lastPathComponent
        names = [database, database + "-wal"]
    }

    func path(_ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }
}

#if os(Linux)
/// inotify watches on the database file, its `-wal` file, and their directory (for the
/// files' creation). Made by the monitor's `init`, then used only by its thread.
private struct FileEventWatcher: Sendable {
    private let descriptor: Int32
    private let names: WatchedNames
    private var directoryWatch: Int32
    /// Watch descriptors of the files, to their names.
    private var fileWatches: [Int32: String] = [:]
    /// Set when the directory's watch is gone: the directory was removed or unmounted.
    private(set) var isBroken = false

    private static let fileMask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)
    private static let directoryMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

    /// Nil when inotify is unavailable or the directory cannot be watched.
    init?(databasePath: String, control: MonitorControl) {
        names = WatchedNames(databasePath: databasePath)
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        // The directory first: a file created after this is reported, one created before
        // is found by the file watches below.
        directoryWatch = inotify_add_watch(descriptor, names.directory, Self.directoryMask)
        guard directoryWatch >= 0 else {
            Glibc.close(descriptor)
            return nil
        }
        for name in names.names { watchFile(name) }
    }

    var pollDescriptor: Int32 { descriptor }

    /// Reads every pending event; true when one concerns the watched files.
    mutating func readEvents() -> Bool {
        var relevant = false
        let capacity = 16 * 1_024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, capacity)
            guard count > 0 else { break }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let watch = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let nameLength = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                var name = ""
                if nameLength > 0, offset + headerSize + nameLength <= count {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + headerSize, count: nameLength)
                    name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                offset += headerSize + nameLength
                if handle(watch: watch, mask: mask, name: name) { relevant = true }
            }
        }
        return relevant
    }

    private mutating func handle(watch: Int32, mask: UInt32, name: String) -> Bool {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }  // events were lost: look now
        if watch == directoryWatch {
            if mask & UInt32(IN_IGNORED) != 0 {
                isBroken = true
                return true
            }
            guard names.names.contains(name) else { return false }
            watchFile(name)  // created or replaced: watch the new file
            return true
        }
        guard fileWatches[watch] != nil else { return false }
        if mask & UInt32(IN_IGNORED) != 0 {
            // The file is gone; its directory's watch reports it when it comes back.
            fileWatches[watch] = nil
            return true
        }
        return true
    }

    private mutating func watchFile(_ name: String) {
        let watch = inotify_add_watch(descriptor, names.path(name), Self.fileMask)
        if watch >= 0 { fileWatches[watch] = name }  // it may not exist yet
    }

    func close() {
        Glibc.close(descriptor)
    }
}
#elseif canImport(Darwin)
/// Dispatch file-system object sources on the database file, its `-wal` file and their
/// directory; each event wakes the monitor's thread through its pipe. Made by the
/// monitor's `init`, then used only by its thread (hence the unchecked `Sendable`).
private struct FileEventWatcher: @unchecked Sendable {
    private struct Watch {
        let source: any DispatchSourceFileSystemObject
        let device: dev_t
        let inode: ino_t
    }

    private let names: WatchedNames
    private let control: MonitorControl
    private let queue = DispatchQueue(label: "Roster.FileChangeMonitor.events")
    private var watches: [String: Watch] = [:]
    private(set) var isBroken = false

    init?(databasePath: String, control: MonitorControl) {
        guard control.wakeReader >= 0 else { return nil }
        names = WatchedNames(databasePath: databasePath)
        self.control = control
        guard watch(names.directory, key: "") else { return nil }
        for name in names.names { _ = watch(names.path(name), key: name) }
    }

    /// The sources report through the wake-up pipe; there is no descriptor of their own.
    var pollDescriptor: Int32 { -1 }

    /// Re-arms each file that is missing, or was replaced, once it exists. The sources'
    /// events themselves come through the wake-up pipe.
    mutating func readEvents() -> Bool {
        for name in names.names {
            let path = names.path(name)
            var info = stat()
            let exists = stat(path, &info) == 0
            if let current = watches[name], !exists || current.device != info.st_dev || current.inode != info.st_ino {
                current.source.cancel()
                watches[name] = nil
            }
            if exists, watches[name] == nil { _ = watch(path, key: name) }
        }
        return false
    }

    private mutating func watch(_ path: String, key: String) -> Bool {
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            Darwin.close(descriptor)
            return false
        }
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.write, .extend, .delete, .rename, .link], queue: queue)
        let control = control
        source.setEventHandler { control.wake(MonitorControl.fileEventByte) }
        source.setCancelHandler { Darwin.close(descriptor) }
        source.resume()
        watches[key] = Watch(source: source, device: info.st_dev, inode: info.st_ino)
        return true
    }

    func close() {
        for watch in watches.values { watch.source.cancel() }
    }
}
#else
/// No file events on this system: the monitor polls.
private struct FileEventWatcher: Sendable {
    init?(databasePath: String, control: MonitorControl) { nil }
    var pollDescriptor: Int32 { -1 }
    var isBroken: Bool { true }
    mutating func readEvents() -> Bool { false }
    func close() {}
}
#endif
