import Foundation

/// The ways the incremental engine can take a commit, and the choice between them by
/// estimated cost.
///
/// Row by row costs each touched row a few tree searches, so it grows with the touched
/// rows *k* and slowly with the results *n*. Re-sorting merges the sorted touched rows
/// into the untouched ones and diffs by ids (``IncrementalResults/resorting(touched:)``):
/// a little per result row, and *k* log *k* for the sort. Re-fetching reads every result
/// again and diffs by ids: more per result row, but no sort, so it wins once a commit
/// touches about a third of the results. All paths then read the touched rows, report
/// them and build the batch alike, so those costs are left out. The constants, in
/// microseconds on the machine of the figures, come from `roster bench --scenario
/// crossover` (release build; Docs/Performance.md, "The re-sort path").
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
    static let rowByRowPerLevel = 0.62
    /// Re-sort: once, per result row, and per touched row and level of their sort.
    static let resortFixed = 20.0
    static let resortPerResult = 0.06
    static let resortPerTouchedLevel = 0.1
    /// Re-fetch: once (preparing the read), and per result row.
    static let refetchFixed = 50.0
    static let refetchPerResult = 0.45

    /// The cheapest path, by estimate, for a commit touching `touched` rows of results
    /// that hold `results` rows.
    package static func cheaper(touched: Int, results: Int) -> CommitPath {
        let (k, n) = (Double(touched), Double(results))
        let rowByRow = k * rowByRowPerLevel * log2(max(n, 2))
        let resort = resortFixed + n * resortPerResult + k * resortPerTouchedLevel * log2(max(k, 2))
        let refetch = refetchFixed + n * refetchPerResult
        if rowByRow <= min(resort, refetch) { return .rowByRow }
        return resort <= refetch ? .resort : .refetch
    }
}
