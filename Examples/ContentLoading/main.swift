// ContentLoading: a simulated photo list whose thumbnails load in the background while the
// list scrolls and its data changes. ContentLoader hands each thumbnail to the row that shows
// its photo when it arrives; the program checks every delivery and exits 1 if one went wrong.

import Foundation
import RosterUpdates
import Synchronization

let usage = """
    usage: ContentLoading [--seed N] [--rows N] [--naive] [--help]

    Simulates a list of 200 photos in days of 20, a viewport that scrolls, thumbnail loads of a
    few milliseconds (at most 3 at once), and changes during loading: photos inserted above the
    viewport, a loading photo moved, a loading photo deleted, a photo updated. Prints what the
    loader does and checks that every thumbnail landed on the row showing its photo, at its
    current version, and that no cancelled or deleted load delivered. Exit status 1 if not.

    options:
      --seed N   seed of the scroll, the changes and the load times (default 1)
      --rows N   rows in the viewport, 1...40 (default 8)
      --naive    paint each thumbnail on the row where its load started, the classic bug
                 that ContentLoader exists to prevent, to watch the check fail
      --help     show this help
    """

/// The command line: `--seed N`, `--rows N`, `--help`.
struct Options {
    var seed: UInt64 = 1
    var rows = 8
    var naive = false

    init(_ arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                throw UsageError(message: nil)
            case "--naive":
                naive = true
            case "--seed":
                guard let value = remaining.popFirst().flatMap(UInt64.init) else {
                    throw UsageError(message: "--seed needs a non-negative integer")
                }
                seed = value
            case "--rows":
                guard let value = remaining.popFirst().flatMap(Int.init), (1...40).contains(value) else {
                    throw UsageError(message: "--rows needs an integer from 1 to 40")
                }
                rows = value
            default:
                throw UsageError(message: "unknown argument \(argument)")
            }
        }
    }
}

/// A bad command line, or a request for help (no message).
struct UsageError: Error {
    var message: String?
}

/// A small deterministic random number generator (SplitMix64), so a seed repeats its run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// A rendered thumbnail: which photo, at which version of the photo.
struct Thumbnail: Sendable {
    var photo: Int
    var version: Int
}

/// The photos' versions and the slow renderer; shared by the main actor and the loads.
final class PhotoStore: Sendable {
    private let versions = Mutex<[Int: Int]>([:])
    private let seed: UInt64

    init(seed: UInt64) { self.seed = seed }

    func version(of photo: Int) -> Int {
        versions.withLock { $0[photo, default: 0] }
    }

    func bumpVersion(of photo: Int) {
        versions.withLock { $0[photo, default: 0] += 1 }
    }

    /// Renders a thumbnail in 2 to 13 ms (fixed per photo by the seed); cancellable.
    func render(_ photo: Int) async throws -> Thumbnail {
        let version = version(of: photo)
        var random = SplitMix64(seed: seed ^ UInt64(photo) &* 0x9E37_79B9)
        try await Task.sleep(for: .milliseconds(2 + Int(random.next() % 12)))
        return Thumbnail(photo: photo, version: version)
    }
}

/// The simulated screen: the list, its viewport, the loader, and the checks of each delivery.
@MainActor
final class Simulation {
    let options: Options
    let store: PhotoStore
    let loader: ContentLoader<Int, Thumbnail>
    var random: SplitMix64
    var layout: [ListSection<String, Int>]
    /// The flat index of the viewport's top row.
    var top = 0
    var tick = 0
    var nextPhoto = 200
    var deleted = Set<Int>()
    /// Photos whose last start or cancellation was a cancellation.
    var cancelled = Set<Int>()
    var startedAt: [Int: IndexPath] = [:]
    var counts = (started: 0, cancelled: 0, delivered: 0, discarded: 0, failed: 0)
    var violations: [String] = []

    init(_ options: Options) {
        self.options = options
        let store = PhotoStore(seed: options.seed)
        self.store = store
        random = SplitMix64(seed: options.seed)
        layout = (0..<10).map { day in ListSection(id: "day \(day + 1)", items: Array(day * 20..<(day + 1) * 20)) }
        loader = ContentLoader(maxConcurrentLoads: 3, cacheCapacity: max(32, 2 * options.rows)) { photo in
            try await store.render(photo)
        }
        loader.onActivity = { [unowned self] in record($0) }
        loader.onLoaded = { [unowned self] in delivered($0, $1, at: $2) }
        loader.onFailed = { [unowned self] photo, error, path in
            counts.failed += 1
            log("fail     photo \(photo) at \(text(path)): \(error)")
        }
        loader.setLayout(layout)
    }

