/// Repeated measurements of one thing, in nanoseconds, summarized as a report shows them.
struct Durations {
    private(set) var samples: [UInt64] = []

    mutating func append(_ nanoseconds: UInt64) {
        samples.append(nanoseconds)
    }

    var isEmpty: Bool { samples.isEmpty }

    /// The middle sample (the mean of the two middle ones for an even count), in milliseconds.
    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        let nanoseconds = sorted.count % 2 == 1
            ? Double(sorted[middle])
            : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
        return nanoseconds / 1_000_000
    }

    /// The 95th percentile by nearest rank, in milliseconds.
    var p95: Double { percentile(0.95) }

    /// The largest sample, in milliseconds.
    var max: Double { samples.max().map { Double($0) / 1_000_000 } ?? .nan }

    /// The nearest-rank percentile `fraction` (0…1), in milliseconds.
    func percentile(_ fraction: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Swift.max(1, Int((fraction * Double(sorted.count)).rounded(.up)))
        return Double(sorted[Swift.min(rank, sorted.count) - 1]) / 1_000_000
    }
}
