import Foundation
import Roster
import RosterExampleSupport

/// A note of one client of a shared board: `ready-NAME` when it watches, `NAME-n` for its
/// *n*th move. The clients count them to wait for each other.
struct Move: Record {
    var id: String
    var client: String
}

/// `Board --shared URL`: one client of a board kept on a PostgreSQL server. Several run at
/// once, as separate processes (or on separate machines); each moves cards and prints every
/// batch it hears, its own moves' and the others' alike, as a list view would receive them.
struct SharedBoard {
    let url: String
    let client: String
    let clients: Int
    let moves: Int
    let keepMoves: Bool

    static let columns: [(String, [String])] = [
        ("a-backlog", ["Search", "Dark mode", "Offline sync", "Widgets"]),
        ("b-doing", ["Sign in", "Settings", "Push alerts"]),
        ("c-review", ["Onboarding", "Crash fix"]),
        ("d-testing", ["Icons", "Fonts", "Colors"]),
    ]

    /// Defines the board's entities and puts its cards on it, unless another client did.
    static func seed(url: String) throws {
        let queue = try StoreQueue(postgresURL: url)
        try queue.read { store in
            try store.define(Card.self)
            try store.define(Move.self)
        }
        try queue.write { store in
            guard try store.fetch(Card.self, key: "k01") == nil else { return }
            var number = 0
            for (column, titles) in columns {
                for (position, title) in titles.enumerated() {
                    number += 1
                    try store.insert(Card(id: String(format: "k%02d", number), title: title, column: column, position: position))
                }
            }
        }
        print("seeded the board: \(columns.reduce(0) { $0 + $1.1.count }) cards in \(columns.count) columns")
    }

    func run() throws {
        let queue = try StoreQueue(postgresURL: url)
        try queue.read { store in
            try store.define(Card.self)
            try store.define(Move.self)
        }
        let board = try LiveResults(queue: queue, request: FetchRequest(
            Card.self, sortedBy: [.ascending(\.column), .ascending(\.position)], sectionedBy: \.column),
            adapter: BatchAdapter(keepsMoves: keepMoves))
        let ready = try LiveResults(queue: queue, request: FetchRequest(entity: "Move", predicate: QueryPredicate("id BEGINSWITH 'ready-'")))
        let done = try LiveResults(queue: queue, request: FetchRequest(entity: "Move", predicate: QueryPredicate("NOT (id BEGINSWITH 'ready-')")))
        // Wakes on every commit of every client (LISTEN/NOTIFY), with a poll each 0.5 s.
        queue.startWatching(safetyPoll: .milliseconds(500))
        defer { queue.stopWatching() }
        print("[\(client)] watching \(board.fetchedObjects.count) cards")
        let client = self.client
        try queue.write { store in try store.insert(Move(id: "ready-\(client)", client: client)) }
        // Every client watches before anyone moves, so that each hears all the others' moves.
        try wait(until: { ready.fetchedObjects.count >= clients }, draining: ready, printing: board)

        // Each client moves cards of its own choosing: the same client name, the same moves.
        var random = client.utf8.reduce(UInt64(1_469_598_103_934_665_603)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        for number in 0..<moves {
            let key = String(format: "k%02d", 1 + next(12))
            let column = Self.columns[next(Self.columns.count)].0
            let position = next(5) * 10 + number
            try queue.write { store in  // one transaction
                guard var card = try store.fetch(Card.self, key: key) else { return }
                card.column = column
                card.position = position
                try store.update(card)
                try store.insert(Move(id: "\(client)-\(number)", client: client))
            }
            print("[\(client)] moved \(key) to \(column)")
            try printHeard(board)
            Thread.sleep(forTimeInterval: 0.05)
        }
        // Until every client's moves are in, print what arrives.
        try wait(until: { done.fetchedObjects.count >= clients * moves && !board.hasPendingChanges }, draining: done, printing: board)
        try printHeard(board)
        print("[\(client)] final board:")
        for section in board.snapshot.sections {
            let keys = section.items.map { "\($0)" }.joined(separator: " ")
            print("  \(section.id): \(keys)")
        }
    }

    /// Prints what the board hears until `condition` holds (at most 30 s), taking the
    /// changes of `counter` so that its results move on.
    private func wait(until condition: () -> Bool, draining counter: LiveResults, printing board: LiveResults) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            try printHeard(board)
            while try counter.takeChange() != nil {}
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        print("[\(client)] gave up waiting for the other clients after 30 s")
    }

    /// Prints each change waiting for the board, as callbacks beside the batch.
    private func printHeard(_ board: LiveResults) throws {
        while let change = try board.takeChange() {
            let title = "[\(client)] heard \(change.commitCount) commit\(change.commitCount == 1 ? "" : "s")"
            print(ChangeLog.sideBySide(title, change.group, change.batch), terminator: "")
            try change.batch.validate(old: change.previousSnapshot.sections, new: change.snapshot.sections)
        }
    }
}
