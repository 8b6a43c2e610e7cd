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
    /// Whether `location` names a PostgreSQL server rather than a file.
    static func isServer(_ location: String?) -> Bool {
        guard let location else { return false }
        return PostgresSchema.isURL(location)
    }

    /// Creates the store: at `path`, which must not exist yet, or in a new temporary folder;
    /// on a PostgreSQL URL, in a new schema `roster_<random>` of its own.
    ///
    /// - Parameter keep: whether the file (or schema) must outlive the run. A temporary store
    ///   removes its folder when it is released, so a kept one is an ordinary store in a
    ///   folder of its own.
    /// - Returns: the store, and the schema made for it on a server.
    static func create(at path: String?, keep: Bool) throws -> (store: Store, schema: String?) {
        if let path, isServer(path) {
            let schema = try PostgresSchema.create(at: path)
            do {
                return (try Store(postgresURL: schema.url), schema.name)
            } catch {
                try? PostgresSchema.drop(schema.name, at: path)
                throw error
            }
        }
        guard let path else {
            guard keep else { return (try Store.temporary(), nil) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return (try Store(path: directory.appendingPathComponent("store.sqlite").path), nil)
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ScriptReadError("database '\(path)' already exists; roster run starts from a new store")
        }
        return (try Store(path: path), nil)
    }

    /// Removes what ``create(at:keep:)`` made: the file, or the schema on the server.
    static func remove(_ store: Store, createdAt path: String?, schema: String?) {
        guard let path else { return }  // a temporary store removes itself
        // A script that ended inside a transaction: its writes are lost. On a server, the
        // open transaction would also hold the locks the schema's drop waits for, for ever.
        if store.isInTransaction { try? store.rollback() }
        if let schema {
            try? PostgresSchema.drop(schema, at: path)
            return
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
