import Foundation

/// The ways the incremental engine can take a commit, and the choice between them by
/// estimated cost.
///
/// Row by row costs each touched row a few tree searches, so it grows with the touched
/// rows *k* and slowly with the results *n*. Re-sorting merges the touched rows, sorted,
/// into the untouched ones and diffs by ids (``IncrementalResults/resorting(touched:)``):
/// a little per result row, and per touched row a cost that grows with the results (each
/// reads its sort values from an arena that no longer fits in the caches). Re-fetching
/// reads every result again and diffs by ids: more per result row, nothing per touched
/// row, so it wins once a commit touches a large share of large results. All paths then
/// read the touched rows, report them and build the batch alike, so those costs are left
/// out. The constants, in microseconds on the machine of the figures, are fitted to `roster
/// bench --scenario crossover` (release build; Docs/Performance.md, "Commit paths").
package enum CommitPath: Sendable, Hashable {
    /// Apply each touched row to the tree: O(*k* log *n*).
    case rowByRow
    /// Re-fetch the results and diff them with the old ones by ids: O(*n*).
    case refetch
    /// Sort the touched rows, merge them into the untouched ones and diff by ids, in
    /// memory: O(*n* + *k* log *k*).
    case resort

    /// How the bench names the path.
    package var name: String {
        switch self {
        case .rowByRow: "row by row"
        case .refetch: "re-fetch"
        case .resort: "re-sort"
        }
    }

    /// Row by row, per touched row and level of the tree.
    static let rowByRowPerLevel = 0.42
    /// Re-sort: once, and per result row.
    static let resortFixed = 50.0
    static let resortPerResult = 0.025
    /// Re-sort, per touched row: this at 10,000 results, plus ``resortPerTouchedDoubling``
    /// for each doubling of the results beyond.
    static let resortPerTouched = 0.2
    static let resortPerTouchedDoubling = 0.045
    /// Re-fetch: once (preparing and starting the read), and per result row.
    static let refetchFixed = 1_850.0
    static let refetchPerResult = 0.314

    /// The cheapest path, by estimate, for a commit touching `touched` rows of results
    /// that hold `results` rows.
    ///
    /// The touched rows are sorted from their old order, so a commit that moves few of
    /// them sorts in about one comparison a row (the crossover's, and most bulk updates);
    /// one that reorders all of them pays *k* log *k* comparisons more than estimated.
    package static func cheaper(touched: Int, results: Int) -> CommitPath {
        let (k, n) = (Double(touched), Double(results))
        let rowByRow = k * rowByRowPerLevel * log2(max(n, 2))
        let perTouched = resortPerTouched + resortPerTouchedDoubling * max(0, log2(n / 10_000))
        let resort = resortFixed + n * resortPerResult + k * perTouched
        let refetch = refetchFixed + n * refetchPerResult
        if rowByRow <= min(resort, refetch) { return .rowByRow }
        return resort <= refetch ? .resort : .refetch
    }
}
