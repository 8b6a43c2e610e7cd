/// What the batches after a reader's cursor say of one key, to be resolved against its
/// row now read from the file.
struct BatchedKey {
    /// The log entry of the key's first batch entry.
    let seq: Int64
    /// The key's first batch entry.
    let first: ChangeBatch.Entry
    /// The key's later batch entries, with their log entries, kept only when `first` holds
    /// just the values an update changed.
    var later: [(seq: Int64, entry: ChangeBatch.Entry)] = []
    init(seq: Int64, first: ChangeBatch.Entry) {
        self.seq = seq
        self.first = first
    }

    /// Notes a later entry of the key (in log entry `seq`), when `first` holds only the
    /// values an update changed.
    mutating func noteLater(_ seq: Int64, _ entry: ChangeBatch.Entry) {
        guard case .changed = first else { return }
        later.append((seq, entry))
    }

    /// The key's row at the cursor, as the log tells it.
    enum RowAtCursor {
        /// The row (nil: no row had the key).
        case known([Value]?)
        /// The log does not add up: a write skipped it, or a batch could not be read.
        case unknown
    }

    /// The key's row at the cursor.
    ///
    /// - Parameters:
    ///   - rowAfter: the key's row just before log entry `before`, or its row now when
    ///     `before` is nil: where an update's changed values are put back from.
    ///   - before: the log entry whose row before `rowAfter` is; batch entries from it on
    ///     are not undone.
    func rowAtCursor(rowAfter: [Value]?, before: Int64?) -> RowAtCursor {
        // A first entry that holds the whole row (or says none) is the answer: only an
        // update's is rebuilt from later rows, and only it has later entries.
        guard case .changed = first else {
            return first.rowBefore(rowAfter: nil).map { .known($0) } ?? .unknown
        }
        var state = rowAfter
        // Newest first, back to `first` (no array of them: a bulk commit asks once a row).
        for position in stride(from: later.count, through: 0, by: -1) {
            let (entrySeq, entry) = position == 0 ? (seq, first) : later[position - 1]
            if let before, entrySeq >= before { continue }
            guard let rowBefore = entry.rowBefore(rowAfter: state) else { return .unknown }
            state = rowBefore
        }
        return .known(state)
    }
}
