import Roster

/// The least SQLite itself reads for a resume of the `window` scenario's live query, with
/// no Roster in between: on a new connection whose schema is loaded (as a relaunched store's is), the
/// change log since the token — each entry's key and the attributes it changed — then,
/// after re-sorting edits, each logged row by key (where it is now), then the window's
/// rows by the serving index from its first row: one look-up and the ranges that follow it
/// in the order `day DESC, rank, id`. What any resume must read at the least; the
/// `window` scenario prints it beside Roster's resume.
struct SQLiteResumeFloor {
    private let database: RawDatabase

    init(path: String) throws {
        database = try RawDatabase(path: path)
        // Loads the schema, which the relaunched store has read before its resume is timed.
        _ = try database.text("SELECT count(*) FROM sqlite_schema WHERE name = 'Post'")
    }

    /// Reads what a resume from log position `position` reads at the least; returns the
    /// nanoseconds it took.
    func measure(since position: Int64, firstRow key: Value, readingLoggedRows: Bool) throws -> UInt64 {
        guard case let .string(firstKey) = key else { throw BenchmarkError("the window shows no row to resume from") }
        return try MonotonicClock.measure {
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            let log = try database.prepare("SELECT key, changed FROM _roster_changes WHERE seq > ? AND entity = 'Post' AND key IS NOT NULL")
            log.bind(position, at: 1)
            var logged: [String] = []
            while try log.step() {
                logged.append(log.text(0))
                _ = log.int64(1)
            }
            let byKey = try database.prepare("SELECT id, day, rank, score, title, pinned FROM Post WHERE id = ?")
            var read = 0
            for loggedKey in readingLoggedRows ? logged : [] {
                byKey.bind(loggedKey, at: 1)
                if try byKey.step() { read += Self.readRow(byKey) }
                byKey.reset()
            }
            byKey.bind(firstKey, at: 1)
            guard try byKey.step() else { throw BenchmarkError("the window's first row \(firstKey) is gone") }
            let (day, rank) = (byKey.text(1), byKey.int64(2))
            var shown = 0
            for condition in ["day = ?1 AND rank = ?2 AND id >= ?3", "day = ?1 AND rank > ?2", "day < ?1"] where shown < WindowScenario.length {
                let range = try database.prepare("SELECT id, day, rank, score, title, pinned FROM Post WHERE \(condition) ORDER BY day DESC, rank, id LIMIT ?4")
                range.bind(day, at: 1)
                range.bind(rank, at: 2)
                range.bind(firstKey, at: 3)
                range.bind(Int64(WindowScenario.length - shown), at: 4)
                while try range.step() { shown += Self.readRow(range) }
            }
            return read + shown
        }.nanoseconds
    }

    /// Reads every column of the statement's row, as a resume decodes it.
    private static func readRow(_ row: RawStatement) -> Int {
        _ = (row.text(0), row.text(1), row.int64(2), row.double(3), row.text(4), row.int64(5))
        return 1
    }
}
