import Foundation
import Roster
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Trait where Self == ConditionTrait {
    /// A test or suite that needs a PostgreSQL server: reported as skipped, not passed,
    /// without one or in a build without the PostgreSQL trait — but never under `CI=true`.
    public static var needsPostgreSQL: Self {
        .enabled(if: PostgresTestServer.isAvailable, "needs a PostgreSQL server (ROSTER_POSTGRES_URL, or initdb on PATH) and swift test --traits PostgreSQL")
    }
}

/// The PostgreSQL server the Postgres tests run against: the one `ROSTER_POSTGRES_URL`
/// names (`.ci/run` starts one and sets it), else a throwaway one this test process starts
/// itself with `Scripts/postgres-server.sh`, once, and stops and removes at its exit.
public enum PostgresTestServer {
    /// Why there is no server under `CI=true`, where the Postgres tests must not skip.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What went wrong, and what to do about it.
        public let description: String
    }

    /// The server's URL (`postgresql://roster@127.0.0.1:PORT/roster_test`), or nil when there
    /// is none and the tests should skip; the reason is then written once to standard error.
    ///
    /// `ROSTER_POSTGRES_URL` wins when set. Otherwise, unless `CI` is `"true"`, the first
    /// call starts a server (a second or two) and later calls, from any thread, get its URL
    /// or the same nil. The server is stopped by an `atexit` handler, so a test process
    /// that crashes or is killed leaves it running in its temporary folder: stop it with
    /// `Scripts/postgres-server.sh stop FOLDER`.
    ///
    /// - Throws: ``Unavailable`` when `CI` is `"true"` and `ROSTER_POSTGRES_URL` is not set.
    public static func url() throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        if environment["CI"] == "true", !RosterRelease.hasPostgreSQL {
            throw Unavailable(description: "CI=true but Roster was built without the PostgreSQL trait: run swift test --traits PostgreSQL; the Postgres tests do not skip under CI")
        }
        if let url = environment["ROSTER_POSTGRES_URL"], !url.isEmpty { return url }
        if environment["CI"] == "true" {
            throw Unavailable(description: "CI=true but ROSTER_POSTGRES_URL is not set: CI must start a server (.ci/run does, with Scripts/postgres-server.sh) and export its URL; the Postgres tests do not skip under CI")
        }
        guard RosterRelease.hasPostgreSQL else { return nil }
        return state.withLock { state in
            if case .notTried = state { state = start() }
            if case .running(let url, _) = state { return url }
            return nil
        }
    }

    /// Whether the Postgres tests run: always under `CI=true` (where they fail without a
    /// server or without the backend), otherwise when this build has the PostgreSQL
    /// backend and a server is set or could be started.
    public static var isAvailable: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || (try? url()) != nil
    }

    /// What this process did about a server of its own.
    private enum State {
        /// Nothing yet: `url()` has not needed one.
        case notTried
        /// Started, in `directory`, at `url`; stopped at exit.
        case running(url: String, directory: String)
        /// Could not start; the reason was written to standard error.
        case failed
    }

    private static let state = Mutex(State.notTried)

    /// The script that starts and stops throwaway servers.
    private static let script = Programs.repository.appendingPathComponent("Scripts/postgres-server.sh").path

    /// Starts a server in a new temporary folder, and has it stopped at exit.
    private static func start() -> State {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("roster-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        let reason: String
        do {
            let run = try Programs.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["bash", script, "start", directory])
            let url = run.output.split(separator: "\n").last { $0.hasPrefix("postgresql://") }
            if run.status == 0, let url {
                atexit { PostgresTestServer.stopAtExit() }
                return .running(url: String(url), directory: directory)
            }
            reason = "Scripts/postgres-server.sh start failed (status \(run.status)):\n\(run.output)"
        } catch {
            reason = "cannot run Scripts/postgres-server.sh: \(error)"
        }
        _ = try? runScript(["stop", directory])
        let message = "PostgresTestServer: no PostgreSQL server, so the Postgres tests skip (set ROSTER_POSTGRES_URL, or install PostgreSQL: apt-get install postgresql). \(reason)\n"
        FileHandle.standardError.write(Data(message.utf8))
        return .failed
    }

    /// Stops the server this process started, at its exit: spawned directly rather than
    /// with `Process`, which may no longer work while the process ends.
    private static func stopAtExit() {
        let directory: String? = state.withLock { state in
            if case .running(_, let directory) = state { return directory }
            return nil
        }
        guard let directory else { return }
        _ = try? runScript(["stop", directory])
    }

    /// Runs the script with `arguments` and waits for it; its status.
    @discardableResult
    private static func runScript(_ arguments: [String]) throws -> Int32 {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return try ChildProcess.run("/usr/bin/env", ["PATH=\(path):/usr/sbin:/sbin", "bash", script] + arguments, in: "/").status
    }
}
