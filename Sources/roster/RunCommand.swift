import ArgumentParser
import Foundation
import Roster
import RosterScript

/// `roster run SCRIPT`: runs a mutation script and prints its trace as JSON Lines.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a mutation script against a new store and print the trace.",
        discussion: """
            The script and the trace are JSON Lines; both formats are specified in \
            Docs/ScriptFormat.md of the Roster repository. Exit status: 0 when every line ran \
            (error events included; with --strict, 3 when there was any), 1 when the script could \
            not be read or the store could not be created, 2 for bad flags.
            """
    )

    @Argument(help: "The script file, or - for standard input.")
    var script: String

    @Flag(help: "Print the trace for a person to read: each group under its line and query, changes as the examples print them (not JSON).")
    var pretty = false

    @Option(name: [.customLong("store"), .customLong("database")], help: "Create the store at this path instead of a temporary file (it must not exist yet), or on this PostgreSQL server (postgresql://…), in a new schema roster_<random> dropped at exit. --database is the same.")
    var store: String?

    @Flag(help: "Keep the database file (or the PostgreSQL schema) after the run.")
    var keep = false

    @Flag(help: "Keep moves in batches as moveItems instead of splitting them into a delete and an insert.")
    var keepMoves = false

    @Flag(help: "Exit with status 3 when the trace holds any error event.")
    var strict = false

    func run() throws {
        let text: String
        do {
            text = try ScriptSource.read(script)
        } catch {
            FileHandle.standardError.write(Data("roster run: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let store: Store
        let schema: String?
        do {
            (store, schema) = try StoreLocation.create(at: self.store, keep: keep)
        } catch {
            FileHandle.standardError.write(Data("roster run: \(error)\n".utf8))
            throw ExitCode(1)
        }
        defer { if !keep { StoreLocation.remove(store, createdAt: self.store, schema: schema) } }
        if keep {
            let place = schema.map { "schema \($0) of \(store.path)" } ?? store.path
            FileHandle.standardError.write(Data("roster run: database kept at \(place)\n".utf8))
        }
        let runner = ScriptRunner(store: store, keepsMoves: keepMoves)
        var format = TraceFormat()
        var sawError = false
        runner.run(script: text) { event in
            if event["event"]?.stringValue == "error" { sawError = true }
            // One write per line: a trace read while the script runs, or cut short by a
            // crash, holds every event made so far.
            let text = pretty ? format.readable(event) : event.serialized()
            if let text { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
        }
        if strict && sawError { throw ExitCode(3) }
    }
}

/// `roster sql DATABASE SQL` (or `roster sql --store DATABASE SQL`): runs SQL on a database
/// file in its own transaction, as another process writing to a store's file would.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run SQL on a store's database file or PostgreSQL schema in one transaction (another process, as a store sees it).",
        discussion: """
            roster sql DATABASE SQL and roster sql --store DATABASE SQL are the same (--database too). \
            DATABASE is a file, or a PostgreSQL URL (postgresql://user@host/db?options=-csearch_path%3Dschema; \
            a roster built with --traits PostgreSQL). The rows that the statements read are printed one a line, \
            values separated by |, NULL as nothing, as sqlite3 prints them (on PostgreSQL, the last statement's).
            """
    )

    @Option(name: [.customLong("store"), .customLong("database")], help: "The database file or PostgreSQL URL, instead of the first argument.")
    var store: String?

    @Argument(help: ArgumentHelp("The database file or PostgreSQL URL (left out when --store names it).", valueName: "database"))
    var first: String?

    @Argument(help: ArgumentHelp("The SQL to run.", valueName: "sql"))
    var second: String?

    /// The database file, from `--store` or the first argument.
    var database: String { store ?? first ?? "" }

    /// The SQL: the only argument with `--store`, the second without.
    var sql: String { (store == nil ? second : first) ?? "" }

    func validate() throws {
        if store != nil {
            guard first != nil, second == nil else {
                throw ValidationError("with --store, give the SQL as the only argument: roster sql --store DATABASE SQL")
            }
        } else {
            guard first != nil, second != nil else {
                throw ValidationError("give the database and the SQL: roster sql DATABASE SQL (or --store DATABASE SQL)")
            }
        }
    }

    func run() throws {
        // Opening a path that does not exist would make a new, empty database there and
        // report success for SQL that changed no store: a mistyped path must be an error.
        guard StoreLocation.isServer(database) || FileManager.default.fileExists(atPath: database) else {
            FileHandle.standardError.write(Data("roster sql: no database at '\(database)' (nothing was created)\n".utf8))
            throw ExitCode(1)
        }
        do {
            for row in try ExternalConnection(path: database).run(sql) {
                print(row.map { $0 ?? "" }.joined(separator: "|"))
            }
        } catch {
            FileHandle.standardError.write(Data("roster sql: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
