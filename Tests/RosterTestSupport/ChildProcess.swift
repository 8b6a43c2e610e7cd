import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to its end with `posix_spawn` and `waitpid`, not Foundation's `Process`.
///
/// `Process` on Linux learns of a child's end through a socket the child holds; a process
/// spawned at the same moment by another test (or a server the child starts) can inherit
/// that socket and keep it open, and `waitUntilExit()` then waits for ever beside a child
/// long since exited (swift-corelibs-foundation #4795 — a CI run hung 30 minutes so, in a
/// test that restarts a PostgreSQL server). Here the wait is `waitpid` itself, the pipes
/// are close-on-exec so no other child inherits them, and on Linux the child starts with
/// nothing open beyond its three standard streams.
enum ChildProcess {
    /// What a finished child printed, and how it ended.
    struct Result {
        /// The exit status, or the signal's number when a signal ended it (as `Process`).
        var status: Int32
        /// Standard output (and standard error, unless they were kept apart).
        var output: Data
        /// Standard error when kept apart, else empty.
        var error: Data
    }

    /// Why a child could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        /// What failed, and the system's reason.
        let description: String
    }

    /// Runs `executable` with `arguments` in `directory`, with this process's environment,
    /// `input` on its standard input (else /dev/null), and waits for its end; standard
    /// error goes with standard output unless `separateErrors`.
    static func run(_ executable: String, _ arguments: [String], in directory: String, input: Data? = nil, separateErrors: Bool = false) throws -> Result {
        ignoreBrokenPipes
        let output = try pipe()
        let error = separateErrors ? try pipe() : nil
        let stdin = input == nil ? nil : try pipe()
        defer { [output.read, error?.read].compactMap { $0 }.forEach { _ = close($0) } }
        // The ends the child gets, closed here once it has them (or if it never will), and
        // the input's writing end, closed here unless handed to the thread that feeds it:
        // each closed exactly once, since another thread may be given the number next.
        var childEnds = [output.write, error?.write, stdin?.read].compactMap { $0 }
        var inputEnd = stdin?.write
        defer { (childEnds + [inputEnd].compactMap { $0 }).forEach { _ = close($0) } }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, error?.write ?? output.write, 2)
        #if os(Linux)
        guard let addChdir = GNU.addChdir, let addCloseFrom = GNU.addCloseFrom else {
            throw SpawnError(description: "this C library lacks posix_spawn_file_actions_addchdir_np or _addclosefrom_np (glibc 2.34 has both)")
        }
        _ = addChdir(&actions, directory)
        _ = addCloseFrom(&actions, 3)
        #else
        posix_spawn_file_actions_addchdir_np(&actions, directory)
        #endif

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        #if canImport(Darwin)
        let environment = _NSGetEnviron().pointee
        #else
        let environment = environ
        #endif
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        // The child holds its own ends now (or never will): only the parent's stay open.
        childEnds.forEach { _ = close($0) }
        childEnds = []
        guard spawned == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }

        let feeding = inputEnd.map { end in Background { writeAll(input ?? Data(), to: end); _ = close(end) } }
        inputEnd = nil
        let errors = error.map { error in Background { readAll(error.read) } }
        let printed = readAll(output.read)
        feeding?.wait()
        let errorData = errors?.wait() ?? Data()
        return Result(status: try waitForExit(pid, executable), output: printed, error: errorData)
    }

    /// The child's exit status once it has ended.
    private static func waitForExit(_ pid: pid_t, _ executable: String) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid for \(executable): \(String(cString: strerror(errno)))") }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// A pipe whose two ends close on exec, so only a child given one of them as a
    /// standard stream (by `dup2`, which clears the flag) holds it.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        #if os(Linux)
        guard let pipe2 = GNU.pipe2 else { throw SpawnError(description: "this C library lacks pipe2") }
        let made = pipe2(&ends, Int32(O_CLOEXEC))
        #else
        let made = Darwin.pipe(&ends)
        if made == 0 { ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) } }
        #endif
        guard made == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        return (ends[0], ends[1])
    }

    /// Everything readable from `descriptor` until its end.
    private static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { data.append(contentsOf: buffer[0..<count]); continue }
            if count < 0 && errno == EINTR { continue }
            return data
        }
    }

    /// Writes `data` to `descriptor`, stopping early when the reader has gone.
    private static func writeAll(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count > 0 { offset += count } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    #if os(Linux)
    /// glibc's functions that Swift's Glibc module leaves out (declared only with
    /// `_GNU_SOURCE`), looked up by name.
    private enum GNU {
        typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
        static let addChdir = function("posix_spawn_file_actions_addchdir_np", as: (@convention(c) (Actions, UnsafePointer<CChar>) -> Int32).self)
        static let addCloseFrom = function("posix_spawn_file_actions_addclosefrom_np", as: (@convention(c) (Actions, Int32) -> Int32).self)
        static let pipe2 = function("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

        private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
            dlsym(dlopen(nil, RTLD_NOW), name).map { unsafeBitCast($0, to: type) }
        }
    }
    #endif

    /// A child that exits before reading its input must not end the tests with SIGPIPE.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
}

/// Work on a thread of its own, whose result `wait()` hands back.
private final class Background<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: Value?

    init(_ work: @escaping @Sendable () -> Value) {
        Thread { [self] in value = work(); done.signal() }.start()
    }

    @discardableResult
    func wait() -> Value {
        done.wait()
        return value!
    }
}
