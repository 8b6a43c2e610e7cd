/// How long the change log keeps what it recorded: what other processes, live queries
/// that fell behind and resume tokens (``ResumeToken``) can still read.
///
/// The store removes a log entry only once it is older than ``minimumAge`` *and* more than
/// ``minimumEntries`` rows were logged after it: whichever rule keeps more wins, so one
/// large commit cannot expire every token saved before it, and a quiet week keeps a
/// week. A reader whose position was removed re-fetches and hears a resync
/// (``ResyncReason/logPruned``).
///
/// The default keeps 7 days or 100,000 rows. Set ``Store/changeLogRetention`` to change it;
/// every store writing the file prunes by its own setting.
public struct ChangeLogRetention: Sendable, Hashable {
    /// The age below which no entry is removed.
    public var minimumAge: Duration
    /// How many of the newest logged rows are always kept (a transaction of the store's
    /// own counts one row per write it made).
    public var minimumEntries: Int

    /// Creates a retention policy.
    ///
    /// - Parameters:
    ///   - minimumAge: entries younger than this stay; `.zero` keeps by count alone.
    ///   - minimumEntries: the newest rows that always stay; at least 1, and at most
    ///     `Int.max / 4` (which keeps everything).
    public init(minimumAge: Duration, minimumEntries: Int) {
        self.minimumAge = max(minimumAge, .zero)
        self.minimumEntries = min(max(minimumEntries, 1), Int.max / 4)
    }

    /// 7 days or 100,000 rows, whichever keeps more.
    public static let `default` = ChangeLogRetention(minimumAge: .seconds(7 * 24 * 60 * 60), minimumEntries: 100_000)
}
