import Foundation
import Roster
import RosterScript

/// Reads a script from a file or standard input.
enum ScriptSource {
    static func read(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ScriptReadError("cannot read script '\(path)': \((error as NSError).localizedDescription)")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScriptReadError("script '\(path)' is not UTF-8 text")
        }
        return text
    }
}

struct ScriptReadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Where `roster run` puts its store: a temporary file, or a new file at a given path.
enum StoreLocation {
    static func create(at path: String?) throws -> Store {
        guard let path else { return try Store.temporary() }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ScriptReadError("database '\(path)' already exists; roster run starts from a new store")
        }
        return try Store(path: path)
    }

    static func remove(_ store: Store, createdAt path: String?) {
        guard let path else { return }  // a temporary store removes itself
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

/// Buffers standard output so a long trace is written in large pieces.
struct OutputBuffer {
    private var buffer = Data()

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        FileHandle.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
