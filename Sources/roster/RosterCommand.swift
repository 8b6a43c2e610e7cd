import ArgumentParser
import Roster

/// The `roster` command: runs mutation scripts against a fresh store and prints the trace.
struct RosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster",
        abstract: "Roster: live queries over SQLite that say exactly what changed.",
        version: RosterRelease.version,
        subcommands: [RunCommand.self, SQLCommand.self, WatchCommand.self, BenchCommand.self, BenchWriterCommand.self]
    )
}
