import Roster

/// `unread`: a feed reader's list — N entries in N/100 feeds, sectioned by their feed's
/// title through a relationship (`feed.title`), newest first, with an unread count per
/// feed (``FetchRequest/aggregates``) — and one entry marked read (then unread again) per
/// commit; then feeds renamed, each rename moving a section of 100 entries.
///
/// Per commit, from `COMMIT` done: Roster's batch and new counts both delivered (the
/// delegate's `didChangeAggregates`); the same live query without aggregates (its batch);
/// the aggregates' own share (from the batch built in `controllerDidChangeContent` to the
/// counts delivered); and the baseline: re-fetch and diff of the ordered rows plus a `GROUP BY` of the unread
/// counts, on its own connection, diffed with the counts before. Each is timed in a pass
/// of its own over the same commits; in the baseline's pass, each commit's one changed
/// count must be the one the baseline finds, and the row update the one it finds.
///
/// The renames are timed the same way, with and against the baseline.
enum UnreadScenario {
    static let entriesPerFeed = 100

    static let table = TextTable(labels: 2, [
        ("N", 9), ("feeds", 8), ("live query", 32), ("commit→batch+counts", 32), ("batch→counts µs", 16), ("baseline", 32), ("base/Roster", 11),
    ])

    static let request = FetchRequest(
        entity: "Entry", sortKeys: [SortKey("feed.title"), SortKey("published", ascending: false)], sectionAttribute: "feed.title",
        displayedAttributes: ["title", "read"], aggregates: [.count("unread", where: QueryPredicate.unread)])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("unread: N entries in N/\(entriesPerFeed) feeds, sectioned by feed.title (a relationship), unread count per feed;")
        reporter.print("  \(max(2, configuration.iterations / 2 * 2)) commits marking one entry read or unread, then renames of a feed of \(entriesPerFeed) entries;")
        reporter.print("  ms as median / p95 / p99 / max from COMMIT done")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: max(2, configuration.iterations / 2 * 2), rounds: configuration.baselineIterations, reporter: reporter)
        }
    }

    private static func run(size: Int, iterations: Int, rounds: Int?, reporter: BenchmarkReporter) throws {
        reporter.progress("unread N=\(size): filling the table")
        let store = try Store.temporary()
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: 10_000)
        try store.define(Entity("Feed", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)]))
        try store.define(Entity("Entry", key: "id", attributes: [
            Attribute("id", .string), .relationship("feed", to: "Feed", type: .string), Attribute("published", .integer),
            Attribute("title", .string), Attribute("read", .bool),
        ]))
        let feeds = max(1, size / entriesPerFeed)
        try store.execute("""
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
            INSERT INTO Feed(id, title) SELECT printf('f%05d', i), printf('Feed %05d', i) FROM n
            """, arguments: [.integer(Int64(feeds))])
        try store.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO Entry(id, feed, published, title, read)
            SELECT printf('e%07d', i), printf('f%05d', (i * 7919) % ?), (i * 104729) % 1000000007, 'Entry ' || i, i % 3 = 0
            FROM n
            """, arguments: [.integer(Int64(size)), .integer(Int64(feeds))])

        // The keys to flip, the same for both live queries: each commit marks one entry
        // read or unread, and the next pass flips them back first.
        var random = SeededGenerator(seed: UInt64(size) &+ 91)
        let keys = (0..<iterations).map { _ in "e" + PostFixture.key(Int.random(in: 1...size, using: &random)).dropFirst() }
        func flip(_ key: String) throws {
            guard let entry = try store.fetch("Entry", key: .string(key)), case let .bool(read)? = entry["read"] else {
                throw BenchmarkError("entry \(key) is missing")
            }
            try store.update("Entry", key: .string(key), ["read": .bool(!read)])
        }

        // The live query without aggregates, alone on the store.
        reporter.progress("unread N=\(size): \(iterations) commits, live query without aggregates")
        var plainTimes = Durations()
        do {
            let plain = try ResultsController(store: store, request: FetchRequest(
                entity: "Entry", sortKeys: request.sortKeys, sectionAttribute: "feed.title", displayedAttributes: request.displayedAttributes))
            let plainProbe = LiveQueryProbe()
            plain.delegate = plainProbe
            try plain.performFetch()
            for (index, key) in keys.enumerated() {
                let stamps = try WriteStamps.measure(probe: plainProbe) { try flip(key) }
                guard let batch = stamps.commitToBatch else {
                    reporter.mismatch(.unread, size: size, "commit #\(index) without aggregates: no commit or no batch was seen")
                    continue
                }
                plainTimes.append(batch)
            }
            withExtendedLifetime(plain) {}
        }

        // The live query with the unread counts, alone on the store, timed; then the same
        // commits again, each checked against the baseline and the baseline timed. Apart,
        // because the baseline's reads of every row between commits would evict what the
        // live query's connection keeps cached in a real app.
        let counted = try ResultsController(store: store, request: request)
        let probe = UnreadProbe()
        counted.delegate = probe
        try counted.performFetch()
        var countedTimes = Durations(), afterBatch = Durations(), baselineTimes = Durations()
        reporter.progress("unread N=\(size): \(iterations) commits, live query with unread counts")
        for (index, key) in keys.enumerated() {
            probe.reset()
            let stamps = try WriteStamps.measure(probe: nil) { try flip(key) }
            guard let committed = stamps.committed, let ready = probe.aggregatesReady, let batchReady = probe.batchReady else {
                reporter.mismatch(.unread, size: size, "commit #\(index): no commit, no batch or no counts were seen")
                continue
            }
            countedTimes.append(MonotonicClock.elapsed(from: committed, to: ready))
            afterBatch.append(MonotonicClock.elapsed(from: batchReady, to: ready))
            if probe.heardCounts.count != 1 || probe.updates != [key] {
                reporter.mismatch(.unread, size: size, "commit #\(index): \(probe.heardCounts.count) counts and updates \(probe.updates), not 1 and [\(key)]")
            }
        }
        let checked = min(keys.count, rounds ?? keys.count)
        reporter.progress("unread N=\(size): \(checked) commits checked against re-fetch, diff and GROUP BY")
        let baseline = try UnreadBaseline(path: store.path)
        for (index, key) in keys.prefix(checked).enumerated() {
            probe.reset()
            try flip(key)
            let refresh = try baseline.refresh()
            baselineTimes.append(refresh.nanoseconds)
            let expected = refresh.changedCounts.map { "\(Value.string($0.feed))=\(Value.integer($0.unread))" }
            if probe.heardCounts != expected { reporter.mismatch(.unread, size: size, "check #\(index): counts \(probe.heardCounts), re-fetch found \(expected)") }
            if probe.updates != refresh.updates { reporter.mismatch(.unread, size: size, "check #\(index): updates \(probe.updates), re-fetch found \(refresh.updates)") }
        }
        // Renames: each feed is renamed so that its section moves (to the end and back).
        var renameTimes = Durations(), renameBaseline = Durations()
        let renamed = (0..<min(iterations, feeds)).map { _ in feedKey(Int.random(in: 0..<feeds, using: &random)) }
        reporter.progress("unread N=\(size): \(renamed.count * 2) feed renames")
        for (index, feed) in renamed.enumerated() {
            for title in ["Renamed \(feed)", "Feed \(feed.dropFirst())"] {
                probe.reset()
                let stamps = try WriteStamps.measure(probe: nil) { try store.update("Feed", key: .string(feed), ["title": .string(title)]) }
                guard let committed = stamps.committed, let ready = probe.aggregatesReady else {
                    reporter.mismatch(.unread, size: size, "rename #\(index): no commit or no counts were seen")
                    continue
                }
                renameTimes.append(MonotonicClock.elapsed(from: committed, to: ready))
                if probe.heardCounts.count != 2 || probe.moves != entriesPerFeed {
                    reporter.mismatch(.unread, size: size, "rename #\(index): \(probe.heardCounts.count) counts and \(probe.moves) moves, not 2 and \(entriesPerFeed)")
                }
            }
        }
        for feed in renamed.prefix(max(1, checked / 4)) {
            for title in ["Renamed \(feed)", "Feed \(feed.dropFirst())"] {
                try store.update("Feed", key: .string(feed), ["title": .string(title)])
                renameBaseline.append(try baseline.refresh().nanoseconds)
            }
        }
        withExtendedLifetime(counted) {}
        let renameRatio = renameBaseline.median / renameTimes.median
        reporter.print(table.line([String(size), String(feeds), "rename a feed", Format.summary(renameTimes), "",
                                   Format.summary(renameBaseline), Format.ratio(renameRatio)]))
        reporter.record(.unread, size: size, "rename.commit_to_batch_and_counts", renameTimes)
        reporter.record(.unread, size: size, "rename.baseline.refetch_diff_group_by", renameBaseline)
        reporter.record(.unread, size: size, "rename.ratio.baseline_over_roster", renameRatio, unit: "x")
        let ratio = baselineTimes.median / countedTimes.median
        reporter.print(table.line([String(size), String(feeds), Format.summary(plainTimes), Format.summary(countedTimes),
                                   Format.fixed(afterBatch.median * 1_000, decimals: 1), Format.summary(baselineTimes), Format.ratio(ratio)]))
        reporter.record(.unread, size: size, "without_aggregates.commit_to_batch", plainTimes)
        reporter.record(.unread, size: size, "with_aggregates.commit_to_batch_and_counts", countedTimes)
        reporter.record(.unread, size: size, "with_aggregates.batch_to_counts", afterBatch)
        reporter.record(.unread, size: size, "baseline.refetch_diff_group_by", baselineTimes)
        reporter.record(.unread, size: size, "ratio.baseline_over_roster", ratio, unit: "x")
    }
}

/// The key of the i-th feed (0-based): `f00042`.
private func feedKey(_ index: Int) -> String {
    let digits = String(index)
    return "f" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
}

private extension QueryPredicate {
    /// `read == NO`.
    static var unread: QueryPredicate {
        // A literal that parses: the predicate has no arguments to check.
        (try? QueryPredicate("read == NO")) ?? .all
    }
}


/// The delegate of the counted live query: notes the update keys and stamps the counts.
private final class UnreadProbe: ResultsControllerDelegate {
    private(set) var aggregatesReady: UInt64?
    private(set) var batchReady: UInt64?
    private(set) var change: AggregateChange?
    private(set) var updates: [String] = []
    private(set) var moves = 0

    func reset() {
        moves = 0
        aggregatesReady = nil
        batchReady = nil
        change = nil
        updates = []
    }

    func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
        if type == .update, case let .string(key) = object.key { updates.append(key) }
        if type == .move { moves += 1 }
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        _ = controller.lastChange.map { BatchAdapter().batch(for: $0) }
        batchReady = MonotonicClock.now()
    }

    /// The sections' new unread counts, as `name=count`.
    var heardCounts: [String] {
        change?.sections.map { "\($0.name)=\($0.values["unread"] ?? .null)" } ?? []
    }

    func controller(_ controller: ResultsController, didChangeAggregates change: AggregateChange) {
        self.change = change
        aggregatesReady = MonotonicClock.now()
    }
}

/// Re-fetch and diff of the feed list plus its unread counts, on its own connection.
private final class UnreadBaseline {
    struct Row: Equatable {
        var title: String
        var read: Bool
    }

    struct Refresh {
        var updates: [String]
        var changedCounts: [(feed: String, unread: Int64)]
        var nanoseconds: UInt64
    }

    private let database: RawDatabase
    private let select: RawStatement
    private let counts: RawStatement
    private var rows: [String: Row] = [:]
    private var snapshot: [ListSection<String, String>] = []
    private var unread: [String: Int64] = [:]

    init(path: String) throws(BenchmarkError) {
        database = try RawDatabase(path: path)
        select = try database.prepare("SELECT e.id, f.title, e.title, e.read FROM Entry e LEFT JOIN Feed f ON f.id = e.feed ORDER BY f.title, e.published DESC, e.id")
        counts = try database.prepare("SELECT f.title, count(*) FILTER (WHERE e.read = 0) FROM Entry e LEFT JOIN Feed f ON f.id = e.feed GROUP BY f.title")
        (rows, snapshot) = try fetch()
        unread = try fetchCounts()
    }

    func refresh() throws(BenchmarkError) -> Refresh {
        let start = MonotonicClock.now()
        let (newRows, newSnapshot) = try fetch()
        let newUnread = try fetchCounts()
        let oldRows = rows
        let group = SnapshotDiff.changes(from: snapshot, to: newSnapshot) { key in oldRows[key] != newRows[key] }
        _ = BatchAdapter().batch(for: group)
        let changed = newUnread.filter { unread[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { (feed: $0.key, unread: $0.value) }
        let nanoseconds = MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
        (rows, snapshot, unread) = (newRows, newSnapshot, newUnread)
        return Refresh(updates: group.objectChanges.filter { $0.type == .update }.map(\.item), changedCounts: changed, nanoseconds: nanoseconds)
    }

    private func fetch() throws(BenchmarkError) -> ([String: Row], [ListSection<String, String>]) {
        var byKey: [String: Row] = [:]
        byKey.reserveCapacity(rows.count + 16)
        var sections: [ListSection<String, String>] = []
        var items: [String] = []
        var current: String?
        while try select.step() {
            let key = select.text(0), feed = select.text(1)
            if feed != current {
                if let current { sections.append(ListSection(id: current, items: items)) }
                current = feed
                items = []
            }
            items.append(key)
            byKey[key] = Row(title: select.text(2), read: select.int64(3) != 0)
        }
        if let current { sections.append(ListSection(id: current, items: items)) }
        return (byKey, sections)
    }

    private func fetchCounts() throws(BenchmarkError) -> [String: Int64] {
        var result: [String: Int64] = [:]
        while try counts.step() { result[counts.text(0)] = counts.int64(1) }
        return result
    }
}
