import Foundation

/// Where the benchmarks' results go: a table for people on standard output, one JSON
/// object per measurement in an optional file, progress and mismatches on standard error.
///
/// ```swift
/// let reporter = try BenchmarkReporter(jsonPath: "bench.jsonl")
/// try BenchmarkRunner(configuration: .standard, reporter: reporter).run()
/// reporter.close()
/// if reporter.mismatchCount > 0 { exit(1) }
/// ```
package final class BenchmarkReporter {
    private let json: FileHandle?
    /// Every measurement recorded so far, in order.
    package private(set) var measurements: [Measurement] = []
    /// How many commits the live query and the re-fetch-and-diff baseline reported
    /// differently, or that reported something they should not have.
    package private(set) var mismatchCount = 0

    /// Creates a reporter.
    ///
    /// - Parameter jsonPath: a file to write JSON Lines to (created or truncated), or nil.
    /// - Throws: ``BenchmarkError`` when the file cannot be created.
    package init(jsonPath: String?) throws(BenchmarkError) {
        guard let jsonPath else {
            json = nil
            return
        }
        guard FileManager.default.createFile(atPath: jsonPath, contents: nil),
              let handle = FileHandle(forWritingAtPath: jsonPath)
        else {
            throw BenchmarkError("cannot create JSON file '\(jsonPath)'")
        }
        json = handle
    }

    /// Flushes and closes the JSON file.
    package func close() {
        try? json?.close()
    }

    /// Prints a line of the table (standard output).
    func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints what the benchmark is doing (standard error), so a long run shows progress.
    func progress(_ line: String) {
        FileHandle.standardError.write(Data(("bench: " + line + "\n").utf8))
    }

    /// Records one measurement in the JSON file.
    func record(_ scenario: BenchmarkScenario, size: Int, _ metric: String, _ value: Double, unit: String) {
        let measurement = Measurement(scenario: scenario.rawValue, size: size, metric: metric, value: value, unit: unit)
        measurements.append(measurement)
        json?.write(Data((measurement.jsonLine + "\n").utf8))
    }

    /// Records median, p95, p99 and max of some durations, in milliseconds.
    func record(_ scenario: BenchmarkScenario, size: Int, _ metric: String, _ durations: Durations) {
        record(scenario, size: size, metric + ".median", durations.median, unit: "ms")
        record(scenario, size: size, metric + ".p95", durations.p95, unit: "ms")
        record(scenario, size: size, metric + ".p99", durations.percentile(0.99), unit: "ms")
        record(scenario, size: size, metric + ".max", durations.max, unit: "ms")
    }

    /// Reports loudly that a change was not what it must be, and counts it.
    func mismatch(_ scenario: BenchmarkScenario, size: Int, _ message: String) {
        mismatchCount += 1
        FileHandle.standardError.write(Data("MISMATCH [\(scenario.rawValue) N=\(size)] \(message)\n".utf8))
    }
}
