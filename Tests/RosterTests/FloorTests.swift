import Foundation
import Testing

/// The folders of `Sources/Roster` are floors (Docs/Architecture.md): a file uses the types
/// of its own floor and those below, never one declared on a floor above — so SQLite
/// never learns about the store, and the engine never learns which backend runs (it sits
/// below every backend and the store, on the storage seam). One
/// module cannot have the compiler enforce it; this test does, by reading the sources.
@Suite("Floors of the Roster module")
struct FloorTests {
    /// The floors from the ground up; folders on one floor may use each other.
    static let floors: [[String]] = [
        ["Values"],
        ["SQLite", "Postgres"],
        ["Schema"],
        ["Query"],
        ["Storage"],
        ["Engine"],
        ["SQLiteStorage", "PostgresStorage"],
        ["Store"],
        ["Results", "Live", "Records"],
        ["Observation"],
    ]

    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Roster")

    /// A file's code without its comments and string literals' contents, as identifiers.
    static func identifiers(in url: URL) throws -> Set<String> {
        let text = try String(contentsOf: url, encoding: .utf8)
        var code = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var kept = line
            if let comment = line.range(of: "//") { kept = line[..<comment.lowerBound] }
            code += kept + "\n"
        }
        // Drops what string literals say (messages name things in words).
        code = code.replacingOccurrences(of: #""(?:[^"\\\n]|\\.)*""#, with: "\"\"", options: .regularExpression)
        var names: Set<String> = []
        var current = ""
        for character in code {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
            } else {
                if !current.isEmpty { names.insert(current) }
                current = ""
            }
        }
        return names
    }

    /// The top-level types a file declares (`class`, `struct`, `enum`, `protocol`,
    /// `typealias`, `actor`); nested ones are named through their outer type.
    static func declaredTypes(in url: URL) throws -> Set<String> {
        let text = try String(contentsOf: url, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"^(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:class|struct|enum|protocol|typealias|actor)\s+([A-Za-z_][A-Za-z0-9_]*)"#, options: .anchorsMatchLines)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    static func files(in folder: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: sources.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    @Test func everyFolderIsOnAFloor() throws {
        let folders = try FileManager.default.contentsOfDirectory(at: Self.sources, includingPropertiesForKeys: [.isDirectoryKey])
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true && $0.pathExtension != "docc" }
            .map(\.lastPathComponent)
        #expect(Set(folders) == Set(Self.floors.joined()), "a folder of Sources/Roster is missing from the floors, or a floor names no folder")
    }

    @Test func noFileUsesATypeOfAFloorAboveIt() throws {
        var typesAbove: [Int: [String: String]] = [:]  // floor → type → folder declaring it
        var declared: [(floor: Int, type: String, folder: String)] = []
        for (floor, folders) in Self.floors.enumerated() {
            for folder in folders {
                for file in try Self.files(in: folder) {
                    for type in try Self.declaredTypes(in: file) { declared.append((floor, type, folder)) }
                }
            }
        }
        for floor in Self.floors.indices {
            typesAbove[floor] = Dictionary(declared.filter { $0.floor > floor }.map { ($0.type, $0.folder) }, uniquingKeysWith: { first, _ in first })
        }
        #expect(declared.contains { $0.type == "Store" } && declared.contains { $0.type == "Value" }, "the declarations were not found")
        var violations: [String] = []
        for (floor, folders) in Self.floors.enumerated() {
            let above = typesAbove[floor] ?? [:]
            for folder in folders {
                for file in try Self.files(in: folder) {
                    for name in try Self.identifiers(in: file).sorted() {
                        if let home = above[name] {
                            violations.append("\(folder)/\(file.lastPathComponent) uses \(name), declared in \(home)/ on a floor above")
                        }
                    }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }
}
