import RosterUpdates

/// One thing that happened to a live query since its last change was reported.
enum ResultsStep: Sendable {
    /// A commit: the rows of the keys it touched, before and now, and the change-log
    /// position its rows are at.
    case touched([Value: TouchedRow], through: Int64)
    /// A new query (sort or predicate change) or a re-fetch, with its rows and the
    /// change-log position they were read at.
    case replace(BoundQuery, [[Value]], through: Int64)
    /// Moves or deletes the user already made on screen.
    case userEdits([UserEdit])
    /// A new window over the results, or none (``ResultsWindow``), placed once over the
    /// results the consumer had when it was set (so that an anchor that pending commits
    /// remove passes to its neighbours).
    case window(WindowTracker?)
    /// The commits cannot be applied row by row (the log was pruned past what the query
    /// read, or the schema changed): it must re-fetch (the owner turns this into
    /// ``replace(_:_:)`` before applying).
    case resync(ResyncReason)
}