    // MARK: The list

    var rowCount: Int { layout.reduce(0) { $0 + $1.items.count } }

    func path(ofRow row: Int) -> IndexPath {
        var rest = row
        for (index, section) in layout.enumerated() {
            if rest < section.items.count { return IndexPath(item: rest, section: index) }
            rest -= section.items.count
        }
        preconditionFailure("row \(row) is past the end")
    }

    func row(of path: IndexPath) -> Int {
        layout[..<path.section].reduce(0) { $0 + $1.items.count } + path.item
    }

    func photoShown(at path: IndexPath) -> Int? {
        layout.indices.contains(path.section) && layout[path.section].items.indices.contains(path.item)
            ? layout[path.section].items[path.item] : nil
    }

    var viewport: [IndexPath] {
        (top..<min(top + options.rows, rowCount)).map(path(ofRow:))
    }

    func text(_ path: IndexPath) -> String { "[\(path.section),\(path.item)]" }

    func log(_ line: String) {
        print(String(format: "t%02d  ", tick) + line)
    }

    // MARK: What the loader reports

    func record(_ activity: ContentLoader<Int, Thumbnail>.Activity) {
        switch activity {
        case .started(let photo):
            counts.started += 1
            cancelled.remove(photo)
            startedAt[photo] = loader.indexPath(of: photo)
            log("start    photo \(photo) for \(startedAt[photo].map(text) ?? "?")")
        case .cancelled(let photo, let reason):
            counts.cancelled += 1
            cancelled.insert(photo)
            log("cancel   photo \(photo) (\(describe(reason)))")
        case .discarded(let photo):
            counts.discarded += 1
            log("discard  photo \(photo): a cancelled load returned; nothing delivered")
        case .delivered, .failed:
            break
        }
    }

    func describe(_ reason: ContentLoader<Int, Thumbnail>.CancellationReason) -> String {
        switch reason {
        case .scrolledAway: "scrolled away"
        case .deleted: "deleted"
        case .invalidated: "updated; reloads"
        }
    }

    func delivered(_ photo: Int, _ thumbnail: Thumbnail, at currentPath: IndexPath) {
        counts.delivered += 1
        let path = options.naive ? startedAt[photo] ?? currentPath : currentPath
        let from = startedAt[photo].flatMap { $0 == path ? nil : " (started at \(text($0)))" } ?? ""
        log("deliver  photo \(photo) v\(thumbnail.version) -> \(text(path))\(from)")
        if photoShown(at: path) != photo {
            violations.append("photo \(photo) delivered to \(text(path)), which shows \(photoShown(at: path).map(String.init) ?? "nothing")")
        }
        if !viewport.contains(path) { violations.append("photo \(photo) delivered to \(text(path)), off screen") }
        if thumbnail.photo != photo { violations.append("photo \(photo) got the thumbnail of photo \(thumbnail.photo)") }
        if thumbnail.version != store.version(of: photo) { violations.append("photo \(photo) got stale version \(thumbnail.version)") }
        if cancelled.contains(photo) { violations.append("photo \(photo) delivered after its load was cancelled") }
        if deleted.contains(photo) { violations.append("deleted photo \(photo) delivered") }
    }

    // MARK: The run

