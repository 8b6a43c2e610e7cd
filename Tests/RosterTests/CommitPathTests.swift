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

    /// As the crossover measured them (Docs/Performance.md, "Commit paths"): row by row
    /// below about half a percent of the results, re-sort from there — at 10,000 results
    /// up to all of them — and re-fetch from somewhere between half and all of 100,000
    /// results (the two measure the same there) and between half and all of a million,
    /// where each touched row of a re-sort costs more than reading every row in order.
    @Test(arguments: [
        (10_000, 10, CommitPath.rowByRow), (10_000, 500, .resort), (10_000, 5_000, .resort), (10_000, 10_000, .resort),
        (100_000, 100, .rowByRow), (100_000, 1_000, .resort), (100_000, 33_334, .resort), (100_000, 50_000, .resort),
        (100_000, 100_000, .refetch),
        (1_000_000, 1_000, .rowByRow), (1_000_000, 10_000, .resort), (1_000_000, 333_334, .resort),
        (1_000_000, 500_000, .resort), (1_000_000, 1_000_000, .refetch),
    ])
    func theChoiceFollowsTheMeasuredCrossover(results: Int, touched: Int, path: CommitPath) {
        #expect(CommitPath.cheaper(touched: touched, results: results) == path)
    }

    /// The share where re-sorting takes over falls slowly as the results grow: each
    /// row-by-row step searches a deeper tree, while a re-sort's fixed cost grows with the
    /// results only a little per row.
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
