import Roster

/// The baseline engine: what a user of a plain SQLite observation library writes. After
/// each commit it runs the query's SQL again over every row on its own connection, reads
/// every column, and diffs the new snapshot against the previous one by key with
/// `SnapshotDiff`, a row whose values changed being an update; then it builds the batch.
///
/// Keys, section names and rows are plain Swift strings and structs, as such a user would
/// have them, not Roster's `Value`s.
final class RefetchDiffObserver {
    /// One row of the query, every column.
    struct Row: Equatable {
        var id: String
        var day: String
        var rank: Int64
        var score: Double
        var title: String
        var pinned: Bool
    }

    private let database: RawDatabase
    private let select: RawStatement
    private var rows: [String: Row] = [:]
    private var snapshot: [ListSection<String, String>] = []

    /// Opens its own connection to the store's file and fetches the results.
    init(path: String) throws(BenchmarkError) {
        database = try RawDatabase(path: path)
        select = try database.prepare(PostFixture.orderedSelect)
        (rows, snapshot) = try fetch()
    }

    /// One refresh, as run after a commit.
    struct Refresh {
        /// The change from the previous results; empty when nothing changed.
        let group: ChangeGroup<String, String>
        /// The batch made of it.
        let batch: BatchUpdate
        /// From the start of the re-fetch to the batch, in nanoseconds.
        let nanoseconds: UInt64
    }

    /// Re-fetches, diffs and builds the batch.
    func refresh() throws(BenchmarkError) -> Refresh {
        let start = MonotonicClock.now()
        let (newRows, newSnapshot) = try fetch()
        let oldRows = rows
        let group = SnapshotDiff.changes(from: snapshot, to: newSnapshot) { key in oldRows[key] != newRows[key] }
        let batch = BatchAdapter().batch(for: group)
        let nanoseconds = MonotonicClock.elapsed(from: start, to: MonotonicClock.now())
        rows = newRows
        snapshot = newSnapshot
        return Refresh(group: group, batch: batch, nanoseconds: nanoseconds)
    }

    /// The results as they are in the file now, as sections of keys; the observer's own
    /// results are left as they were.
    func fetchSnapshot() throws(BenchmarkError) -> [ListSection<String, String>] {
        try fetch().1
    }

    private func fetch() throws(BenchmarkError) -> ([String: Row], [ListSection<String, String>]) {
        var byKey: [String: Row] = [:]
        byKey.reserveCapacity(rows.count + 1_000)
        var sections: [ListSection<String, String>] = []
        var items: [String] = []
        var currentDay: String?
        while try select.step() {
            let row = Row(id: select.text(0), day: select.text(1), rank: select.int64(2),
                          score: select.double(3), title: select.text(4), pinned: select.int64(5) != 0)
            if row.day != currentDay {
                if let currentDay { sections.append(ListSection(id: currentDay, items: items)) }
                currentDay = row.day
                items = []
            }
            items.append(row.id)
            byKey[row.id] = row
        }
        if let currentDay { sections.append(ListSection(id: currentDay, items: items)) }
        return (byKey, sections)
    }
}