    func run() async -> Bool {
        print("\(rowCount) photos in \(layout.count) days, \(options.rows) rows on screen, seed \(options.seed)")
        scroll(by: 0)
        let plan = [10, 16, 22, 28].map { $0 + Int.random(in: -1...1, using: &random) }
        var changes: [() -> Bool] = [insertAboveViewport, moveLoadingPhoto, deleteLoadingPhoto, updateVisiblePhoto]
        for tickNumber in 1...40 {
            tick = tickNumber
            if tickNumber % 3 == 0 {
                scroll(by: Int.random(in: 0..<8, using: &random) == 0 ? -3 : Int.random(in: 1...5, using: &random))
            }
            if let next = plan.dropFirst(4 - changes.count).first, tickNumber >= next, changes.first?() == true {
                changes.removeFirst()
            }
            loader._checkInvariants()
            try? await Task.sleep(for: .milliseconds(3))
        }
        tick += 1
        log("scrolling stops; waiting for the loads under way")
        for _ in 0..<400 where counts.started > counts.delivered + counts.discarded + counts.failed {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if counts.started != counts.delivered + counts.discarded + counts.failed {
            violations.append("\(counts.started - counts.delivered - counts.discarded - counts.failed) loads never returned")
        }
        if !changes.isEmpty { violations.append("\(changes.count) planned changes found no photo to change") }
        print("""
            summary: \(counts.started) loads started, \(counts.delivered) delivered, \(counts.cancelled) cancelled, \
            \(counts.discarded) discarded, \(counts.failed) failed
            """)
        guard violations.isEmpty else {
            for violation in violations { print("FAIL: \(violation)") }
            return false
        }
        print("""
            verified: every delivery landed on the row showing that photo at that moment, at its current \
            version; no cancelled or deleted load delivered
            """)
        return true
    }

    func scroll(by rows: Int) {
        top = max(0, min(top + rows, rowCount - options.rows))
        let visible = viewport
        log("scroll   rows \(text(visible.first!))…\(text(visible.last!)) show photos \(visible.compactMap(photoShown(at:)).map(String.init).joined(separator: " "))")
        loader.setVisible(visible)
    }

    /// Applies a new layout, moving the viewport by `shift` rows so that it keeps its photos.
    func change(to newLayout: [ListSection<String, Int>], updating updated: Int? = nil, shift: Int = 0) {
        let group = SnapshotDiff.changes(from: layout, to: newLayout) { $0 == updated }
        layout = newLayout
        top = max(0, min(top + shift, rowCount - options.rows))
        loader.apply(group, newLayout: newLayout, visible: viewport)
    }

    /// Three new photos above the top row; the viewport follows, so loads under way land lower.
    func insertAboveViewport() -> Bool {
        let at = path(ofRow: top)
        var newLayout = layout
        let photos = Array(nextPhoto..<nextPhoto + 3)
        nextPhoto += 3
        newLayout[at.section].items.insert(contentsOf: photos, at: at.item)
        log("change   insert photos \(photos.map(String.init).joined(separator: " ")) at \(text(at)), above the viewport, which follows")
        change(to: newLayout, shift: 3)
        return true
    }

    /// The topmost loading photo moves to the bottom row of the viewport.
    func moveLoadingPhoto() -> Bool {
        guard let photo = loadingPhoto(), let from = loader.indexPath(of: photo) else { return false }
        var newLayout = layout
        newLayout[from.section].items.remove(at: from.item)
        let rows = newLayout.reduce(0) { $0 + $1.items.count }
        var target = min(top + options.rows - 1, rows)
        for (index, section) in newLayout.enumerated() {
            if target <= section.items.count {
                newLayout[index].items.insert(photo, at: target)
                break
            }
            target -= section.items.count
        }
        newLayout.removeAll { $0.items.isEmpty }
        log("change   move loading photo \(photo) from \(text(from)) to the bottom row")
        change(to: newLayout)
        return true
    }

    /// The topmost loading photo is deleted.
    func deleteLoadingPhoto() -> Bool {
        guard let photo = loadingPhoto(), let from = loader.indexPath(of: photo) else { return false }
        var newLayout = layout
        newLayout[from.section].items.remove(at: from.item)
        newLayout.removeAll { $0.items.isEmpty }
        deleted.insert(photo)
        log("change   delete loading photo \(photo) at \(text(from))")
        change(to: newLayout)
        return true
    }

    /// A visible photo, already loaded if one is, gets a new version.
    func updateVisiblePhoto() -> Bool {
        let visible = loader.visibleIDs
        guard let photo = visible.first(where: { loader.content(for: $0) != nil }) ?? visible.first else { return false }
        store.bumpVersion(of: photo)
        log("change   update photo \(photo) to v\(store.version(of: photo))\(loader.content(for: photo) != nil ? ", whose thumbnail is cached" : "")")
        change(to: layout, updating: photo)
        return true
    }

    func loadingPhoto() -> Int? {
        loader.visibleIDs.first(where: loader.loadingIDs.contains)
    }
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message {
        FileHandle.standardError.write(Data("error: \(message)\n\n\(usage)\n".utf8))
        exit(2)
    }
    print(usage)
    exit(0)
}
let passed = await Simulation(options).run()
exit(passed ? 0 : 1)
