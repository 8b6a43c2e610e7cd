import Foundation
import Testing
import Roster
@testable import RosterScript
import RosterTestSupport

/// Keeps `Docs/ScriptFormat.md`, the specification of `roster run`'s scripts and traces,
/// true to the code: its example script must print exactly its example trace, it must
/// document every op the runner accepts, and `roster run --help` must point at it.
@Suite("Script format page")
struct ScriptFormatDocTests {
    /// The page, found from this file's place in the repository.
    static let pageURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs").appendingPathComponent("ScriptFormat.md")

    /// The page's path as the help text and the README name it.
    static let pagePath = "Docs/ScriptFormat.md"

    /// Every op the runner carries out; `runnerAcceptsExactlyTheListedOps` ties this list
    /// to the runner, so a new op fails the tests until it is listed here and documented.
    static let ops = [
        "entity", "query", "insert", "update", "delete", "sql", "external",
        "begin", "commit", "rollback", "sort", "filter", "window", "token", "resume", "count",
    ]

    /// The page's text.
    static func page() throws -> String {
        try String(contentsOf: pageURL, encoding: .utf8)
    }

    /// The lines of every fenced code block (```` ``` ````) whose info string is exactly
    /// `info`, in the order they appear; the fence lines themselves are left out.
    static func fencedBlocks(withInfo info: String, in text: String) -> [[String]] {
        var blocks: [[String]] = []
        var open: (info: String, lines: [String])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    if block.info == info { blocks.append(block.lines) }
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                open = (String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
            }
        }
        return blocks
    }

    /// The op names that the runner's error for an unknown op lists as the ones it expects.
    static func opsNamedByTheRunner() throws -> [String] {
        let runner = ScriptRunner(store: try Store.temporary())
        let events = runner.run(line: #"{"op":"no-such-op"}"#, number: 1)
        let message = try #require(events.first?["message"]?.stringValue)
        let marker = "expected "
        let list = try #require(message.range(of: marker).map { message[$0.upperBound...] }, "\(message)")
        return list.replacingOccurrences(of: " or ", with: ", ").components(separatedBy: ", ")
    }

    @Test func thePageHasExactlyOneExampleScriptAndOneExampleTrace() throws {
        let text = try Self.page()
        let scripts = Self.fencedBlocks(withInfo: "jsonl script", in: text)
        let traces = Self.fencedBlocks(withInfo: "jsonl trace", in: text)
        #expect(scripts.count == 1, "\(scripts.count) blocks marked `jsonl script`, expected 1")
        #expect(traces.count == 1, "\(traces.count) blocks marked `jsonl trace`, expected 1")
        #expect(scripts.first.map { !$0.isEmpty } == true, "the example script is empty")
        #expect(traces.first.map { !$0.isEmpty } == true, "the example trace is empty")
    }

    @Test func theExampleScriptPrintsExactlyTheExampleTrace() throws {
        let text = try Self.page()
        let script = try #require(Self.fencedBlocks(withInfo: "jsonl script", in: text).first)
        let expected = try #require(Self.fencedBlocks(withInfo: "jsonl trace", in: text).first)
        let runner = ScriptRunner(store: try Store.temporary())
        var lines: [String] = []
        runner.run(script: script.joined(separator: "\n")) { lines.append($0.serialized()) }
        for (index, pair) in zip(lines, expected).enumerated() where pair.0 != pair.1 {
            Issue.record("\(Self.pagePath): trace line \(index + 1) differs\n  got:      \(pair.0)\n  expected: \(pair.1)")
            break
        }
        #expect(lines.count == expected.count, "\(lines.count) trace lines, the page shows \(expected.count)")
    }

    @Test func crLfLineEndsRunLikeLineFeeds() throws {
        let script = try #require(Self.fencedBlocks(withInfo: "jsonl script", in: try Self.page()).first)
        var traces: [[String]] = []
        for separator in ["\n", "\r\n"] {
            let runner = ScriptRunner(store: try Store.temporary())
            var lines: [String] = []
            runner.run(script: script.joined(separator: separator) + separator) { lines.append($0.serialized()) }
            traces.append(lines)
        }
        #expect(traces[0].count > 10)
        #expect(traces[1] == traces[0])
    }

    @Test func jsonErrorColumnsCountFromTheStartOfTheLine() throws {
        let runner = ScriptRunner(store: try Store.temporary())
        let indented = runner.run(line: #"    {"op":"begin",}"#, number: 1)
        let flush = runner.run(line: #"{"op":"begin",}"#, number: 2)
        let indentedMessage = try #require(indented.first?["message"]?.stringValue)
        let flushMessage = try #require(flush.first?["message"]?.stringValue)
        #expect(flushMessage.contains("column 14"), "\(flushMessage)")
        #expect(indentedMessage.contains("column 18"), "\(indentedMessage)")
    }

    @Test func runnerAcceptsExactlyTheListedOps() throws {
        #expect(try Set(Self.opsNamedByTheRunner()) == Set(Self.ops))
        for op in Self.ops {
            let runner = ScriptRunner(store: try Store.temporary())
            let events = runner.run(line: Substring(#"{"op":"\#(op)"}"#), number: 1)
            let message = events.first?["message"]?.stringValue ?? ""
            #expect(!message.hasPrefix("unknown op"), "the runner does not know op '\(op)': \(message)")
        }
    }

    @Test func thePageDocumentsEveryOp() throws {
        let text = try Self.page()
        let undocumented = Self.ops.filter { !text.contains(#""op":"\#($0)""#) }
        #expect(undocumented.isEmpty, "\(Self.pagePath) documents no \(undocumented.map { #""op":"\#($0)""# }.joined(separator: ", "))")
    }

    @Test func runHelpPointsAtThePage() throws {
        let result = try ProgramRun(program: "roster", arguments: ["run", "--help"])
        #expect(result.status == 0)
        // The help text is wrapped to the terminal's width; the path has no spaces to break at.
        let words = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains(Self.pagePath), "roster run --help does not mention \(Self.pagePath)")
        #expect(FileManager.default.fileExists(atPath: Self.pageURL.path))
    }
}
