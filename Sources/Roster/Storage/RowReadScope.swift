/// Which touched rows a read of the change log since a position reads as they are now
/// (``StorageBackend/changes(of:since:readingRows:)``), for a consumer that shows a slice
/// of its results — a window resumed from a token — and needs only the rows that can
/// enter, leave or move in it, and those it shows.
///
/// A key is left unread when every entry the log holds for it since the position is an
/// update that changed none of ``placingAttributes``: its row kept its place among the
/// results (in or out of them, above or below any edge), so a window that did not show it
/// needs nothing of it. Every other key is read: one inserted, deleted or replaced, one
/// whose entries cannot say what they changed (the store's own batches, a trigger of an
/// older Roster), and each of ``keys``. A key read for a later entry alone (its first ones
/// placed nothing) may come with the row as that entry found it: the row at the position
/// but for attributes that place no row, which a window that did not show it never reads.
/// A backend whose log cannot say what an update changed reads every key; the read is the
/// same, only dearer.
struct RowReadScope: Sendable {
    /// The attribute indexes whose change can place a row differently: the key, the sort
    /// keys (the section attribute among them) and what the predicate reads.
    let placingAttributes: Set<Int>
    /// Keys read whatever their entries say: the rows a consumer shows.
    let keys: Set<Value>
}
