import Roster

/// `feed`: a feed of 450 posts among the N is re-synced in one transaction of 500 writes —
/// 50 posts new, 50 gone, 20 edited (10 titles, 10 ranks), 380 rewritten with the values
/// they already have — as a feed reader that upserts everything it downloaded does. Then
/// the very same download is synced again: nothing changed, so nothing may be reported.
///
/// For the re-sync: the write, the live query's commit → batch ready, and the baseline's.
/// For the unchanged one: the write, and what the store spends after its commit finding
/// that nothing changed (against the baseline, which re-fetches everything to find it).
enum FeedScenario {
    static let feedSize = 450
    static let newPerSync = 50
    static let gonePerSync = 50
    static let editedPerSync = 20

    static let table = TextTable(labels: 2, [
        ("N", 9), ("sync", 10), ("write", 32), ("Roster commit→ready", 32), ("baseline commit→ready", 32), ("base/Roster", 11),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        reporter.print("feed: 500 posts re-synced in one transaction (50 new, 50 gone, 20 edited, 380 rewritten unchanged),")
        reporter.print("  then the same download synced again (unchanged: must report nothing); \(configuration.rounds) rounds;")
        reporter.print("  ms as median / p95 / p99 / max; for 'unchanged', Roster = COMMIT done → the write call returned")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, rounds: configuration.rounds, reporter: reporter)
        }
    }

    private static func run(size: Int, rounds: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("feed N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let (controller, probe) = try fixture.liveQuery()
        let baseline = try RefetchDiffObserver(path: fixture.store.path)
        var random = SeededGenerator(seed: UInt64(size) &+ 17)
        var feed: [String: [String: Value]] = [:]
        for index in (1...size).shuffled(using: &random).prefix(feedSize) {
            let key = PostFixture.key(index)
            var values = try fixture.post(key).dictionary
            values["id"] = nil
            feed[key] = values
        }

        var resync = (write: Durations(), roster: Durations(), baseline: Durations())
        var unchanged = (write: Durations(), roster: Durations(), baseline: Durations())
        reporter.progress("feed N=\(size): \(rounds) rounds")
        for round in 0..<rounds {
            let download = nextDownload(after: feed, round: round, random: &random)

            let stamps = try WriteStamps.measure(probe: probe) { try sync(download, over: feed, in: fixture.store) }
            let refresh = try baseline.refresh()
            if let difference = ChangeCheck.difference(roster: probe.group, baseline: refresh.group) {
                reporter.mismatch(.feed, size: size, "re-sync #\(round): \(difference)")
            }
            if let write = stamps.write, let ready = stamps.commitToBatch {
                resync.write.append(write)
                resync.roster.append(ready)
                resync.baseline.append(refresh.nanoseconds)
            } else {
                reporter.mismatch(.feed, size: size, "re-sync #\(round): no commit or no callbacks were seen")
            }
            feed = download

            let again = try WriteStamps.measure(probe: probe) { try sync(download, over: feed, in: fixture.store) }
            let refreshAgain = try baseline.refresh()
            if probe.willChange != nil || probe.callbacks > 0 {
                reporter.mismatch(.feed, size: size, "unchanged re-sync #\(round): the live query reported \(probe.callbacks) callbacks")
            }
            if !refreshAgain.group.isEmpty {
                reporter.mismatch(.feed, size: size, "unchanged re-sync #\(round): re-fetch and diff found \(refreshAgain.group.objectChanges.count) changes")
            }
            if let write = again.write, let after = again.afterCommit {
                unchanged.write.append(write)
                unchanged.roster.append(after)
                unchanged.baseline.append(refreshAgain.nanoseconds)
            } else {
                reporter.mismatch(.feed, size: size, "unchanged re-sync #\(round): no commit was seen")
            }
        }
        withExtendedLifetime(controller) {}

        let resyncRatio = resync.baseline.median / resync.roster.median
        let unchangedRatio = unchanged.baseline.median / unchanged.roster.median
        reporter.print(table.line([String(size), "re-sync", Format.summary(resync.write), Format.summary(resync.roster),
                                   Format.summary(resync.baseline), Format.ratio(resyncRatio)]))
        reporter.print(table.line([String(size), "unchanged", Format.summary(unchanged.write), Format.summary(unchanged.roster),
                                   Format.summary(unchanged.baseline), Format.ratio(unchangedRatio)]))
        reporter.record(.feed, size: size, "resync.write", resync.write)
        reporter.record(.feed, size: size, "resync.roster.commit_to_batch", resync.roster)
        reporter.record(.feed, size: size, "resync.baseline.commit_to_batch", resync.baseline)
        reporter.record(.feed, size: size, "resync.ratio.baseline_over_roster", resyncRatio, unit: "x")
        reporter.record(.feed, size: size, "unchanged.write", unchanged.write)
        reporter.record(.feed, size: size, "unchanged.roster.after_commit", unchanged.roster)
        reporter.record(.feed, size: size, "unchanged.baseline.refresh", unchanged.baseline)
        reporter.record(.feed, size: size, "unchanged.ratio.baseline_over_roster", unchangedRatio, unit: "x")
    }

    /// The next download of the feed: 50 posts dropped, 50 new ones, 20 edited, the rest as they are.
    private static func nextDownload(after feed: [String: [String: Value]], round: Int, random: inout SeededGenerator) -> [String: [String: Value]] {
        var keys = feed.keys.sorted()
        keys.shuffle(using: &random)
        var download: [String: [String: Value]] = [:]
        for (position, key) in keys.dropFirst(gonePerSync).enumerated() {
            var values = feed[key]!
            if position < editedPerSync / 2 {
                values["title"] = .string("Edited in round \(round)")
            } else if position < editedPerSync, case let .integer(rank)? = values["rank"] {
                values["rank"] = .integer((rank + PostFixture.rankRange / 2) % PostFixture.rankRange)
            }
            download[key] = values
        }
        for index in 0..<newPerSync {
            download["f\(round)-\(index)"] = [
                "day": .string(PostFixture.days.randomElement(using: &random)!),
                "rank": .integer(Int64.random(in: 0..<PostFixture.rankRange, using: &random)),
                "score": .double(Double.random(in: 0..<100, using: &random)),
                "title": .string("Fresh \(round)-\(index)"), "pinned": .bool(index % 10 == 0),
            ]
        }
        return download
    }

    /// Writes a download in one transaction: deletes what it no longer has, and upserts the
    /// rest — every post rewritten with all its values, whether they changed or not.
    private static func sync(_ download: [String: [String: Value]], over feed: [String: [String: Value]], in store: Store) throws {
        try store.write {
            for key in feed.keys.sorted() where download[key] == nil {
                try store.delete("Post", key: .string(key))
            }
            for key in download.keys.sorted() {
                if feed[key] != nil {
                    try store.update("Post", key: .string(key), download[key]!)
                } else {
                    var values = download[key]!
                    values["id"] = .string(key)
                    try store.insert("Post", values)
                }
            }
        }
    }
}
