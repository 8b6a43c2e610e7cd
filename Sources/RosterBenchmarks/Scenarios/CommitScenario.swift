import Roster

/// `commit`: single-row commits of five kinds through the store API, each one heard by the
/// live query (incremental) and by the re-fetch-and-diff baseline, which must agree.
///
/// Per commit: the write's own time (`start → COMMIT done`), the live query's
/// "commit → batch ready" (change log read, results updated, callbacks, batch), and the
/// baseline's (re-fetch every row, diff, batch), which runs after the store call returns.
/// See ``WriteStamps`` for exactly what each span covers. Kinds take turns, so that drift
/// over the run (the WAL growing, checkpoints) falls on all of them alike.
enum CommitScenario {
    enum Kind: String, CaseIterable {
        case insert
        case delete
        case moveWithinSection = "move_within_section"
        case moveToOtherSection = "move_to_other_section"
        case updateInPlace = "update_in_place"

        var label: String {
            switch self {
            case .insert: "insert"
            case .delete: "delete"
            case .moveWithinSection: "move in section"
            case .moveToOtherSection: "move to section"
            case .updateInPlace: "update in place"
            }
        }
    }

    static let table = TextTable(labels: 2, [
        ("N", 9), ("kind", 15), ("write", 32), ("Roster commit→batch", 32), ("baseline commit→batch", 32), ("base/Roster", 11),
    ])

    static func run(_ configuration: BenchmarkConfiguration, reporter: BenchmarkReporter) throws {
        reporter.print("")
        let checked = min(configuration.iterations, configuration.baselineIterations ?? configuration.iterations)
        reporter.print("commit: single-row commits, \(configuration.iterations) of each kind\(checked < configuration.iterations ? " (the baseline runs the first \(checked))" : ""); ms as median / p95 / p99 / max")
        reporter.print("  write = call → COMMIT done; Roster = COMMIT done → its didChangeContent built the batch;")
        reporter.print("  baseline = re-fetch all rows + SnapshotDiff + batch (ratio of medians: baseline / Roster)")
        table.header.forEach(reporter.print)
        for size in configuration.sizes {
            try run(size: size, iterations: configuration.iterations, baselineIterations: checked, reporter: reporter)
        }
    }

    private struct Timings {
        var write = Durations()
        var commitToWillChange = Durations()
        var commitToBatch = Durations()
        var call = Durations()
        var baseline = Durations()
    }

    private static func run(size: Int, iterations: Int, baselineIterations: Int, reporter: BenchmarkReporter) throws {
        reporter.progress("commit N=\(size): filling the table")
        let fixture = try PostFixture(size: size)
        let (controller, probe) = try fixture.liveQuery()
        let baseline = try RefetchDiffObserver(path: fixture.store.path)
        var writer = Writer(fixture: fixture, seed: UInt64(size))
        var timings: [Kind: Timings] = [:]
        reporter.progress("commit N=\(size): \(iterations) commits of each of \(Kind.allCases.count) kinds")
        for iteration in 0..<iterations {
            for kind in Kind.allCases {
                let write = try writer.commit(kind, iteration: iteration)
                let stamps = try WriteStamps.measure(probe: probe, write)
                let refresh = iteration < baselineIterations ? try baseline.refresh() : nil
                if let refresh, let difference = ChangeCheck.difference(roster: probe.group, baseline: refresh.group) {
                    reporter.mismatch(.commit, size: size, "\(kind.label) #\(iteration): \(difference)")
                }
                guard let write = stamps.write, let commitToBatch = stamps.commitToBatch,
                      let commitToWillChange = stamps.commitToWillChange
                else {
                    reporter.mismatch(.commit, size: size, "\(kind.label) #\(iteration): no commit or no callbacks were seen")
                    continue
                }
                timings[kind, default: Timings()].write.append(write)
                timings[kind, default: Timings()].commitToWillChange.append(commitToWillChange)
                timings[kind, default: Timings()].commitToBatch.append(commitToBatch)
                timings[kind, default: Timings()].call.append(MonotonicClock.elapsed(from: stamps.start, to: stamps.returned))
                if let refresh { timings[kind, default: Timings()].baseline.append(refresh.nanoseconds) }
            }
        }
        if baselineIterations < iterations {
            // The commits the baseline skipped are checked at once: the results must be the file's.
            func text(_ value: Value) -> String {
                if case let .string(text) = value { return text }
                return value.description
            }
            let actual = controller.snapshot.map { section in
                ListSection(id: text(section.id), items: section.items.map(text))
            }
            if try actual != baseline.fetchSnapshot() {
                reporter.mismatch(.commit, size: size, "after \(iterations) commits of each kind the live query's results differ from the file's")
            }
        }
        withExtendedLifetime(controller) {}

        for kind in Kind.allCases {
            let timing = timings[kind] ?? Timings()
            let ratio = timing.baseline.median / timing.commitToBatch.median
            reporter.print(table.line([
                String(size), kind.label, Format.summary(timing.write), Format.summary(timing.commitToBatch),
                Format.summary(timing.baseline), Format.ratio(ratio),
            ]))
            let name = kind.rawValue
            reporter.record(.commit, size: size, "\(name).write", timing.write)
            reporter.record(.commit, size: size, "\(name).roster.commit_to_will_change", timing.commitToWillChange)
            reporter.record(.commit, size: size, "\(name).roster.commit_to_batch", timing.commitToBatch)
            reporter.record(.commit, size: size, "\(name).roster.call", timing.call)
            reporter.record(.commit, size: size, "\(name).baseline.commit_to_batch", timing.baseline)
            reporter.record(.commit, size: size, "\(name).ratio.baseline_over_roster", ratio, unit: "x")
        }
    }

