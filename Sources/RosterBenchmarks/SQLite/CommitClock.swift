import CSQLite
import Synchronization

/// Stamps the moment a write transaction's `COMMIT` is done — committed, and checkpointed
/// when a checkpoint falls due — on every SQLite connection the process opens after
/// ``install()``: the store's writer included, which the benchmark cannot reach otherwise.
///
/// An automatic extension gives each new connection a `sqlite3_trace_v2` profile callback,
/// which SQLite calls as each statement finishes. SQLite calls it for `COMMIT` *before*
/// the automatic WAL checkpoint that the same `sqlite3_step` may then run, so the stamp
/// comes from a WAL hook instead, which the profile callback installs on a connection when
/// it begins a transaction (SQLite resets the WAL hook at the end of opening a connection,
/// after automatic extensions run). That hook does what SQLite's default one does —
/// checkpoint once the log holds ``checkpointPages`` pages — and then takes the stamp. A
/// commit that wrote nothing to the log calls no WAL hook; the `COMMIT` statement's own
/// end is its stamp. The callbacks cost every statement a clock reading and a few byte
/// comparisons, the store's and the baseline's alike.
enum CommitClock {
    /// SQLite's default automatic checkpoint threshold (`SQLITE_DEFAULT_WAL_AUTOCHECKPOINT`),
    /// in WAL pages; Roster does not change it.
    static let checkpointPages: Int32 = 1_000

    /// The stamp of the first WAL commit since ``arm()``; 0 until then.
    private static let firstLogCommit = Atomic<UInt64>(0)
    /// The stamp of the end of the first `COMMIT` statement since ``arm()``; 0 until then.
    private static let firstCommitStatement = Atomic<UInt64>(0)
    /// The committing thread's CPU time (``MonotonicClock/threadCPU()``) at the first
    /// commit's stamp since ``arm()``, WAL hook or statement; 0 until then.
    private static let firstCommitThreadCPU = Atomic<UInt64>(0)
    /// Connections opened inside ``capturingConnections(_:)``, by handle bit pattern.
    private static let captured = Mutex<[UInt]?>(nil)

    private static let installation: Bool = {
        let entryPoint: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Int32 = { database, _, _ in
            guard let database else { return SQLITE_OK }
            CommitClock.attach(to: database)
            return SQLITE_OK
        }
        return sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self)) == SQLITE_OK
    }()

    /// Starts stamping the commits of connections opened from now on.
    ///
    /// - Throws: ``BenchmarkError`` when SQLite refuses the automatic extension.
    static func install() throws(BenchmarkError) {
        guard installation else { throw BenchmarkError("sqlite3_auto_extension failed: commits cannot be timed") }
    }

    /// Forgets the last stamps: ``firstCommitSinceArm`` is nil until the next commit.
    static func arm() {
        firstLogCommit.store(0, ordering: .sequentiallyConsistent)
        firstCommitStatement.store(0, ordering: .sequentiallyConsistent)
        firstCommitThreadCPU.store(0, ordering: .sequentiallyConsistent)
    }

    /// The CPU time of the thread that made the first commit since ``arm()``, read when it
    /// was done: subtracted from the same thread's CPU time later, it gives what that thread
    /// itself spent after the commit. Nil before a commit.
    static var firstCommitThreadCPUSinceArm: UInt64? {
        let cpu = firstCommitThreadCPU.load(ordering: .sequentiallyConsistent)
        return cpu == 0 ? nil : cpu
    }

    /// When the first commit since ``arm()`` was done, in ``MonotonicClock`` nanoseconds.
    ///
    /// After a store write that is the write's own: the store commits before it reads the
    /// change log (whose read transaction also ends with a `COMMIT`, later, writing nothing).
    static var firstCommitSinceArm: UInt64? {
        let logCommit = firstLogCommit.load(ordering: .sequentiallyConsistent)
        if logCommit != 0 { return logCommit }
        let statement = firstCommitStatement.load(ordering: .sequentiallyConsistent)
        return statement == 0 ? nil : statement
    }

    /// Runs `body` and returns, with its result, the connections it opened, in order.
    static func capturingConnections<T>(_ body: () throws -> T) rethrows -> (result: T, connections: [OpaquePointer]) {
        captured.withLock { $0 = [] }
        let result: T
        do {
            result = try body()
        } catch {
            captured.withLock { $0 = nil }
            throw error
        }
        let handles = captured.withLock { list -> [UInt] in
            defer { list = nil }
            return list ?? []
        }
        return (result, handles.compactMap { OpaquePointer(bitPattern: $0) })
    }

    private static func attach(to database: OpaquePointer) {
        captured.withLock { $0?.append(UInt(bitPattern: database)) }
        sqlite3_trace_v2(database, UInt32(SQLITE_TRACE_PROFILE), { _, _, statement, _ in
            guard let statement = OpaquePointer(statement), let text = sqlite3_sql(statement) else { return 0 }
            if CommitClock.starts(text, with: "COMMIT") {
                if CommitClock.firstCommitStatement.compareExchange(
                    expected: 0, desired: MonotonicClock.now(), ordering: .sequentiallyConsistent).exchanged {
                    _ = CommitClock.firstCommitThreadCPU.compareExchange(
                        expected: 0, desired: MonotonicClock.threadCPU(), ordering: .sequentiallyConsistent)
                }
            } else if CommitClock.starts(text, with: "BEGIN"), let database = sqlite3_db_handle(statement) {
                CommitClock.installLogHook(on: database)
            }
            return 0
        }, nil)
    }

    /// Replaces the connection's WAL hook (SQLite's automatic checkpoint) with one that
    /// checkpoints the same way and then stamps the commit.
    private static func installLogHook(on database: OpaquePointer) {
        sqlite3_wal_hook(database, { _, database, name, pages in
            if pages >= CommitClock.checkpointPages {
                sqlite3_wal_checkpoint(database, name)
            }
            if CommitClock.firstLogCommit.compareExchange(
                expected: 0, desired: MonotonicClock.now(), ordering: .sequentiallyConsistent).exchanged {
                // The WAL commit's stamp wins over a statement's (firstCommitSinceArm): so does its CPU time.
                CommitClock.firstCommitThreadCPU.store(MonotonicClock.threadCPU(), ordering: .sequentiallyConsistent)
            }
            return SQLITE_OK
        }, nil)
    }

    /// Whether SQL text starts with `keyword` (upper case), in any case.
    private static func starts(_ text: UnsafePointer<CChar>, with keyword: StaticString) -> Bool {
        var offset = 0
        for letter in UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount) {
            let byte = UInt8(bitPattern: text[offset])
            guard byte == letter || byte == letter + 32 else { return false }
            offset += 1
        }
        return true
    }
}
