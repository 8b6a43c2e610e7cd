import Foundation
import Roster
import Synchronization

/// A store in a temporary WAL file holding N posts, the data every scenario runs on.
///
/// Post `p0000001`…: 30 distinct days (so 30 sections), a rank in 0..<100,000 (spread so
/// that neighbours in a day are far apart), a score, a title `Post i`, and one post in
/// ten pinned. An index `(day DESC, rank, id)` serves the live query's order. Rows are
/// inserted by one `INSERT … SELECT` over a recursive CTE before any live query exists.
final class PostFixture {
    /// The rank range: ranks are in `0..<rankRange`.
    static let rankRange: Int64 = 100_000
    /// The 30 days, oldest first: `2026-10-01`…`2026-10-30`.
    static let days: [String] = (1...30).map { "2026-10-" + ($0 < 10 ? "0" : "") + String($0) }
    /// The live query of every scenario: newest day first, then rank, then key; a section per day.
    static let request = FetchRequest(
        entity: "Post",
        sortKeys: [SortKey("day", ascending: false), SortKey("rank"), SortKey("id")],
        sectionAttribute: "day")
    /// The same query in SQL, every column, for the baseline.
    static let orderedSelect = "SELECT id, day, rank, score, title, pinned FROM Post ORDER BY day DESC, rank, id"

    /// Where new fixtures make their stores (``BenchmarkConfiguration/storeDirectory``);
    /// nil for a temporary store. Set by the runner before the scenarios run.
    static let directory = Mutex<String?>(nil)

    let store: Store
    let size: Int
    /// How long filling the table took, index included, in nanoseconds.
    let populateNanoseconds: UInt64
    /// The folder made for the store under ``directory``, removed with the fixture.
    private let folder: URL?

    init(size: Int) throws {
        if let directory = Self.directory.withLock({ $0 }) {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent("roster-bench-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            store = try Store(path: folder.appendingPathComponent("store.sqlite").path)
        } else {
            folder = nil
            store = try Store.temporary()
        }
        self.size = size
        // By count alone, as before resume tokens: the bench rewrites millions of rows, which
        // the default (a week) would keep on disk; figures stay comparable across versions.
        store.changeLogRetention = ChangeLogRetention(minimumAge: .zero, minimumEntries: 10_000)
        try store.define(Entity("Post", key: "id", attributes: [
            Attribute("id", .string), Attribute("day", .string), Attribute("rank", .integer),
            Attribute("score", .double), Attribute("title", .string), Attribute("pinned", .bool),
        ]))
        let start = MonotonicClock.now()
        try store.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO Post(id, day, rank, score, title, pinned)
            SELECT printf('p%07d', i), date('2026-10-01', printf('+%d days', i % 30)),
                   (i * 7919) % \(Self.rankRange), ((i * 37) % 10000) / 100.0, 'Post ' || i, i % 10 = 0
            FROM n
            """, arguments: [.integer(Int64(size))])
        try store.execute(#"CREATE INDEX "Post_day_rank_id" ON "Post"("day" DESC, "rank", "id")"#)
        populateNanoseconds = MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
        // Two small commits: the store prunes the change log that the fill made long now,
        // not during the first measured commit.
        try store.insert("Post", ["id": "warm-up"])
        try store.delete("Post", key: "warm-up")
    }

    deinit {
        // Connections others opened on the file may outlive this; they only see it unlinked.
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The key of the i-th post of the initial rows (1-based).
    static func key(_ index: Int) -> String {
        let digits = String(index)
        return "p" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// A live query on the store with a probe as its delegate, fetched.
    func liveQuery(_ request: FetchRequest = PostFixture.request) throws -> (controller: ResultsController, probe: LiveQueryProbe) {
        let controller = try ResultsController(store: store, request: request)
        let probe = LiveQueryProbe()
        controller.delegate = probe
        try controller.performFetch()
        return (controller, probe)
    }

    /// A post's current values, read through the store.
    func post(_ key: String) throws -> Object {
        guard let object = try store.fetch("Post", key: .string(key)) else {
            throw BenchmarkError("post \(key) is missing")
        }
        return object
    }
}
