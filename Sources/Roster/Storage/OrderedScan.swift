/// A query's committed results in order, as the incremental engine takes them: each row's
/// key and its sort values, never the whole row (``StorageBackend/orderedScan(_:)``).
///
/// The values are flat arrays rather than rows, so that a million-row fetch allocates a
/// few arrays, not a million. A sort value equal byte for byte to the previous row's (a
/// section name, a day shared by thousands of rows) is the same `Value` instance, and
/// ``firstValueRuns`` says where the first sort value changes, so that the engine finds
/// the sections without comparing their names.
struct OrderedScan {
    /// Sort values per row, besides the key: ``BoundQuery/orderColumns``' count minus one.
    let width: Int
    /// Each row's key, in order.
    var keys: [Value] = []
    /// Each key's hash (`Value.hashValue`), taken while the key was read.
    var keyHashes: [Int] = []
    /// Row *i*'s sort values are `sortValues[i * width ..< (i + 1) * width]`, in
    /// ``BoundQuery/orderColumns`` order after the key.
    var sortValues: [Value] = []
    /// For a sectioned query, the rows whose first sort value (the section) differs from
    /// the previous row's, the first row always; empty otherwise, and when `width` is 0.
    var firstValueRuns: [Int] = []

    init(width: Int) {
        self.width = width
    }

    /// How many rows the scan holds.
    var count: Int { keys.count }
}
