@testable import Roster

/// The SQLite backend's connections, for tests that look at the file as the store sees it
/// (its change log, its schema, the pages it reads).
extension Store {
    /// The store's backend; every store these tests open is over SQLite.
    var sqlite: SQLiteStorage {
        guard let sqlite = storage as? SQLiteStorage else { fatalError("these tests open SQLite stores only") }
        return sqlite
    }

    /// The connection that writes.
    var writer: Connection { sqlite.writer }

    /// The connection that reads committed state.
    var reader: Connection { sqlite.reader }
}
