import CSQLite

/// A 64-bit digest of every value of a row, telling an update from a no-op write without
/// keeping the row: equal rows have equal fingerprints, different rows collide with
/// probability about 2⁻⁶⁴ (within one process: `Hasher` is seeded per process).
///
/// The same digest comes from a row of ``Value``s (touched rows) or straight from a
/// statement's columns (a fetch), so that fetching a million rows builds no row arrays.
struct Fingerprint {
    private var hasher = Hasher()

    /// The digest of a complete row.
    static func of(_ row: [Value]) -> UInt64 {
        var fingerprint = Fingerprint()
        for value in row { fingerprint.add(value) }
        return fingerprint.value
    }

    /// Adds a value, hashed as ``Value`` hashes itself (strings by their UTF-8 bytes).
    mutating func add(_ value: Value) {
        hasher.combine(value)
    }

    /// Adds column `index` of the statement's current row, read as `type`, exactly as
    /// ``add(_:)`` would add ``Statement/column(_:as:)``'s value: text and integers are
    /// fed straight from SQLite's buffers in the same form as `Value.hash(into:)`.
    mutating func add(column index: Int, of statement: Statement, as type: AttributeType) {
        let handle = statement.handle
        let column = Int32(index)
        let storage = sqlite3_column_type(handle, column)
        switch (storage, type) {
        case (SQLITE_NULL, _):
            hasher.combine(0 as UInt8)
        case (SQLITE_TEXT, .string):
            hasher.combine(3 as UInt8)
            let count = Int(sqlite3_column_bytes(handle, column))
            hasher.combine(count)
            if let bytes = sqlite3_column_text(handle, column) {
                hasher.combine(bytes: UnsafeRawBufferPointer(start: bytes, count: count))
            }
        case (SQLITE_INTEGER, .integer):
            hasher.combine(1 as UInt8)
            hasher.combine(sqlite3_column_int64(handle, column))
        default:
            add(statement.column(index, as: type))
        }
    }

    var value: UInt64 { UInt64(bitPattern: Int64(hasher.finalize())) }
}
