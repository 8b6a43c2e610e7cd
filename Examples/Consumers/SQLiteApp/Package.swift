// swift-tools-version:6.1
// An app that adds Roster in one line and stores in SQLite: it builds without libpq's
// headers and without a libpq warning (.ci/run builds it with /usr/include/postgresql
// hidden). Its main.swift is the README's program, as top-level code.
import Foundation
import PackageDescription

// The repository's root, whatever its folder is called: a path dependency's package is
// named after its folder.
let roster = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "SQLiteApp",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(path: roster.path)],
    targets: [
        .executableTarget(name: "SQLiteApp", dependencies: [.product(name: "Roster", package: roster.lastPathComponent)]),
    ],
    swiftLanguageModes: [.v6]
)
