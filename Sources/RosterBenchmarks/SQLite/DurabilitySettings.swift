/// The durability settings a connection commits with, read back with `PRAGMA`.
struct DurabilitySettings {
    /// `PRAGMA journal_mode`: `wal` for a store.
    let journalMode: String
    /// `PRAGMA synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    let synchronous: Int
    /// `PRAGMA wal_autocheckpoint`: the WAL size, in pages, past which a commit checkpoints.
    let autocheckpointPages: Int

    /// Reads the settings of a connection the caller keeps open.
    init(connection: OpaquePointer) throws(BenchmarkError) {
        let database = RawDatabase(borrowing: connection)
        journalMode = try database.text("PRAGMA journal_mode") ?? "?"
        synchronous = Int(try database.text("PRAGMA synchronous") ?? "") ?? -1
        autocheckpointPages = Int(try database.text("PRAGMA wal_autocheckpoint") ?? "") ?? -1
    }

    /// `synchronous` by name.
    var synchronousName: String {
        switch synchronous {
        case 0: "OFF"
        case 1: "NORMAL"
        case 2: "FULL"
        case 3: "EXTRA"
        default: "unknown"
        }
    }
}
