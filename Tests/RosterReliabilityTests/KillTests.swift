import CSQLite
import Foundation
import Roster
import RosterJSON
import RosterScript
import Testing
import RosterTestSupport

/// Processes killed with SIGKILL at random moments, while they write to or read from a
/// store's file that this process has open. Afterwards the file must open, hold every
/// committed row and nothing of an unfinished transaction, and live queries here must
/// have been told exactly the committed changes.
///
/// The counts (kills, rows committed, rows lost) are printed as `kill tests:` lines.
@Suite("kill -9 of a writer or a reader", .serialized)
struct KillTests {
    static let entity = try! Entity("Item", key: "id", attributes: [
        Attribute("id", .integer), Attribute("batch", .integer), Attribute("v", .string),
    ])
    static let request = FetchRequest(entity: "Item", sortKeys: [SortKey("batch", ascending: false), SortKey("id")], sectionAttribute: "batch")

    /// A new store in `folder` holding the Item entity, and a fetched live query on it
    /// that reports to `delegate`. Keep the controller: a released one reports nothing.
    static func watchedStore(in folder: TemporaryFolder, delegate: GroupRecorder? = nil) throws -> (path: String, store: Store, controller: ResultsController) {
        let path = folder.path("store.sqlite")
        let store = try Store(path: path)
        try store.define(entity)
        let controller = try ResultsController(store: store, request: request)
        controller.delegate = delegate
        try controller.performFetch()
        return (path, store, controller)
    }

    /// (a) `roster sql` inserting millions of rows in one transaction, killed a random
    /// 10–300 ms after it took the write lock, between committed writes by `roster sql`
    /// and by this process.
    @Test func aWriterKilledMidTransactionLosesNothingCommittedAndLeavesNothing() throws {
        let kills = 20
        var random = SystemRandomNumberGenerator()
        let folder = try TemporaryFolder()
        let recorder = GroupRecorder()
        let (path, store, controller) = try Self.watchedStore(in: folder, delegate: recorder)
        let queue = try StoreQueue(path: path)
        let live = try LiveResults(queue: queue, request: Self.request)

        let probe = try RawDatabase(path: path, readOnly: false)
        var committed: Set<Int64> = []
        var midTransaction = 0
        let started = ContinuousClock.now
        for kill in 1...kills {
            // Committed by another process: five rows of this batch.
            let batch = Int64(kill)
            let keys = (0..<5).map { batch * 100 + $0 }
            let values = keys.map { "(\($0), \(batch), 'row \($0)')" }.joined(separator: ", ")
            let insert = try Programs.run("roster", ["sql", path, "INSERT INTO Item(id, batch, v) VALUES \(values)"])
            try #require(insert.status == 0, "roster sql failed: \(insert.output)")
            committed.formUnion(keys)

            // A transaction that never commits: far more rows than it can write in time.
            let writer = Programs.process("roster", ["sql", path, """
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000)
                INSERT INTO Item(id, batch, v) SELECT 1000000000 + x, -\(batch), 'uncommitted' FROM c
                """])
            try writer.run()
            // Once it holds the write lock, it is inside its transaction.
            let begun = ContinuousClock.now
            while try !probe.isWriteLocked() {
                try #require(writer.isRunning && ContinuousClock.now - begun < .seconds(10), "the writer never began its transaction")
                Thread.sleep(forTimeInterval: 0.005)
            }
            // This process reads while the other one writes: the committed batch arrives.
            try store.pollExternalChanges()
            Thread.sleep(forTimeInterval: Double.random(in: 0.01...0.3, using: &random))
            try #require(writer.isRunning, "the long transaction ended before it was killed")
            if try probe.isWriteLocked() { midTransaction += 1 }
            Foundation.kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            #expect(writer.terminationReason == .uncaughtSignal && writer.terminationStatus == SIGKILL)

            // Committed by this process, after the kill: the lock must be free again.
            try store.insert("Item", ["id": .integer(batch * 100 + 50), "batch": .integer(batch), "v": "api"])
            committed.insert(batch * 100 + 50)
            try store.pollExternalChanges()

            let fresh = try Self.keys(of: store)
            let lost = committed.subtracting(fresh)
            let extra = fresh.subtracting(committed)
            #expect(lost.isEmpty && extra.isEmpty, "after kill \(kill): lost \(lost.sorted()), uncommitted rows seen \(extra.count)")
            #expect(try Set(controller.fetchedObjects.map(\.key)) == Set(fresh.map(Value.integer)), "the live query's results are not a fresh fetch")
            let told = recorder.groups.flatMap(\.objectChanges)
            let inserted = told.compactMap { change -> Int64? in
                if change.type == .insert, case let .integer(key) = change.item { key } else { nil }
            }
            let others = told.count - inserted.count
            #expect(Set(inserted) == committed && inserted.count == Set(inserted).count && others == 0,
                    "the live query was told \(inserted.count) inserts (\(Set(inserted).count) keys) and \(others) other changes; \(committed.count) rows were committed")
            _ = try queue.pollExternalChanges()
            _ = try live.takeChange()
            #expect(Set(live.snapshot.itemIdentifiers) == Set(fresh.map(Value.integer)), "LiveResults' snapshot is not a fresh fetch")
        }
        let elapsed = ContinuousClock.now - started

