/// Which part of a live query's results its consumer shows: a window over them.
///
/// A windowed ``ResultsController`` reports changes *of the window*: a row that enters or
/// leaves the window at its edges is an insert or a delete, moves stay as few as possible
/// inside it, index paths count from the window's first row, and the sections are those
/// its rows fall in (a section the edge cuts shows only its rows in the window). The
/// whole results' counts stay available (``ResultsController/counts``) and a change to
/// them alone is reported by ``ResultsControllerDelegate/controller(_:didChangeCounts:)``.
///
/// ```swift
/// // Fifty messages around the one the user last read; older ones load above it.
/// try controller.setWindow(.anchored(key: "m981", before: 25, after: 24))
/// // A page of a feed, 100 rows from the 200th.
/// try controller.setWindow(.offset(200, length: 100))
/// ```
public enum ResultsWindow: Sendable, Hashable {
    /// `length` rows from rank `offset` of the results (counted from 0). The window keeps
    /// its offset: rows slide through it when rows are inserted or deleted above it. A
    /// window past the end of the results holds the rows that exist, or none.
    case offset(Int, length: Int)
    /// The row with key `key`, with up to `before` rows above it and `after` below it. The
    /// window keeps its anchor: rows inserted or deleted above do not shift the rows shown.
    /// When the anchor row leaves the results, the nearest row that stayed of those shown
    /// with it (below it first, then above) becomes the anchor (see
    /// ``ResultsController/window``).
    case anchored(key: Value, before: Int, after: Int)

    /// Checks the counts: none may be negative.
    ///
    /// - Throws: ``StoreError/Code/invalidWindow`` naming the count.
    func validate() throws(StoreError) {
        switch self {
        case let .offset(offset, length):
            if offset < 0 { throw .invalidWindow("a window's offset cannot be negative; got \(offset)") }
            if length < 0 { throw .invalidWindow("a window's length cannot be negative; got \(length)") }
        case let .anchored(key, before, after):
            if key.isNull { throw .invalidWindow("a window's anchor key cannot be null") }
            if before < 0 { throw .invalidWindow("a window's count of rows before its anchor cannot be negative; got \(before)") }
            if after < 0 { throw .invalidWindow("a window's count of rows after its anchor cannot be negative; got \(after)") }
        }
    }
}

/// How many objects a live query's whole results hold, in total and section by section,
/// whatever part of them a window shows.
public struct ResultsCounts: Sendable, Hashable {
    /// The number of objects in the results.
    public let total: Int
    /// Every section of the results, in order, with its number of objects.
    public let sections: [SectionInfo]

    init(total: Int, sections: [SectionInfo]) {
        self.total = total
        self.sections = sections
    }
}
