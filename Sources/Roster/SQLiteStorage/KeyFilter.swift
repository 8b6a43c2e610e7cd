import CSQLite

/// A set of keys that tells, from SQLite's own bytes of a column, that the column's key is
/// surely not one of them — without building its ``Value``, which costs a scan of the change
/// log more than SQLite's stepping does (a resume after 1,000 edits reads 1,000 entries to
/// find the few whose keys its window showed).
///
/// It holds a table of 64-bit FNV-1a hashes: of a text key's bytes, of an integer key's
/// number. A column that holds text read as a `.string` key, or an integer read as an
/// `.integer` key, is answered from it; any other column, and every hash it holds, is left to
/// the caller to build and look up.
struct KeyFilter {
    private var slots: [UInt64]
    private let mask: Int

    init(_ keys: Set<Value>) {
        var size = 16
        while size < keys.count * 4 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
        for key in keys {
            let hash: UInt64?
            switch key {
            case .string, .invalidUTF8: hash = key.withTextBytes { Self.hash(UnsafeRawBufferPointer($0)) }
            case let .integer(number): hash = Self.hash(number)
            default: hash = nil
            }
            if let hash { insert(hash) }
        }
    }

    /// Whether column `index` of the statement's row, read as a key of `type`, is surely
    /// none of the keys.
    func surelyLacks(column index: Int, of statement: Statement, as type: AttributeType) -> Bool {
        // (One look-up of the column: a scan of the log calls this for each entry.)
        let found = statement.withValue(ofColumn: index) { value -> UInt64? in
            switch (sqlite3_value_type(value), type) {
            case (SQLITE_TEXT, .string):
                guard let start = sqlite3_value_text(value) else { return Self.hash(UnsafeRawBufferPointer(start: nil, count: 0)) }
                return Self.hash(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
            case (SQLITE_INTEGER, .integer): return Self.hash(sqlite3_value_int64(value))
            default: return nil
            }
        }
        guard let hash = found ?? nil else { return false }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if slots[slot] == hash { return false }
            slot = (slot + 1) & mask
        }
        return true
    }

    private mutating func insert(_ hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if slots[slot] == hash { return }
            slot = (slot + 1) & mask
        }
        slots[slot] = hash
    }

    /// FNV-1a of the bytes, never 0 (an empty slot).
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        FNV1a.hash(bytes) | 1
    }

    private static func hash(_ number: Int64) -> UInt64 {
        var hash = FNV1a()
        hash.combine(UInt64(bitPattern: number))
        return hash.value | 1
    }
}
