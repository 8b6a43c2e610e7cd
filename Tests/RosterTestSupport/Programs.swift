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
        try run(process(program, arguments))
    }

    /// Runs any executable (`/bin/mount`, `swiftc`) to its end, from the repository's root;
    /// its status and everything it printed on both streams.
    public static func run(executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardInput = FileHandle.nullDevice
        return try run(process)
    }

    /// Starts `process` with both its streams into one pipe, and waits for its end.
    private static func run(_ process: Process) throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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

    /// Runs `program` with `arguments` to its end, feeding it `input` on standard input.
    public init(program: String, arguments: [String], input: String? = nil) throws {
        let process = Process()
        process.executableURL = Programs.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = Programs.repository
        let output = Pipe()
        let error = Pipe()
        let inputPipe = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inputPipe.fileHandleForWriting.close()
        // Read both pipes while the program runs, so a full pipe cannot block it.
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { Thread.sleep(forTimeInterval: 0.001) }
        status = process.terminationStatus
        self.output = String(decoding: outputData, as: UTF8.self)
        self.error = String(decoding: errorData.data, as: UTF8.self)
    }
}

/// Data handed from a reading thread.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Data?
    func set(_ data: Data) { lock.lock(); value = data; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value != nil }
    var data: Data { lock.lock(); defer { lock.unlock() }; return value ?? Data() }
}
