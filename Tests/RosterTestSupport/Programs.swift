import Foundation

/// Finds and runs the package's built executables (`roster`, the examples, the fuzz
/// targets), as a user would: what the command-line, example and reliability tests share.
public enum Programs {
    /// The built products folder: the test bundle sits in it, beside the executables.
    public static var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("roster").path) { return folder }
        }
        return bundle.deletingLastPathComponent()
    }

    /// The repository's root, for bundled data.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A process for one of the built executables, not yet started, its output discarded
    /// unless `output` is given (standard error too, unless `separateErrors`).
    public static func process(_ program: String, _ arguments: [String], output: Pipe? = nil, separateErrors: Bool = false) -> Process {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = separateErrors ? FileHandle.nullDevice : output ?? FileHandle.nullDevice
        return process
    }

    /// Runs a built program to its end; its status and everything it printed.
    public static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try run(executable: productsDirectory.appendingPathComponent(program), arguments)
    }

    /// Runs any executable (`/bin/mount`, `swiftc`) to its end, from the repository's root;
    /// its status and everything it printed on both streams. Waited for with `waitpid`
    /// (``ChildProcess``), not `Process`, whose wait can outlast the child.
    public static func run(executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run(executable.path, arguments, in: repository.path)
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }
}

/// One run of a built executable, with what it printed on each stream.
public struct ProgramRun {
    /// The exit status.
    public let status: Int32
    /// What it wrote to standard output.
    public let output: String
    /// What it wrote to standard error.
    public let error: String

    /// Runs `program` with `arguments` to its end, feeding it `input` on standard input
    /// (else /dev/null), from the repository's root.
    public init(program: String, arguments: [String], input: String? = nil) throws {
        let result = try ChildProcess.run(
            Programs.productsDirectory.appendingPathComponent(program).path, arguments, in: Programs.repository.path,
            input: input.map { Data($0.utf8) }, separateErrors: true)
        status = result.status
        output = String(decoding: result.output, as: UTF8.self)
        error = String(decoding: result.error, as: UTF8.self)
    }
}
