import Foundation
import Testing
import Roster
import RosterTestSupport
@testable import RosterScript

/// The fixture scripts on PostgreSQL (Docs/ScaleOut.md): each runs in a schema of its own
/// on the test server, and must print the trace it prints on SQLite.
///
/// - A script without raw SQL must print exactly the same trace.
/// - A script with raw SQL (`sql`, `external`) is in SQLite's dialect; its translation to
///   PostgreSQL's is in `Tests/Fixtures/postgres/` under the same name, and must print the
///   SQLite trace but for the text of error messages.
/// - The scripts that must differ are listed in ``mustDiffer``, with the reason; the
///   contract page says the same (Docs/ScriptFormat.md, "On PostgreSQL").
@Suite("Fixture traces on PostgreSQL")
struct PostgresFixtureTests {
    static let directory = FixtureTraceTests.directory
    static let translations = directory.appendingPathComponent("postgres")

    /// Fixtures that cannot run on PostgreSQL as written, and why.
    static let mustDiffer: [String: String] = [
        "invalid-utf8-text.jsonl": "PostgreSQL checks that every text value is valid UTF-8, so no client can store the bytes this script writes",
        "text-with-nul.jsonl": "PostgreSQL text holds no NUL, so its inserts are errors there (predicate-literal-with-nul.jsonl runs on both)",
    ]

    static func hasRawSQL(_ script: String) -> Bool {
        let text = (try? String(contentsOf: directory.appendingPathComponent(script), encoding: .utf8)) ?? ""
        return text.contains(#""op":"sql""#) || text.contains(#""op":"external""#)
    }

    static var portable: [String] { FixtureTraceTests.scripts.filter { !hasRawSQL($0) && mustDiffer[$0] == nil } }
    static var translated: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: translations.path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test func everyFixtureWithRawSQLIsTranslatedOrListedAsDiffering() {
        for script in FixtureTraceTests.scripts where Self.hasRawSQL(script) {
            #expect(Self.translated.contains(script) != (Self.mustDiffer[script] != nil),
                    "\(script) has raw SQL: translate it into Tests/Fixtures/postgres/, or list it in mustDiffer with the reason (one of the two)")
        }
        for script in Self.mustDiffer.keys {
            #expect(FixtureTraceTests.scripts.contains(script), "\(script) is listed as differing but is not a fixture")
            #expect(!Self.translated.contains(script), "\(script) is listed as differing and translated")
        }
        #expect(Self.portable.count >= 15)
    }

    @Test(.needsPostgreSQL, arguments: PostgresFixtureTests.portable)
    func portableScriptPrintsTheSameTrace(script: String) throws {
        guard let lines = try Self.run(Self.directory.appendingPathComponent(script)) else { return }
        try Self.compare(lines, with: script, ignoringErrorText: false)
    }

    @Test(.needsPostgreSQL, arguments: PostgresFixtureTests.translated)
    func translatedScriptPrintsTheSameTraceButForErrorText(script: String) throws {
        guard let lines = try Self.run(Self.translations.appendingPathComponent(script)) else { return }
        try Self.compare(lines, with: script, ignoringErrorText: true)
    }

    /// The bundled example scripts (the README runs the tour on both backends).
    static var examples: [String] {
        let folder = Programs.repository.appendingPathComponent("Examples/Scripts")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test(.needsPostgreSQL, arguments: PostgresFixtureTests.examples)
    func exampleScriptPrintsTheSameTraceOnBothBackends(script: String) throws {
        let url = Programs.repository.appendingPathComponent("Examples/Scripts/\(script)")
        guard let lines = try Self.run(url) else { return }
        var onSQLite: [String] = []
        ScriptRunner(store: try Store.temporary()).run(script: try String(contentsOf: url, encoding: .utf8)) { onSQLite.append($0.serialized()) }
        #expect(lines == onSQLite, "\(script): the first line that differs: \(zip(lines, onSQLite).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "the counts, \(lines.count) / \(onSQLite.count)")")
        #expect(Self.examples.count >= 4)
    }

    /// The trace of a script run in a new schema, or nil without a server (never under CI).
    static func run(_ url: URL) throws -> [String]? {
        guard let schema = try PostgresTestSchema.make() else { return nil }
        defer { schema.drop() }
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines: [String] = []
        do {
            let runner = ScriptRunner(store: try Store(postgresURL: schema.url))
            runner.run(script: text) { lines.append($0.serialized()) }
        }
        return lines
    }

    static func compare(_ lines: [String], with script: String, ignoringErrorText: Bool) throws {
        let traceURL = directory.appendingPathComponent(script.replacingOccurrences(of: ".jsonl", with: ".trace.jsonl"))
        let expected = try String(contentsOf: traceURL, encoding: .utf8).split(separator: "\n").map(String.init)
        func normalized(_ line: String) -> String {
            guard ignoringErrorText, line.contains(#""event":"error""#), let range = line.range(of: #""message":""#) else { return line }
            return String(line[..<range.upperBound]) + "…\"}"
        }
        for (index, pair) in zip(lines, expected).enumerated() where normalized(pair.0) != normalized(pair.1) {
            Issue.record("\(script) on PostgreSQL: trace line \(index + 1) differs\n  got:      \(pair.0)\n  expected: \(pair.1)")
            break
        }
        #expect(lines.count == expected.count, "\(script) on PostgreSQL: \(lines.count) trace lines, expected \(expected.count)")
    }
}
