import Foundation
import Synchronization
import Testing

/// Every ```` ```swift ```` block of the README and the Docs pages compiles against the
/// built `Roster` module, so that the documentation cannot drift from the code.
///
/// All blocks go into one file, each in a function of its own, inside a `do` scope under
/// the context the pages take for granted (a `store`, a `queue`, a `controller`, a
/// `path`, a delegate, a `Post` record): a block may declare those names again. One
/// `swiftc` run type-checks them all; an error names the page and the line. `import` lines
/// are left to the file's head (which imports Foundation and Roster). A block whose first
/// line is `// Package.swift` is a manifest, and one whose first line starts with
/// `// Not compiled here` says why it cannot be (another library's code, or a framework
/// Linux lacks, as in Docs/SwiftUI.md): both are left out.
@Suite("Docs snippets")
struct DocSnippetTests {
    typealias Compiler = StoreQueueIsolationTests.Compiler

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The pages whose blocks are compiled: the README and every page under Docs/.
    static func pages() throws -> [String] {
        let docs = root.appendingPathComponent("Docs")
        let enumerator = FileManager.default.enumerator(atPath: docs.path)
        var pages = ["README.md"]
        while let file = enumerator?.nextObject() as? String {
            if file.hasSuffix(".md") { pages.append("Docs/\(file)") }
        }
        return pages.sorted()
    }

    /// One block: where it stands, and its lines.
    struct Snippet {
        let page: String
        /// The page's line number of the block's first line.
        let firstLine: Int
        let lines: [String]
    }