        // A new reader, and SQLite itself without Roster, see exactly the committed rows.
        let reader = try Store(path: path)
        let seen = try Self.keys(of: reader)
        let direct = try RawDatabase(path: path)
        #expect(try direct.text("PRAGMA integrity_check") == "ok")
        let uncommitted = try direct.integer("SELECT count(*) FROM Item WHERE id >= 1000000000")
        let lost = committed.subtracting(seen).count
        #expect(lost == 0 && seen == committed && uncommitted == 0)
        #expect(midTransaction == kills, "only \(midTransaction) of \(kills) kills came while the writer held its transaction")
        print("kill tests: writer: \(kills) kills (\(midTransaction) seen holding the write lock just before), \(committed.count) rows committed, \(lost) lost, \(uncommitted) uncommitted rows seen, \(seconds(elapsed))")
    }

    /// (b) `roster watch` on the file, delivering this process's commits (batches of three
    /// rows every 2 ms), killed after a random 20–300 ms. The next reader is a new
    /// `roster watch`, whose first snapshot must hold every committed row; it is the one
    /// killed next.
    @Test func aReaderKilledMidDeliveryLeavesTheWriterAndANewReaderExact() throws {
        let kills = 20
        var random = SystemRandomNumberGenerator()
        let folder = try TemporaryFolder()
        let (path, store, controller) = try Self.watchedStore(in: folder)
        let query = #"{"entity":"Item","sort":[["batch","desc"],["id","asc"]],"section":"batch"}"#

        /// Starts a watcher and waits for its first snapshot, which must hold every
        /// committed row.
        func startReader(_ committed: [Set<Int64>]) throws -> (Process, TraceCollector) {
            let output = Pipe()
            let reader = Programs.process("roster", ["watch", "--store", path, "--query", query], output: output, separateErrors: true)
            let trace = TraceCollector(output.fileHandleForReading)
            try reader.run()
            try #require(trace.waitForLines(1, timeout: 10), "roster watch printed nothing")
            let first = try #require(try? JSONParser().parse(trace.text.prefix { $0 != "\n" }))
            let keys = Set((first["sections"]?.arrayValue ?? []).flatMap { ($0["keys"]?.arrayValue ?? []).compactMap(\.int64Value) })
            let all = committed.reduce(into: Set<Int64>()) { $0.formUnion($1) }
            #expect(first["event"]?.stringValue == "snapshot" && keys == all, "a new reader's snapshot holds \(keys.count) rows of the \(all.count) committed")
            return (reader, trace)
        }

        var committed: [Set<Int64>] = []
        var snapshotsChecked = 0
        var deliveriesSeen = 0
        let started = ContinuousClock.now
        var (reader, trace) = try startReader(committed)
        for kill in 1...kills {
            // Commit batches while the reader delivers them.
            let deadline = ContinuousClock.now + .milliseconds(Int.random(in: 20...300, using: &random))
            while ContinuousClock.now < deadline {
                let batch = Int64(committed.count + 1)
                let keys = (0..<3).map { batch * 10 + $0 }
                try store.write {
                    for key in keys { try store.insert("Item", ["id": .integer(key), "batch": .integer(batch), "v": .string("b\(batch)")]) }
                }
                committed.append(Set(keys))
                Thread.sleep(forTimeInterval: 0.002)
            }
            try #require(reader.isRunning, "the reader ended before it was killed: \(trace.text.suffix(500))")
            Foundation.kill(reader.processIdentifier, SIGKILL)
            reader.waitUntilExit()
            #expect(reader.terminationReason == .uncaughtSignal && reader.terminationStatus == SIGKILL)

            // Every snapshot the reader printed before it died shows whole transactions:
            // batches 1 through some n, each with all its rows, never part of one.
            let (checked, delivered) = Self.checkSnapshots(trace.finish(), committed: committed)
            snapshotsChecked += checked
            deliveriesSeen += delivered

            // The writer goes on, and its live query is exact.
            let batch = Int64(committed.count + 1)
            try store.write { try store.insert("Item", ["id": .integer(batch * 10), "batch": .integer(batch), "v": "after kill"]) }
            committed.append([batch * 10])
            let fresh = try Self.keys(of: store)
            #expect(try Set(controller.fetchedObjects.map(\.key)) == Set(fresh.map(Value.integer)), "after kill \(kill): the writer's live query is not a fresh fetch")
            // A new reader sees every committed row; it is the next to be killed.
            (reader, trace) = try startReader(committed)
        }
        Foundation.kill(reader.processIdentifier, SIGKILL)
        reader.waitUntilExit()
        let elapsed = ContinuousClock.now - started

        let all = committed.reduce(into: Set<Int64>()) { $0.formUnion($1) }
        let seen = try Self.keys(of: Store(path: path))
        let lost = all.subtracting(seen).count
        #expect(lost == 0 && seen == all, "\(lost) committed rows lost, \(seen.subtracting(all).count) extra")
        #expect(try RawDatabase(path: path).text("PRAGMA integrity_check") == "ok")
        #expect(deliveriesSeen > 0, "the readers never delivered a change before they were killed")
        print("kill tests: reader: \(kills) kills of roster watch, \(all.count) rows committed, \(lost) lost, \(kills + 1) new readers exact, \(snapshotsChecked) snapshots of the killed readers checked (\(deliveriesSeen) after a delivery), \(seconds(elapsed))")
    }

    /// Checks each complete `snapshot` line of a trace: its keys are whole batches, the
    /// union of the first n batches, with n never smaller than in the snapshot before, in
    /// sections by batch descending. Returns how many were checked, and how many followed
    /// a delivered change (not the first snapshot).
    static func checkSnapshots(_ text: String, committed: [Set<Int64>]) -> (Int, Int) {
        var checked = 0
        var delivered = 0
        var newest = 0
        let lines = text.split(separator: "\n")
        var previous: String?
        for (index, line) in lines.enumerated() {
            // The last line may have been cut by the kill.
            guard let event = try? JSONParser().parse(line) else {
                #expect(index == lines.count - 1, "a trace line that is not JSON before the end: \(line.prefix(200))")
                continue
            }
            defer { previous = event["event"]?.stringValue }
            guard event["event"]?.stringValue == "snapshot", let sections = event["sections"]?.arrayValue else { continue }
            let keys = sections.flatMap { ($0["keys"]?.arrayValue ?? []).compactMap(\.int64Value) }
            let names = sections.map { $0["name"]?.int64Value ?? -1 }
            #expect(names == names.sorted(by: >), "sections out of order: \(names)")
            let batches = Set(keys.map { $0 / 10 })
            let count = batches.max().map(Int.init) ?? 0
            let expected = committed.prefix(count).reduce(into: Set<Int64>()) { $0.formUnion($1) }
            #expect(Set(keys) == expected && keys.count == expected.count, "a snapshot that is not whole transactions 1...\(count): \(keys)")
            #expect(count >= newest, "a snapshot went back from batch \(newest) to \(count)")
            newest = count
            checked += 1
            if previous == "batch" { delivered += 1 }
        }
        return (checked, delivered)
    }

    /// The keys of every row, by a new query (a fresh fetch).
    static func keys(of store: Store) throws -> Set<Int64> {
        let fresh = try ResultsController(store: store, request: request)
        try fresh.performFetch()
        return Set(try fresh.fetchedObjects.compactMap { object -> Int64? in
            if case let .integer(key) = object.key { return key }
            return nil
        })
    }
}

