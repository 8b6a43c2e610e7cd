import Foundation

/// Finds and runs the package's built executables (`roster`, the fuzz targets).
enum Programs {
    /// The built products folder: the test bundle sits in it, beside the executables.
    static var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("roster").path) { return folder }
        }
        return bundle.deletingLastPathComponent()
    }

    /// The repository's root.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A process for one of the built executables, not yet started, its output discarded
    /// unless `output` is given (standard error too, unless `separateErrors`).
    static func process(_ program: String, _ arguments: [String], output: Pipe? = nil, separateErrors: Bool = false) -> Process {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = separateErrors ? FileHandle.nullDevice : output ?? FileHandle.nullDevice
        return process
    }

    /// Runs a program to its end; its status and everything it printed.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        let process = process(program, arguments, output: pipe)
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
