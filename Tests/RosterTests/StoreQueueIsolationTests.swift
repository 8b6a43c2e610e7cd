import Foundation
import Testing
import RosterTestSupport
@testable import Roster

/// The compiler keeps a queue's `Store` inside the closure it was lent to: code that would
/// let it escape, and then use it while another thread holds the queue, does not compile.
///
/// Each case is compiled against the built `Roster` module by `swiftc` in a subprocess, as
/// a user's code would be, in the Swift 6 language mode.
@Suite("StoreQueue keeps its store inside the lock")
struct StoreQueueIsolationTests {
    /// Runs the compiler on Swift source that imports `Roster`.
    struct Compiler {
        let swiftc: URL
        let modules: URL
        let moduleMaps: [URL]

        /// Under CI the tests run, and fail, when the compiler cannot be found: no silent skip.
        static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

        /// The compiler and the modules this test binary was built with, or nil when they
        /// cannot be found (an installed test binary without its build folder).
        static let current: Compiler? = {
            let environment = ProcessInfo.processInfo.environment
            let paths = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
            guard let swiftc = paths.lazy.map({ URL(fileURLWithPath: $0).appendingPathComponent("swiftc") })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { return nil }
            // The test binary sits in the build folder, next to the modules it was built with.
            let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            var folder = binary.deletingLastPathComponent()
            var modules: URL?
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("Modules")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Roster.swiftmodule").path) {
                    modules = candidate
                    break
                }
                folder = folder.deletingLastPathComponent()
            }
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            // The C modules that Roster imports, found through their module maps.
            let moduleMaps = ["Sources/CSQLite/module.modulemap", "Sources/CLibPQ/module.modulemap",
                              "Sources/CRosterCapture/include/module.modulemap", "Sources/CRosterText/include/module.modulemap"]
                .map { root.appendingPathComponent($0) }
            guard let modules, moduleMaps.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) else { return nil }
            return Compiler(swiftc: swiftc, modules: modules, moduleMaps: moduleMaps)
        }()

        /// Compiles `source` through SIL, so that region-based isolation checking runs too,
        /// and returns the compiler's exit status and diagnostics. `asTopLevelCode`: the
        /// source is a program's main file, its declarations globals — how users try a library.
        func compile(_ source: String, named name: String, asTopLevelCode: Bool = false) throws -> (status: Int32, output: String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roster-typecheck-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("\(name).swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            return try Programs.run(executable: swiftc, [
                "-emit-sil", "-o", "/dev/null", "-swift-version", "6",
            ] + (asTopLevelCode ? [] : ["-parse-as-library"]) + [
                "-module-cache-path", folder.appendingPathComponent("cache").path,
                "-I", modules.path,
                // libpq's header, where Debian puts it (`pkg-config --cflags libpq`).
                "-Xcc", "-I/usr/include/postgresql",
            ] + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] } + [file.path])
        }
    }

    /// Declarations the cases share.
    static let prelude = """
        import Roster
        import Synchronization

        final class Box { var store: Store? }
        @MainActor var mainActorStore: Store?

        """

    @Test(.enabled(if: Compiler.current != nil || Compiler.isCI, "needs swiftc and the build folder's modules (never skipped under CI=true)"))
    func codeThatKeepsTheStoreInsideCompiles() throws {
        let compiler = try #require(Compiler.current)
        let result = try compiler.compile(Self.prelude + """
            func uses(_ queue: StoreQueue, _ live: LiveResults, key: String, values: [String: Value]) throws -> Int {
                try queue.write { store in try store.insert("Post", values) }
                try queue.write { store in try store.update("Post", key: .string(key), values) }
                try live.performUserDrivenChange([]) { store in try store.delete("Post", key: .string(key)) }
                let count = try queue.read { store in store.entities.count }
                return try queue.read { store in
                    let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
                    try controller.performFetch()
                    return controller.numberOfObjects + count
                }
            }
            """, named: "Control")
        #expect(result.status == 0, "\(result.output)")
    }

    /// Each line that lets the store out must be refused, with the compiler's reason.
    @Test(.enabled(if: Compiler.current != nil || Compiler.isCI, "needs swiftc and the build folder's modules (never skipped under CI=true)"))
    func aStoreCapturedOutOfReadOrWriteDoesNotCompile() throws {
        let compiler = try #require(Compiler.current)
        let cases = [
            "func a(_ queue: StoreQueue) throws { var escaped: Store?; try queue.read { escaped = $0 }; _ = escaped }",
            "func b(_ queue: StoreQueue) throws { var escaped: Store?; try queue.write { escaped = $0 }; _ = escaped }",
            "func c(_ queue: StoreQueue) throws { let box = Box(); try queue.read { box.store = $0 } }",
            "@MainActor func d(_ queue: StoreQueue) throws { try queue.read { mainActorStore = $0 } }",
            "func e(_ live: LiveResults) throws { var escaped: Store?; try live.performUserDrivenChange([]) { escaped = $0 }; _ = escaped }",
            "func f(_ queue: StoreQueue) throws { var stores: [Store] = []; try queue.read { stores.append($0) }; _ = stores }",
        ]
        let prefix = Self.prelude.split(separator: "\n", omittingEmptySubsequences: false).count
        let result = try compiler.compile(Self.prelude + cases.joined(separator: "\n") + "\n", named: "Escapes")
        #expect(result.status != 0)
        for (index, line) in cases.enumerated() {
            let diagnostics = result.output.split(separator: "\n").filter { $0.contains("Escapes.swift:\(prefix + index):") && $0.contains("error:") }
            #expect(!diagnostics.isEmpty, "compiles but lets the store escape: \(line)\n\(result.output)")
        }
    }

    /// Escapes through something `Sendable` are caught by region-based isolation checking.
    @Test(.enabled(if: Compiler.current != nil || Compiler.isCI, "needs swiftc and the build folder's modules (never skipped under CI=true)"),
          arguments: [
            "func g(_ queue: StoreQueue) throws { let kept = Mutex<Store?>(nil); try queue.read { store in kept.withLock { $0 = store } } }",
            "func h(_ queue: StoreQueue) throws { try queue.read { store in _ = Task { try store.insert(\"Post\", [:]) } } }",
          ])
    func aStoreSentOutOfReadDoesNotCompile(line: String) throws {
        let compiler = try #require(Compiler.current)
        let result = try compiler.compile(Self.prelude + line + "\n", named: "Sent")
        #expect(result.status != 0, "compiles but lets the store escape: \(line)")
        #expect(result.output.contains("error:"), "\(result.output)")
    }
}
