import ArgumentParser
import Foundation
import Roster
import RosterExampleSupport

/// A card on a task board.
struct Card: Record {
    var id: String
    var title: String
    var column: String
    var position: Int
}

@main
struct Board: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Board",
        abstract: "A task board: the multi-section case, raw callbacks beside the batch.",
        discussion: """
            Five columns become five others in one transaction: a new column appears at index 4 \
            while cards from columns 1, 2 and 3 move into it and column 2 empties. The program \
            prints the NSFetchedResultsController-style callbacks beside the batch a list view \
            accepts (moves split, operations inside deleted or inserted sections dropped), then \
            a drag the user already made on screen, saved without being reported back.

            With --shared URL it is one client of a board kept on a PostgreSQL server: run \
            several at once (Board --shared URL --seed first), each in its own process; each \
            moves cards and prints every batch it hears, the others' moves included (--clients N: all \
            N wait for each other, so that each hears every other's moves).
            """)

    @Flag(help: "Keep moves in the batch (moveItems) where UIKit allows them.")
    var keepMoves = false

    @Option(help: "Be one client of a board shared on this PostgreSQL server (a URL whose search path names the board's schema).")
    var shared: String?

    @Flag(help: "With --shared: define the board and put its cards on it, then exit.")
    var seed = false

    @Option(help: "With --shared: this client's name, which also picks its moves.")
    var client = "client"

    @Option(help: "With --shared: how many cards this client moves.")
    var moves = 3

    @Option(help: "With --shared: how many clients take part. Each waits until all are watching before it moves, and until all their moves are in before it prints the final board.")
    var clients = 1

    func run() throws {
        if let shared {
            if seed { return try SharedBoard.seed(url: shared) }
            return try SharedBoard(url: shared, client: client, clients: clients, moves: moves, keepMoves: keepMoves).run()
        }
        let store = try Store.temporary()
        try store.define(Card.self)
        let board = try ResultsController(store: store, request: FetchRequest(
            Card.self, sortedBy: [.ascending(\.column), .ascending(\.position)], sectionedBy: \.column))
        let collector = ChangeCollector()
        board.delegate = collector
        try board.performFetch()
        let adapter = BatchAdapter(keepsMoves: keepMoves)

        try store.write {
            let columns: [(String, [String])] = [
                ("a-backlog", ["Search", "Dark mode", "Offline sync", "Widgets"]),
                ("b-doing", ["Sign in", "Settings", "Push alerts"]),
                ("c-review", ["Onboarding", "Crash fix"]),
                ("d-testing", ["Icons", "Fonts", "Colors"]),
                ("e-done", ["Logo", "Domain"]),
            ]
            var number = 0
            for (column, titles) in columns {
                for (position, title) in titles.enumerated() {
                    number += 1
                    try store.insert(Card(id: String(format: "k%02d", number), title: title, column: column, position: position))
                }
            }
        }
        _ = collector.take()
        print("Before:")
        print(ChangeLog.sectionLines(board.snapshot).joined(separator: "\n") + "\n")

        // Release day: f-shipped appears at index 4; b-doing (1), c-review (2, which empties)
        // and d-testing (3) send it cards, and a new card lands in it.
        let before = board.snapshot
        try store.write {
            try store.insert(Card(id: "k99", title: "Release notes", column: "f-shipped", position: 4))
            for (key, position) in [("k08", 0), ("k09", 1), ("k07", 2), ("k10", 3)] {
                var card = try store.fetch(Card.self, key: key)!
                card.column = "f-shipped"
                card.position = position
                try store.update(card)
            }
            var fonts = try store.fetch(Card.self, key: "k11")!
            fonts.title = "Typography"
            try store.update(fonts)
        }
        try show("Release day (one transaction)", before, board, collector, adapter)

        // Triage: "Sign in" jumps from b-doing to the top of d-testing. Both columns stay,
        // so a list view may animate it as one move: with --keep-moves the batch keeps it.
        let beforeTriage = board.snapshot
        try store.write {
            var signIn = try store.fetch(Card.self, key: "k05")!
            signIn.column = "d-testing"
            signIn.position = -1
            try store.update(signIn)
        }
        try show("Triage (a move between two columns that stay)", beforeTriage, board, collector, adapter)

        // The user drags "Search" from the top of a-backlog to its bottom. The list view has
        // already moved the row; the app saves the new position without hearing it back.
        let beforeDrag = board.snapshot
        let drag = UserEdit.move(key: "k01", to: IndexPath(item: 3, section: 0))
        try board.performUserDrivenChange([drag]) {
            try store.update("Card", key: "k01", ["position": 10])
        }
        var userView = beforeDrag
        drag.apply(to: &userView)
        try show("The user's drag of k01, saved (only its new position is an update)", userView, board, collector, adapter)
    }

    func show(_ title: String, _ before: [ListSection<Value, Value>], _ board: ResultsController, _ collector: ChangeCollector, _ adapter: BatchAdapter) throws {
        guard let group = collector.take().first else {
            print("── \(title)\n(no change reported)\n")
            return
        }
        let batch = adapter.batch(for: group)
        print(ChangeLog.sideBySide(title, group, batch), terminator: "")
        try batch.validate(old: before, new: board.snapshot)
        print("After:")
        print(ChangeLog.sectionLines(board.snapshot).joined(separator: "\n"))
        print("batch checked with UIKit's rules: valid\n")
    }
}
