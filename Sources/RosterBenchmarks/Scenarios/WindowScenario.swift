import Roster

/// `window`: a window of 100 rows in the middle of the results, kept live (issue 14).
///
/// Three measures, each against re-fetching the window (`ORDER BY … LIMIT 100 OFFSET o`
/// on another connection, diffed and batched, what an app without live windows does):
/// - one-row commits of ``CommitScenario``'s five kinds anywhere in the table, to the
///   windowed live query: commit → the store call returned (every callback and the batch
///   built, the window's counts event included), next to the same commits to a live query
///   over the whole results, measured the same way in the same run; beside the window's,
///   the CPU time its thread spent in that span (a stall the store caused shows there; one
///   the host caused, by running other work, does not);
/// - moving the window by one screen (100 rows) down and back: `setWindow` → returned;
/// - opening a window cold (set before `performFetch`, which then reads the window's rows
///   alone) against a whole `performFetch` (in the re-fetch column);
/// - resuming from a token after another connection changed 1,000 rows, in a new store
///   on the file (the app relaunched): the token read from its saved text, then
///   `performFetch(resumingFrom:)` → returned (the change group included), after edits that place no row (titles), against the
///   re-fetch and against what an app without tokens does when relaunched (a new
///   connection reads the window), and after edits that re-sort rows (ranks); beside them
///   Roster's own reads alone: those of a resume that reads every row the log names, the
///   change log since the token and the 1,000 rows (`ResumeToken.readChanges(in:of:)`),
///   after either kind of edit, and those of one that reads what can move, the log and
///   the rows the window showed (`ResumeToken.readChangesThatCanMove(in:request:)`); and
///   SQLite's own floor, without Roster (``SQLiteResumeFloor``);
/// - after every commit the window must equal the re-fetched slice (`mismatches`).
enum WindowScenario {
    static let length = 100
    /// How many resumes of each kind (edits that place no row, edits that re-sort) a run
    /// times: each resume figure is their median.
    static let resumeRounds = 5

