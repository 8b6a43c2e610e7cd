import Foundation

/// Runs one of the package's built executables, as a user would, and keeps its output.
struct ProgramRun {
    let status: Int32
    let output: String
    let error: String

    /// The built products folder: the test bundle sits in it, beside the executables.
    static var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("roster").path) { return folder }
        }
        return bundle.deletingLastPathComponent()
    }

    /// The repository's root, for bundled data.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(program: String, arguments: [String], input: String? = nil) throws {
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = Self.repository
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
