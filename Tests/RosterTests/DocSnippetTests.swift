import Foundation
import Testing

/// Every ```` ```swift ```` block of the README and the Docs pages compiles against the
/// built `Roster` module, so that the documentation cannot drift from the code.
///
/// All blocks go into one file, each in a function of its own, inside a `do` scope under
/// the context the pages take for granted (a `store`, a `queue`, a `controller`, a
/// `path`, a delegate, a `Post` record): a block may declare those names again. One
/// `swiftc` run type-checks them all; an error names the page and the line. `import` lines
/// are left to the file's head (which imports Foundation and Roster), and a block whose
/// first line is `// Package.swift` is a manifest and is left out.
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
                    if block.lines.first?.trimmingCharacters(in: .whitespaces) != "// Package.swift" {
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
}
