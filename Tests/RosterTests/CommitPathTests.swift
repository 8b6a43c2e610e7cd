import Testing
@testable import Roster

/// The choice between applying a commit row by row and re-fetching the results, by
/// estimated cost (``CommitPath/cheaper(touched:results:)``).
@Suite("Commit path by estimated cost")
struct CommitPathTests {
    /// A single-row commit always goes row by row, however large the results: it must
    /// stay a matter of microseconds.
    @Test(arguments: [0, 1, 64, 10_000, 1_000_000, 100_000_000])
    func aSingleRowCommitGoesRowByRow(results: Int) {
        #expect(CommitPath.cheaper(touched: 1, results: results) == .rowByRow)
    }

    /// Where the crossover measured the paths equal (about 3–4 % of the results at 10k and
    /// 100k rows): well below, row by row; well above, re-fetch.
    @Test(arguments: [10_000, 100_000, 1_000_000])
    func theChoiceTurnsAtAFewPercent(results: Int) {
        #expect(CommitPath.cheaper(touched: results / 100, results: results) == .rowByRow)
        #expect(CommitPath.cheaper(touched: results / 10, results: results) == .refetch)
        #expect(CommitPath.cheaper(touched: results, results: results) == .refetch)
    }

    /// The threshold share falls slowly as the results grow, since each row-by-row step
    /// searches a deeper tree while a re-fetch costs the same per row.
    @Test func theThresholdShareFallsAsResultsGrow() {
        func threshold(_ results: Int) -> Int {
            (1...results).first { CommitPath.cheaper(touched: $0, results: results) == .refetch } ?? results
        }
        let small = Double(threshold(10_000)) / 10_000
        let large = Double(threshold(1_000_000)) / 1_000_000
        #expect(small > large)
        #expect(small < 0.05 && large > 0.02)
    }

    /// Tiny results are not re-fetched for a handful of rows: the fixed cost of a re-fetch
    /// outweighs them.
    @Test func tinyResultsTakeAFewRowsRowByRow() {
        #expect(CommitPath.cheaper(touched: 3, results: 20) == .rowByRow)
        #expect(CommitPath.cheaper(touched: 40, results: 20) == .refetch)
    }
}