    static func snippets(in page: String) throws -> [Snippet] {
        let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        var snippets: [Snippet] = []
        var open: (firstLine: Int, lines: [String])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = open {
                if trimmed == "```" {
                    let first = block.lines.first?.trimmingCharacters(in: .whitespaces) ?? ""
                    if first != "// Package.swift" && !first.hasPrefix("// Not compiled here") {
                        snippets.append(Snippet(page: page, firstLine: block.firstLine, lines: block.lines))
                    }
                    open = nil
                } else {
                    open?.lines.append(String(line))
                }
            } else if trimmed == "```swift" {
                open = (index + 2, [])
            }
        }
        return snippets
    }

    /// What the pages take for granted, declared before every block.
    static let prelude = """
        import Foundation
        import Roster

        struct Post: Record {
            var id: String
            var title: String
            var day: String
            var rank: Int
            var pinned: Bool
        }
        final class SomeDelegate: ResultsControllerDelegate {}

        """

    static let context = """
            let path = NSTemporaryDirectory() + "/roster-snippet.sqlite"
            let store = try Store.temporary()
            let queue = try StoreQueue.temporary()
            let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post"))
            let request = FetchRequest(entity: "Post")
            let myDelegate = SomeDelegate()
            _ = (path, store, queue, controller, request, myDelegate)
        """

    @Test(.enabled(if: Compiler.current != nil || Compiler.isCI, "needs swiftc and the build folder's modules (never skipped under CI=true)"))
    func everySwiftBlockOfTheReadmeAndDocsCompiles() throws {
        let compiler = try #require(Compiler.current, "swiftc or the built modules were not found")
        var snippets: [Snippet] = []
        for page in try Self.pages() { snippets += try Self.snippets(in: page) }
        #expect(snippets.count >= 10, "the README and Docs hold at least ten Swift blocks; found \(snippets.count)")

        var source = Self.prelude
        var origin: [Int: (page: String, line: Int)] = [:]  // line of the file → line of a page
        var line = source.split(separator: "\n", omittingEmptySubsequences: false).count
        for (number, snippet) in snippets.enumerated() {
            let head = "@MainActor func snippet\(number)() async throws {\n\(Self.context)\n    do {\n"
            source += head
            line += head.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            for (offset, text) in snippet.lines.enumerated() {
                let isImport = text.trimmingCharacters(in: .whitespaces).hasPrefix("import ")
                source += isImport ? "\n" : "        \(text)\n"
                origin[line] = (snippet.page, snippet.firstLine + offset)
                line += 1
            }
            source += "    }\n}\n\n"
            line += 3
        }
        let result = try compiler.compile(source, named: "Snippets")
        let errors = result.output.split(separator: "\n").filter { $0.contains(": error: ") }.map { error -> String in
            // "…/Snippets.swift:LINE:COLUMN: error: …" → "Docs/Page.md:LINE: error: …"
            let parts = error.split(separator: ":", maxSplits: 3)
            if parts.count == 4, let fileLine = Int(parts[1]), let place = origin[fileLine] {
                return "\(place.page):\(place.line):\(parts[3])"
            }
            return String(error)
        }
        #expect(result.status == 0 && errors.isEmpty, "\(errors.joined(separator: "\n"))")
    }

    @Test("the SQLite-only consumer app runs the README's program as it is there")
    func consumerAppHoldsTheReadmeProgram() throws {
        let readme = try Self.snippets(in: "README.md")
        let program = try #require(readme.first { $0.lines.first == "import Roster" }, "the README's Swift program")
        let body = program.lines.dropFirst().drop { $0.isEmpty }.joined(separator: "\n")
        let main = try String(contentsOf: Self.root.appendingPathComponent("Examples/Consumers/SQLiteApp/Sources/SQLiteApp/main.swift"), encoding: .utf8)
        #expect(main.contains(body), "Examples/Consumers/SQLiteApp/Sources/SQLiteApp/main.swift must hold the README's program (lines \(program.firstLine)…)")
    }

    /// The context as top-level code: each name a block does not declare itself.
    static func topLevelContext(for snippet: Snippet) -> String {
        let declared = snippet.lines.joined(separator: "\n")
        return context.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            guard line.hasPrefix("let "), let name = line.dropFirst(4).split(separator: " ").first else { return false }
            return !declared.contains("let \(name) =") && !declared.contains("var \(name) =")
        }.joined(separator: "\n")
    }

    /// What a new user wrote first (issue 36), top-level code that made Swift 6.3.1 abort
    /// with "Found ownership error?!" while Roster's public API threw `StoreError` by type.
    /// The compiler's bug, without Roster (crashes `swiftc -swift-version 6 main.swift`):
    ///
    /// ```swift
    /// struct E: Error { var message: String }
    /// func f() throws(E) -> [String: Int]? { ["a": 1] }
    /// var p1 = try f()!
    /// do { _ = try f() } catch let error as E { print(error) }
    /// print(p1)
    /// ```
    ///
    /// It needs typed throws of an error type that is not trivial, an `as` pattern (or a
    /// `~=` one, like `catch StoreError.Code.duplicateKey`) and a global; in a function it
    /// aborts too. Untyped `throws` does not: the public API throws `any Error`.
    static let firstProgram = """
        let store = try Store.temporary()
        try store.define(Entity("Post", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)]))
        try store.insert("Post", ["id": "p1", "title": "Hello"])
        var p1 = try store.fetch("Post", key: "p1")!
        do { try store.insert("Post", ["id": "p1", "title": "again"]) } catch let error as StoreError { print(error) }
        do { try store.insert("Post", ["id": "p1", "title": "again"]) } catch StoreError.Code.duplicateKey { print("there") }
        print(p1)
        """

    @Test(.enabled(if: Compiler.current != nil || Compiler.isCI, "needs swiftc and the build folder's modules (never skipped under CI=true)"))
    func everySwiftBlockCompilesAsTopLevelCodeWithoutWarnings() throws {
        let compiler = try #require(Compiler.current, "swiftc or the built modules were not found")
        let firstProgram = Snippet(page: "DocSnippetTests.firstProgram", firstLine: 1, lines: Self.firstProgram.split(separator: "\n").map(String.init))
        let snippets = try Self.pages().flatMap { page in try Self.snippets(in: page) } + [firstProgram]
        let postRecord = Self.prelude.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") && !$0.contains("SomeDelegate") }.joined(separator: "\n")
        let failures = Mutex<[String]>([])
        // Two compilers at a time: each is a separate program, and a machine has two cores.
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for snippet in snippets.enumerated().filter({ $0.offset % 2 == lane }).map(\.element) {
                let imports = snippet.lines.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
                let body = snippet.lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
                let declared = body.joined(separator: "\n")
                let head = (["import Foundation", "import Roster"] + imports).joined(separator: "\n") + "\n"
                    + (declared.contains("struct Post") ? "" : postRecord) + "\n"
                    + (declared.contains("class SomeDelegate") ? "" : "final class SomeDelegate: ResultsControllerDelegate {}") + "\n"
                    + Self.topLevelContext(for: snippet) + "\n"
                let source = head + body.joined(separator: "\n") + "\n"
                let firstBodyLine = head.split(separator: "\n", omittingEmptySubsequences: false).count
                do {
                    let result = try compiler.compile(source, named: "main", asTopLevelCode: true)
                    let problems = result.output.split(separator: "\n").filter { $0.contains(": error: ") || $0.contains(": warning: ") }.map { line -> String in
                        let parts = line.split(separator: ":", maxSplits: 3)
                        if parts.count == 4, let fileLine = Int(parts[1]), fileLine >= firstBodyLine {
                            return "\(snippet.page):\(snippet.firstLine + fileLine - firstBodyLine):\(parts[3])"
                        }
                        return "\(snippet.page):\(snippet.firstLine) (the context): \(line)"
                    }
                    if result.status != 0 || !problems.isEmpty {
                        failures.withLock { $0.append(problems.isEmpty ? "\(snippet.page):\(snippet.firstLine): status \(result.status)\n\(result.output.suffix(2_000))" : problems.joined(separator: "\n")) }
                    }
                } catch {
                    failures.withLock { $0.append("\(snippet.page):\(snippet.firstLine): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.joined(separator: "\n"))")
    }
}
