/// A query's committed results in order, as the incremental engine takes them: each row's
/// key and its sort values, never the whole row (``StorageBackend/orderedScan(_:)``).
///
/// The values are columns rather than rows (``ValueColumn``: typed, so 8 or 16 bytes a
/// value where they can be), so that a million-row fetch allocates a few arrays, not a
/// million. A sort value equal byte for byte to the previous row's (a section name, a day
/// shared by thousands of rows) is the same string instance, and ``firstValueRuns`` says
/// where the first sort value changes, so that the engine finds the sections without
/// comparing their names.
struct OrderedScan {
    /// Each row's key, in order.
    let keys: ValueColumn
    /// The low 32 bits of each key's hash (`Value.hashValue`), taken while the key was
    /// read: all that picks a slot of the key index (``KeyIndex/insertAll(hashes:)``), in
    /// half the bytes.
    var keyHashes: [UInt32] = []
    /// The sort values besides the key, one column each, in ``BoundQuery/orderColumns``
    /// order after the key.
    let sortColumns: [ValueColumn]
    /// For a sectioned query, the rows whose first sort value (the section) differs from
    /// the previous row's, the first row always; empty otherwise, and when there are no
    /// sort values besides the key.
    var firstValueRuns: [Int] = []

    /// An empty scan of columns of these types: the key's, then each other sort value's.
    init(keyType: AttributeType, sortTypes: [AttributeType]) {
        keys = ValueColumn(type: keyType)
        sortColumns = sortTypes.map(ValueColumn.init(type:))
    }

    /// Sort values per row, besides the key.
    var width: Int { sortColumns.count }

    /// How many rows the scan holds.
    var count: Int { keys.count }
}
