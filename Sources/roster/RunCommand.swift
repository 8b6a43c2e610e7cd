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
            The script and the trace are JSON Lines, as ../shared/spec/scripted-mutations.md \
            describes. Exit status: 0 when every line ran (error events included), 1 when the \
            script could not be read, 2 for bad flags.
            """
    )

    @Argument(help: "The script file, or - for standard input.")
    var script: String

    @Flag(help: "Print the trace for a person to read: spaced, with a blank line between script lines.")
    var pretty = false

    @Option(help: "Create the store at this path instead of a temporary file (it must not exist yet).")
    var database: String?

    @Flag(help: "Keep the database file after the run.")
    var keep = false

    @Flag(help: "Keep moves in batches as moveItems instead of splitting them into a delete and an insert.")
    var keepMoves = false

    func run() throws {
        let text: String
        do {
            text = try ScriptSource.read(script)
        } catch {
            FileHandle.standardError.write(Data("roster run: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let store: Store
        do {
            store = try StoreLocation.create(at: database)
        } catch {
            FileHandle.standardError.write(Data("roster run: \(error)\n".utf8))
            throw ExitCode(1)
        }
        defer { if !keep { StoreLocation.remove(store, createdAt: database) } }
        if keep { FileHandle.standardError.write(Data("roster run: database kept at \(store.path)\n".utf8)) }
        var output = OutputBuffer()
        let runner = ScriptRunner(store: store, keepsMoves: keepMoves)
        var format = TraceFormat()
        runner.run(script: text) { event in
            output.write(pretty ? format.readable(event) : event.serialized())
        }
        output.flush()
    }
}

/// `roster sql DATABASE SQL`: runs SQL on a database file in its own transaction, as
/// another process writing to a store's file would.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run SQL on a database file in one transaction (another process, as a store sees it)."
    )

    @Argument(help: "The database file.")
    var database: String

    @Argument(help: "The SQL to run.")
    var sql: String

    func run() throws {
        do {
            try ExternalConnection(path: database).execute(sql)
        } catch {
            FileHandle.standardError.write(Data("roster sql: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
