extension IncrementalResults {
    /// The sections of a query's ordered results: the section names in order, and each
    /// one's row count.
    ///
    /// Rows come sorted by section first, so a section starts where the section value
    /// changes — which the scan noted while reading (``OrderedScan/firstValueRuns``), so
    /// no name is compared here.
    static func sections(of scan: OrderedScan, query: BoundQuery, slots: [Int?]) -> (names: [Value], counts: [Value: Int]) {
        guard scan.count > 0 else { return ([], [:]) }
        guard query.sectionIndex != nil else { return ([.null], [.null: scan.count]) }
        guard slots.first.flatMap({ $0 }) != nil else {
            // Sectioned by the key: a section per row. (Counted, not built with
            // `uniqueKeysWithValues`, which traps should a foreign table repeat a key.)
            var counts: [Value: Int] = [:]
            counts.reserveCapacity(scan.count)
            var names: [Value] = []
            names.reserveCapacity(scan.count)
            for row in 0..<scan.count {
                names.append(scan.keys[row])
                counts[scan.keys[row]] = 1
            }
            return (names, counts)
        }
        var names: [Value] = []
        var counts: [Value: Int] = [:]
        names.reserveCapacity(scan.firstValueRuns.count)
        for (index, start) in scan.firstValueRuns.enumerated() {
            let end = index + 1 < scan.firstValueRuns.count ? scan.firstValueRuns[index + 1] : scan.count
            let name = scan.sortColumns[0][start]
            names.append(name)
            counts[name] = end - start
        }
        return (names, counts)
    }
}
