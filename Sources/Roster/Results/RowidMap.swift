/// Which arena id each SQLite rowid got during a fetch: a flat array when rowids are dense
/// (the usual case: a table's rowids run from 1 to about its size), a dictionary otherwise.
/// The table-order pass then finds each row's id in sequence, without hashing its key.
struct RowidMap {
    private var dense: [Int32] = []
    private var base: Int64 = 0
    private var sparse: [Int64: Int32] = [:]

    /// Maps `rowids[i]` to id `i`.
    init(_ rowids: [Int64]) {
        guard let low = rowids.min(), let high = rowids.max() else { return }
        if high - low < Int64(rowids.count) * 4 + 1_024 {
            base = low
            dense = [Int32](repeating: -1, count: Int(high - low) + 1)
            for (id, rowid) in rowids.enumerated() { dense[Int(rowid - low)] = Int32(id) }
        } else {
            sparse.reserveCapacity(rowids.count)
            for (id, rowid) in rowids.enumerated() { sparse[rowid] = Int32(id) }
        }
    }

    /// The id of the row with this rowid, if the fetch read it.
    func id(for rowid: Int64) -> Int32? {
        if dense.isEmpty { return sparse[rowid] }
        let offset = rowid - base
        guard offset >= 0, offset < Int64(dense.count) else { return nil }
        let id = dense[Int(offset)]
        return id >= 0 ? id : nil
    }
}