/// A duration as seconds with one decimal, such as `12.3 s`.
func seconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return "\((value * 10).rounded() / 10) s"
}

/// Reads a child's standard output on a thread of its own, so a full pipe never blocks it.
final class TraceCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var ended = false

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty { ended = true } else { data.append(chunk) }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits until `count` complete lines have arrived; false on a timeout or the end.
    func waitForLines(_ count: Int, timeout: TimeInterval) -> Bool {
        let limit = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while data.count(where: { $0 == UInt8(ascii: "\n") }) < count {
            if ended || !condition.wait(until: limit) { return false }
        }
        return true
    }

    /// Waits for the end of the output (the process has died) and returns all of it.
    func finish() -> String {
        condition.lock()
        while !ended { condition.wait() }
        condition.unlock()
        return text
    }
}

/// A folder under the temporary directory, removed with the value.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("roster-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

}

/// A plain SQLite connection, to look at the file without Roster.
final class RawDatabase {
    let handle: OpaquePointer

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(path: String, readOnly: Bool = true) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(path)")
        }
        handle = db
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close(handle) }

    /// Whether another connection holds the write lock now: `BEGIN IMMEDIATE` without
    /// waiting is busy (when it is not, the transaction is rolled back at once).
    func isWriteLocked() throws -> Bool {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, 5_000) }
        switch sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) {
        case SQLITE_BUSY: return true
        case SQLITE_OK:
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            return false
        default: throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// The first column of the first row, as text.
    func text(_ sql: String) throws -> String {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        return String(cString: text)
    }

    func integer(_ sql: String) throws -> Int {
        guard let value = Int(try text(sql)) else { throw Failure(description: "not an integer: \(sql)") }
        return value
    }
}
