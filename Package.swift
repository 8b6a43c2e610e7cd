// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Roster",
    // Synchronization.Mutex (StoreQueue, LiveResults) needs these on Apple's systems.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Roster", targets: ["Roster"]),
        .library(name: "RosterUpdates", targets: ["RosterUpdates"]),
        .executable(name: "roster", targets: ["roster"]),
    ],
    // The PostgreSQL backend (Docs/ScaleOut.md), off unless asked for: an app that stores in
    // SQLite builds without libpq. `swift build --traits PostgreSQL`, or in an app's manifest
    // `.package(url: …, from: …, traits: ["PostgreSQL"])` (Docs/Architecture.md says why a trait).
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL backend: Store(postgresURL:), through libpq (Debian's libpq-dev)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` (Docs: DocC); a plugin, never linked. Exact, so
        // that a newer plugin's new warnings cannot fail CI's --warnings-as-errors unannounced.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq: the PostgreSQL backend's client (Docs/ScaleOut.md), with the PostgreSQL trait
        // only. No pkgConfig: SwiftPM warns about a missing .pc file for every system library in
        // the package, used or not; the shim finds the header where Debian and Homebrew put it.
        .systemLibrary(name: "CLibPQ"),
        // The preupdate hook that logs the store's own writes per transaction: C, because it
        // runs for every row a statement changes (Docs/Architecture.md).
        .target(name: "CRosterCapture", dependencies: ["CSQLite"]),
        // Unicode case and diacritic folding for [c], [d] and [cd], with the SQL function that
        // gives SQLite the same folding: C, because SQLite calls it for every row it reads.
        .target(name: "CRosterText", dependencies: ["CSQLite"]),
        .target(name: "RosterUpdates"),
        // A strict JSON parser and writer that keeps integers apart from other numbers and
        // members in order: the script format's and the trace's, and a resume token's head
        // (Docs/Architecture.md says why not Foundation's). Its API is `package`.
        .target(name: "RosterJSON"),
        .target(
            name: "Roster",
            dependencies: [
                "CSQLite", "CRosterCapture", "CRosterText", "RosterUpdates", "RosterJSON",
                .target(name: "CLibPQ", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .target(name: "RosterScript", dependencies: ["Roster", "RosterUpdates", "RosterJSON"]),
        // The allocator's bytes in use, for the `memory` scenario (`malloc.h` is not in Glibc's
        // module), and the floor hook of the `writes` scenario (SQLite's preupdate interfaces).
        .target(name: "CRosterBenchmarkSupport", dependencies: ["CSQLite"]),
        .target(name: "RosterBenchmarks", dependencies: ["Roster", "RosterUpdates", "CSQLite", "CRosterBenchmarkSupport"]),
        .executableTarget(
            name: "roster",
            dependencies: [
                "RosterScript",
                "RosterJSON",
                "RosterBenchmarks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "RosterExampleSupport", dependencies: ["Roster"], path: "Examples/Support"),
        .executableTarget(
            name: "AddressBook",
            dependencies: ["Roster", "RosterExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/AddressBook"
        ),
        .executableTarget(
            name: "Board",
            dependencies: ["Roster", "RosterExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Board"
        ),
        .executableTarget(
            name: "FeedReader",
            dependencies: ["Roster", "RosterExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/FeedReader",
            exclude: ["Feeds"]
        ),
        .executableTarget(name: "ContentLoading", dependencies: ["RosterUpdates"], path: "Examples/ContentLoading"),
        // A terminal list drawn as SwiftUI draws a view over ObservedResults (Docs/SwiftUI.md).
        .executableTarget(name: "LiveList", dependencies: ["Roster"], path: "Examples/LiveList"),
        // Tests, a target per subject; RosterTestSupport holds what several share (the
        // seeded generator, the move oracle, the change recorder, running the executables).
        .target(name: "RosterTestSupport", dependencies: ["Roster", "RosterUpdates"], path: "Tests/RosterTestSupport"),
        .testTarget(name: "RosterUpdatesTests", dependencies: ["RosterUpdates", "RosterTestSupport"]),
        .testTarget(name: "RosterTests", dependencies: ["Roster", "RosterUpdates", "RosterTestSupport"]),
        .testTarget(name: "FeedReaderTests", dependencies: ["FeedReader"]),
        // The script runner and its JSON, the contract page, the fixtures.
        .testTarget(name: "RosterScriptTests", dependencies: ["RosterScript", "RosterJSON", "Roster", "RosterUpdates", "RosterTestSupport", "roster"]),
        // `roster` as a user runs it: run, sql, watch, bench, --version.
        .testTarget(name: "CommandLineTests", dependencies: ["Roster", "RosterScript", "RosterJSON", "RosterTestSupport", "roster"]),
        // The example programs, run as a user runs them.
        .testTarget(name: "ExampleTests", dependencies: ["Roster", "RosterTestSupport", "AddressBook", "Board", "ContentLoading", "FeedReader", "LiveList"]),
        // Fuzz targets (Docs/Reliability.md): built with libFuzzer by Fuzz/fuzz.sh; in the
        // ordinary build each replays its corpus in Tests/Fuzz/Corpus once.
        .target(name: "CRosterFuzz", path: "Fuzz/CDriver"),
        .target(name: "RosterFuzzSupport", dependencies: ["CRosterFuzz"], path: "Fuzz/Support"),
        .executableTarget(name: "PredicateFuzzer", dependencies: ["Roster", "CSQLite", "CRosterText", "RosterFuzzSupport"], path: "Fuzz/PredicateFuzzer"),
        .executableTarget(name: "JSONFuzzer", dependencies: ["RosterJSON", "RosterFuzzSupport"], path: "Fuzz/JSONFuzzer"),
        .executableTarget(name: "ScriptFuzzer", dependencies: ["Roster", "RosterScript", "RosterJSON", "RosterFuzzSupport"], path: "Fuzz/ScriptFuzzer"),
        .testTarget(
            name: "RosterReliabilityTests",
            dependencies: ["Roster", "RosterScript", "RosterJSON", "RosterTestSupport", "CSQLite", "roster", "PredicateFuzzer", "JSONFuzzer", "ScriptFuzzer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