    /// Makes the commits: reads what it needs before the measured call, so that the call
    /// is the write alone.
    struct Writer {
        let fixture: PostFixture
        var random: SeededGenerator
        /// Keys that exist, for deletes and updates.
        var keys: [String]
        var inserted = 0

        init(fixture: PostFixture, seed: UInt64) {
            self.fixture = fixture
            random = SeededGenerator(seed: seed)
            keys = (1...fixture.size).map(PostFixture.key)
        }

        mutating func commit(_ kind: Kind, iteration: Int) throws -> () throws -> Void {
            let store = fixture.store
            switch kind {
            case .insert:
                inserted += 1
                let key = "n" + String(inserted)
                keys.append(key)
                let values: [String: Value] = [
                    "id": .string(key), "day": .string(PostFixture.days.randomElement(using: &random)!),
                    "rank": .integer(Int64.random(in: 0..<PostFixture.rankRange, using: &random)),
                    "score": .double(Double.random(in: 0..<100, using: &random)), "title": .string("New \(inserted)"), "pinned": false,
                ]
                return { try store.insert("Post", values) }
            case .delete:
                let index = Int.random(in: keys.indices, using: &random)
                let key = keys[index]
                keys.swapAt(index, keys.count - 1)
                keys.removeLast()
                return { try store.delete("Post", key: .string(key)) }
            case .moveWithinSection:
                let key = keys.randomElement(using: &random)!
                guard case let .integer(rank)? = try fixture.post(key)["rank"] else { throw BenchmarkError("\(key) has no rank") }
                // Half the rank range away: the post crosses about half its section.
                let newRank = (rank + PostFixture.rankRange / 2) % PostFixture.rankRange
                return { try store.update("Post", key: .string(key), ["rank": .integer(newRank)]) }
            case .moveToOtherSection:
                let key = keys.randomElement(using: &random)!
                guard case let .string(day)? = try fixture.post(key)["day"], let index = PostFixture.days.firstIndex(of: day) else {
                    throw BenchmarkError("\(key) has no known day")
                }
                let newDay = PostFixture.days[(index + Int.random(in: 1..<PostFixture.days.count, using: &random)) % PostFixture.days.count]
                return { try store.update("Post", key: .string(key), ["day": .string(newDay)]) }
            case .updateInPlace:
                let key = keys.randomElement(using: &random)!
                return { try store.update("Post", key: .string(key), ["title": .string("Edited \(iteration)")]) }
            }
        }
    }
}
