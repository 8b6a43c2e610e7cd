/// Why a live query re-fetched its results instead of applying commits row by row.
///
/// A live query stays exact by applying each commit's touched rows. When it cannot — the
/// change log no longer reaches back to its last change, a read failed, or another
/// connection changed the table's schema — it re-fetches, reports the difference between
/// the results its consumer last saw and the fresh ones as one change group, and marks
/// that group as a resync with a reason. A ``ResultsController`` keeps no whole rows, so
/// it cannot tell which values changed: every object that stays is reported updated.
/// ``LiveResults`` keeps every row and reports exactly the objects whose values differ.
///
/// New reasons may be added; compare with the static members, as with an error code.
public struct ResyncReason: Sendable, Hashable, CustomStringConvertible {
    /// A short stable name, as the trace prints it: `log-pruned`, `read-failed`, `schema-changed`.
    public let code: String

    /// The change log was pruned past the last entry the query read.
    public static let logPruned = ResyncReason(code: "log-pruned")
    /// A read that a change needed failed; the results are read again when the store next
    /// delivers changes (after a commit or a poll).
    public static let readFailed = ResyncReason(code: "read-failed")
    /// Another connection changed the database schema (an entity's table was altered or
    /// recreated).
    public static let schemaChanged = ResyncReason(code: "schema-changed")

    public var description: String {
        switch code {
        case Self.logPruned.code: "the change log no longer reaches back to the last change the query read"
        case Self.readFailed.code: "a read failed; the results were read again"
        case Self.schemaChanged.code: "another connection changed the database schema"
        default: code
        }
    }
}
