import Testing
@testable import Roster

/// The choice between applying a commit row by row, re-sorting the results in memory and
/// re-fetching them, by estimated cost (``CommitPath/cheaper(touched:results:)``).
@Suite("Commit path by estimated cost")
struct CommitPathTests {
    /// A single-row commit always goes row by row, however large the results: it must
    /// stay a matter of microseconds.
    @Test(arguments: [0, 1, 64, 10_000, 1_000_000, 100_000_000])
    func aSingleRowCommitGoesRowByRow(results: Int) {
        #expect(CommitPath.cheaper(touched: 1, results: results) == .rowByRow)
    }

    /// As the crossover measured them: row by row below about half a percent of the
    /// results, re-sort from there to about a quarter, re-fetch above (where sorting the
    /// touched rows costs more than reading every row in order).
    @Test(arguments: [10_000, 100_000, 1_000_000])
    func theChoiceFollowsTheShare(results: Int) {
        #expect(CommitPath.cheaper(touched: results / 1_000, results: results) == .rowByRow)
        #expect(CommitPath.cheaper(touched: results / 20, results: results) == .resort)
        #expect(CommitPath.cheaper(touched: results / 10, results: results) == .resort)
        #expect(CommitPath.cheaper(touched: results / 2, results: results) == .refetch)
        #expect(CommitPath.cheaper(touched: results, results: results) == .refetch)
    }

    /// The share where re-sorting takes over falls slowly as the results grow, since each
    /// row-by-row step searches a deeper tree while a re-sort costs the same per row.
    @Test func theThresholdShareFallsAsResultsGrow() {
        func threshold(_ results: Int) -> Int {
            (1...results).first { CommitPath.cheaper(touched: $0, results: results) != .rowByRow } ?? results
        }
        let small = Double(threshold(10_000)) / 10_000
        let large = Double(threshold(1_000_000)) / 1_000_000
        #expect(small > large)
        #expect(small < 0.02 && large > 0.002)
    }

    /// Tiny results are not re-sorted for a handful of rows: the fixed cost of a re-sort
    /// outweighs them.
    @Test func tinyResultsTakeAFewRowsRowByRow() {
        #expect(CommitPath.cheaper(touched: 3, results: 20) == .rowByRow)
        #expect(CommitPath.cheaper(touched: 40, results: 20) == .resort)
    }
}