    static let table = TextTable(labels: 2, [
        ("N", 9), ("what", 22), ("Roster ms", 32), ("window re-fetch ms", 32), ("re-fetch/Roster", 15),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("window: \(length) rows in the middle of the results; ms as median / p95 / p99 / max")
        reporter.print("  one-row commit = COMMIT done → store call returned (callbacks, batch, counts); whole results = the same")
        reporter.print("  commits to a live query without a window; move = setWindow one screen down or back up")
        reporter.print("  window re-fetch = LIMIT \(length) OFFSET o on another connection + SnapshotDiff + batch")
        reporter.print("  its thread's CPU = the CPU time the writing thread spent in the same span (the store's own work,")
        reporter.print("  without the time the system or the host gave to others)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, reporter: reporter)
        }
    }

    private static func run(size: Int, iterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("window N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let offset = size / 2
        let refetch = try WindowRefetch(path: fixture.store.path, offset: offset)
        var writer = CommitScenario.Writer(fixture: fixture, seed: UInt64(size) &+ 14)

        // The whole results first, then the window: the same kinds of commits, measured alike.
        var whole = Durations()
        do {
            let (controller, _) = try fixture.liveQuery()
            for iteration in 0..<iterations {
                for kind in CommitScenario.Kind.allCases {
                    let stamps = try WriteStamps.measure(probe: nil, try writer.commit(kind, iteration: iteration))
                    if let after = stamps.afterCommit { whole.append(after) }
                }
            }
            withExtendedLifetime(controller) {}
        }

        reporter.progress("window N=\(size): \(iterations) commits of each kind to the window")
        let controller = try ResultsController(store: fixture.store, request: PostFixture.request)
        try controller.setWindow(.offset(offset, length: length))
        let probe = LiveQueryProbe()
        controller.delegate = probe
        try controller.performFetch()
        try refetch.reset()
        var windowed = Durations()
        var windowedCPU = Durations()
        var baseline = Durations()
        let checked = min(iterations, 40)
        for iteration in 0..<iterations {
            for kind in CommitScenario.Kind.allCases {
                let stamps = try WriteStamps.measure(probe: probe, try writer.commit(kind, iteration: iteration))
                if let after = stamps.afterCommit { windowed.append(after) }
                if let cpu = stamps.afterCommitCPU { windowedCPU.append(cpu) }
                guard iteration < checked else { continue }
                let refresh = try refetch.refresh()
                baseline.append(refresh.nanoseconds)
                if Self.keys(controller.snapshot) != refresh.snapshot {
                    reporter.mismatch(.window, size: size, "\(kind.label) #\(iteration): the window differs from the re-fetched one")
                }
            }
        }

        reporter.progress("window N=\(size): moving the window")
        var moves = Durations()
        var moveBaseline = Durations()
        for move in 0..<min(iterations, 100) {
            let target = move % 2 == 0 ? offset + length : offset
            let start = MonotonicClock.now()
            try controller.setWindow(.offset(target, length: length))
            moves.append(MonotonicClock.elapsed(from: start, to: MonotonicClock.now()))
            refetch.offset = target
            let refresh = try refetch.refresh()
            moveBaseline.append(refresh.nanoseconds)
            if Self.keys(controller.snapshot) != refresh.snapshot {
                reporter.mismatch(.window, size: size, "move #\(move): the window differs from the re-fetched one")
            }
        }

        reporter.progress("window N=\(size): resuming after 1,000 changes by another connection")
        var resumes = Durations()
        var resumeBaseline = Durations()
        var relaunchedBaseline = Durations()
        var resumeFloor = Durations()
        var placingFloor = Durations()
        var resortingResumes = Durations()
        var resortingBaseline = Durations()
        var resortingFloor = Durations()
        var sqliteFloor = Durations()
        var resortingSQLiteFloor = Durations()
        // Five rounds of edits that place no row (titles), then five that re-sort (ranks):
        // each figure is the median of five resumes.
        for round in 0..<(2 * Self.resumeRounds) {
            let resorting = round >= Self.resumeRounds
            let token = try controller.resumeToken()
            // What the app saves, and reads back on its next launch (timed with the resume).
            let savedText = token.encoded
            let other = try RawDatabase(path: fixture.store.path)
            let position = Int64(try other.text("SELECT coalesce(max(seq), 0) FROM _roster_changes") ?? "") ?? 0
            let firstShown = controller.snapshot.first?.items.first ?? .null
            try other.execute("BEGIN")
            for index in 0..<1_000 {
                let key = PostFixture.key(1 + (index * 997 + round * 13) % size)
                if resorting {
                    try other.execute("UPDATE Post SET rank = (rank + 1 + \(index % 7)) % \(PostFixture.rankRange) WHERE id = '\(key)'")
                } else {
                    try other.execute("UPDATE Post SET title = 'resumed \(round)-\(index)' WHERE id = '\(key)'")
                }
            }
            try other.execute("COMMIT")
            // SQLite's own floor, without Roster.
            let floor = try SQLiteResumeFloor(path: fixture.store.path)
            let sqliteNanoseconds = try floor.measure(since: position, firstRow: firstShown, readingLoggedRows: resorting)
            if resorting { resortingSQLiteFloor.append(sqliteNanoseconds) } else { sqliteFloor.append(sqliteNanoseconds) }
            // The floor: the log since the token and the rows it names, read alone.
            let floorStore = try Store(path: fixture.store.path)
            let floorStart = MonotonicClock.now()
            // (A few of the 1,000 keys may be rows the commits above deleted.)
            _ = try token.readChanges(in: floorStore, of: "Post")
            if resorting {
                resortingFloor.append(MonotonicClock.elapsed(from: floorStart, to: MonotonicClock.now()))
            } else {
                resumeFloor.append(MonotonicClock.elapsed(from: floorStart, to: MonotonicClock.now()))
                // The floor of a resume that reads what can move: the log, the rows it may
                // have moved, the rows the window showed.
                let placingStore = try Store(path: fixture.store.path)
                placingFloor.append(try MonotonicClock.measure { try token.readChangesThatCanMove(in: placingStore, request: PostFixture.request) }.nanoseconds)
            }
            // The app relaunched: a new store on the file, no other live query.
            let relaunched = try Store(path: fixture.store.path)
            let resumed = try ResultsController(store: relaunched, request: PostFixture.request)
            let start = MonotonicClock.now()
            try resumed.performFetch(resumingFrom: try ResumeToken(savedText))
            let resumeTime = MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
            if case let .offset(start, _)? = controller.window { refetch.offset = start }
            if !resorting {
                // An app without tokens, relaunched: a new connection reads the window.
                relaunchedBaseline.append(try WindowRefetch.fetchOnNewConnection(path: fixture.store.path, offset: refetch.offset))
            }
            let refresh = try refetch.refresh()
            if resorting {
                resortingResumes.append(resumeTime)
                resortingBaseline.append(refresh.nanoseconds)
            } else {
                resumes.append(resumeTime)
                resumeBaseline.append(refresh.nanoseconds)
            }
            if Self.keys(resumed.snapshot) != refresh.snapshot {
                reporter.mismatch(.window, size: size, "resume #\(round): the window differs from the re-fetched one")
            }
            try fixture.store.pollExternalChanges()
        }

        reporter.progress("window N=\(size): cold opens")
        var coldOffset = Durations()
        var coldAnchored = Durations()
        var wholeFetch = Durations()
        var coldBytes: [Int] = []
        var wholeBytes: [Int] = []
        for round in 0..<5 {
            let offsetWindow = try ResultsController(store: fixture.store, request: PostFixture.request)
            try offsetWindow.setWindow(.offset(offset + round, length: length))
            let heapBefore = HeapMemory.bytesInUse()
            coldOffset.append(try MonotonicClock.measure { try offsetWindow.performFetch() }.nanoseconds)
            if let before = heapBefore, let after = HeapMemory.bytesInUse() { coldBytes.append(after - before) }
            refetch.offset = offset + round
            if try Self.keys(offsetWindow.snapshot) != refetch.refresh().snapshot {
                reporter.mismatch(.window, size: size, "cold open #\(round): the window differs from the re-fetched one")
            }
            let anchor = offsetWindow.snapshot.first?.items.first ?? .null
            let anchored = try ResultsController(store: fixture.store, request: PostFixture.request)
            try anchored.setWindow(.anchored(key: anchor, before: 0, after: length - 1))
            coldAnchored.append(try MonotonicClock.measure { try anchored.performFetch() }.nanoseconds)
            if anchored.snapshot != offsetWindow.snapshot {
                reporter.mismatch(.window, size: size, "cold open #\(round): the anchored window differs from the offset one")
            }
            let full = try ResultsController(store: fixture.store, request: PostFixture.request)
            let wholeBefore = HeapMemory.bytesInUse()
            wholeFetch.append(try MonotonicClock.measure { try full.performFetch() }.nanoseconds)
            if let before = wholeBefore, let after = HeapMemory.bytesInUse() { wholeBytes.append(after - before) }
            withExtendedLifetime((offsetWindow, full)) {}
        }
        // The heap a live query holds once fetched: a window opened cold against the whole results.
        if let cold = coldBytes.sorted().dropFirst(coldBytes.count / 2).first, let whole = wholeBytes.sorted().dropFirst(wholeBytes.count / 2).first {
            reporter.print("\(String(size).padding(toLength: 11, withPad: " ", startingAt: 0))heap held after the fetch (median): cold window \(Format.bytes(Double(cold))), whole results \(Format.bytes(Double(whole)))")
            reporter.record(.window, size: size, "cold_open.heap_bytes", Double(cold), unit: "bytes")
            reporter.record(.window, size: size, "whole_fetch.heap_bytes", Double(whole), unit: "bytes")
        }

        for (name, label, roster, base) in [("cold_open_offset", "cold open, offset", coldOffset, wholeFetch),
                                            ("cold_open_anchored", "cold open, anchored", coldAnchored, wholeFetch),
                                            ("whole_results", "one-row, whole results", whole, Durations()),
                                            ("window_commit", "one-row, window", windowed, baseline),
                                            ("window_commit_cpu", "… its thread's CPU", windowedCPU, Durations()),
                                            ("window_move", "move one screen", moves, moveBaseline),
                                            ("resume", "resume, 1,000 edits", resumes, resumeBaseline),
                                            ("resume_relaunched", "… vs relaunched re-fetch", resumes, relaunchedBaseline),
                                            ("resume_resorting", "resume, 1,000 re-sorts", resortingResumes, resortingBaseline),
                                            ("resume_resorting_floor", "its reads: log + re-sorted", resortingFloor, resortingBaseline),
                                            ("resume_floor", "its reads: log + 1,000 rows", resumeFloor, resumeBaseline),
                                            ("resume_placing_floor", "its reads: log + shown rows", placingFloor, resumeBaseline),
                                            ("resume_sqlite_floor", "floor: SQLite alone", sqliteFloor, resumeBaseline),
                                            ("resume_resorting_sqlite_floor", "… after re-sorts", resortingSQLiteFloor, resortingBaseline)] {
            reporter.print(table.line([String(size), label, Format.summary(roster),
                                       base.isEmpty ? "-" : Format.summary(base), base.isEmpty ? "-" : Format.ratio(base.median / roster.median)]))
            reporter.record(.window, size: size, "\(name).roster", roster)
            if !base.isEmpty {
                reporter.record(.window, size: size, "\(name).refetch", base)
                reporter.record(.window, size: size, "\(name).ratio.refetch_over_roster", base.median / roster.median, unit: "x")
            }
        }
        reporter.record(.window, size: size, "window_commit_over_whole_results", windowed.median / whole.median, unit: "ratio")
    }

    private static func keys(_ sections: [ListSection<Value, Value>]) -> [ListSection<String, String>] {
        func text(_ value: Value) -> String {
            if case let .string(text) = value { return text }
            return value.description
        }
        return sections.map { ListSection(id: text($0.id), items: $0.items.map(text)) }
    }

    /// The baseline: re-fetches the window's rows, every column, diffs them by key with
    /// the previous window and builds the batch.
    private final class WindowRefetch {
        private let database: RawDatabase
        private let select: RawStatement
        var offset: Int
        private var rows: [String: RefetchDiffObserver.Row] = [:]
        private(set) var snapshot: [ListSection<String, String>] = []

        init(path: String, offset: Int) throws {
            database = try RawDatabase(path: path)
            select = try database.prepare(PostFixture.orderedSelect + " LIMIT \(WindowScenario.length) OFFSET ?")
            self.offset = offset
        }

        /// Fetches the window without timing it.
        func reset() throws {
            (rows, snapshot) = try fetch()
        }

        /// What an app without resume tokens does when relaunched: a new connection reads
        /// the window (nothing on screen to diff with). Times the statement's preparation
        /// and the read, not opening the connection (the resume's time leaves out opening
        /// its store too).
        static func fetchOnNewConnection(path: String, offset: Int) throws -> UInt64 {
            let database = try RawDatabase(path: path)
            return try MonotonicClock.measure {
                let select = try database.prepare(PostFixture.orderedSelect + " LIMIT \(WindowScenario.length) OFFSET \(offset)")
                var rows: [RefetchDiffObserver.Row] = []
                while try select.step() {
                    rows.append(RefetchDiffObserver.Row(id: select.text(0), day: select.text(1), rank: select.int64(2),
                                                        score: select.double(3), title: select.text(4), pinned: select.int64(5) != 0))
                }
                return rows.count
            }.nanoseconds
        }

        func refresh() throws -> (nanoseconds: UInt64, snapshot: [ListSection<String, String>]) {
            let start = MonotonicClock.now()
            let (newRows, newSnapshot) = try fetch()
            let oldRows = rows
            let group = SnapshotDiff.changes(from: snapshot, to: newSnapshot) { key in oldRows[key] != newRows[key] }
            _ = BatchAdapter().batch(for: group)
            let nanoseconds = MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
            (rows, snapshot) = (newRows, newSnapshot)
            return (nanoseconds, newSnapshot)
        }

        private func fetch() throws -> ([String: RefetchDiffObserver.Row], [ListSection<String, String>]) {
            select.bind(Int64(offset), at: 1)
            var byKey: [String: RefetchDiffObserver.Row] = [:]
            var sections: [ListSection<String, String>] = []
            while try select.step() {
                let row = RefetchDiffObserver.Row(id: select.text(0), day: select.text(1), rank: select.int64(2),
                                                  score: select.double(3), title: select.text(4), pinned: select.int64(5) != 0)
                if sections.last?.id != row.day { sections.append(ListSection(id: row.day, items: [])) }
                sections[sections.count - 1].items.append(row.id)
                byKey[row.id] = row
            }
            return (byKey, sections)
        }
    }
}
