import ArgumentParser
import Foundation

// ArgumentParser exits with 64 for usage errors; the spec asks for 2.
do {
    var command = try RosterCommand.parseAsRoot()
    try command.run()
} catch {
    let code = RosterCommand.exitCode(for: error)
    if code == .validationFailure {
        FileHandle.standardError.write(Data((RosterCommand.fullMessage(for: error) + "\n").utf8))
        exit(2)
    }
    RosterCommand.exit(withError: error)
}
