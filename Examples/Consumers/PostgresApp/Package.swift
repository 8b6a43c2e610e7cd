// swift-tools-version:6.1
// An app that uses Roster's PostgreSQL backend: the package trait PostgreSQL, which links
// libpq (Debian's libpq-dev). .ci/run runs it against its throwaway server.
import Foundation
import PackageDescription

// The repository's root, whatever its folder is called: a path dependency's package is
// named after its folder.
let roster = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "PostgresApp",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(path: roster.path, traits: ["PostgreSQL"])],
    targets: [
        .executableTarget(name: "PostgresApp", dependencies: [.product(name: "Roster", package: roster.lastPathComponent)]),
    ],
    swiftLanguageModes: [.v6]
)
