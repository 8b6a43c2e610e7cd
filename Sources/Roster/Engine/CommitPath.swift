import Foundation

/// The two ways the incremental engine can take a commit, and the choice between them by
/// estimated cost.
///
/// Row by row costs each touched row a few tree searches, so it grows with the touched
/// rows *k* and slowly with the results *n*. Re-fetching reads every result once and diffs
/// by ids (``IncrementalResults/change(from:to:touched:)``), so it grows with *n*. Both
/// then read the touched rows, report them and build the batch alike, so those costs are
/// left out. The constants come from `roster bench --scenario crossover` (release build;
/// Docs/Performance.md, "The re-fetch path by ids, and the path chosen by cost"): the cost
/// of each path per row, in one unit (about one result row re-fetched and diffed).
package enum CommitPath: Sendable, Hashable {
    /// Apply each touched row to the tree: O(*k* log *n*).
    case rowByRow
    /// Re-fetch the results and diff them with the old ones by ids: O(*n*).
    case refetch

    /// Row by row, per touched row: a fixed part and a part per level of the tree.
    static let rowByRowFixed = 10.0
    static let rowByRowPerLevel = 1.2
    /// Re-fetch: per row of the results, and once (preparing the read, building the tree).
    static let refetchPerResult = 1.0
    static let refetchFixed = 50.0

    /// The cheaper path, by estimate, for a commit touching `touched` rows of results that
    /// hold `results` rows.
    package static func cheaper(touched: Int, results: Int) -> CommitPath {
        let rowByRow = Double(touched) * (rowByRowFixed + rowByRowPerLevel * log2(Double(max(results, 2))))
        let refetch = refetchFixed + Double(results) * refetchPerResult
        return refetch < rowByRow ? .refetch : .rowByRow
    }
}
