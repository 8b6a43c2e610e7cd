import CRosterFuzz
import Foundation

/// The `main` of every fuzz target.
///
/// Built with `-sanitize=fuzzer -DROSTER_FUZZING` (see `Fuzz/fuzz.sh`), it hands the
/// command line to libFuzzer's driver, which runs the target until told to stop. In the
/// ordinary build (no libFuzzer linked) it runs every input of the target's corpus once
/// through the same function, so the corpus is a regression test: a crash exits non-zero.
public enum FuzzEntry {
    /// The function libFuzzer calls with one input: `LLVMFuzzerTestOneInput`'s shape.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

    /// Runs the target: libFuzzer's loop in a fuzzing build, a replay of the corpus otherwise.
    ///
    /// - Parameters:
    ///   - corpus: the folder under `Tests/Fuzz/Corpus` replayed when no path is given.
    ///   - summary: what the inputs of a replay reached, printed after it.
    ///   - testOneInput: the target.
    public static func main(corpus: String, summary: () -> String = { "" }, _ testOneInput: TestOneInput) -> Never {
        #if ROSTER_FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
        let paths = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
        let roots = paths.isEmpty ? [defaultCorpus(corpus)] : Array(paths)
        var count = 0
        for root in roots {
            for file in inputFiles(root) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("\(corpus): cannot read \(file)\n".utf8))
                    exit(2)
                }
                _ = data.withUnsafeBytes { bytes in
                    // An empty input still gets a valid pointer, as libFuzzer gives one.
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { buffer in
                        _ = buffer.initialize(fromContentsOf: bytes)
                        return testOneInput(UnsafePointer(buffer.baseAddress!), bytes.count)
                    }
                }
                count += 1
            }
        }
        print("\(corpus): replayed \(count) inputs from \(roots.joined(separator: ", ")) without a crash")
        let reached = summary()
        if !reached.isEmpty { print("\(corpus): \(reached)") }
        exit(count > 0 ? 0 : 1)
        #endif
    }

    /// `Tests/Fuzz/Corpus/<name>` in the repository this file belongs to.
    static func defaultCorpus(_ name: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fuzz/Corpus/\(name)").path
    }

    /// The file itself, or the regular files in a folder (not recursive), sorted by name.
    static func inputFiles(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            FileHandle.standardError.write(Data("no such file or folder: \(path)\n".utf8))
            exit(2)
        }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { "\(path)/\($0)" }.filter { file in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }
}

/// Checks a property of the code under test; on failure, stops the process so that
/// libFuzzer keeps the input (as a crash) and the replay exits non-zero.
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz property failed: \(message())\n".utf8))
        abort()
    }
}
