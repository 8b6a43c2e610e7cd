import Foundation
import Synchronization
import Testing
import Roster
import RosterTestSupport

/// Every example program, run on its bundled data, does what its --help says.
@Suite("Example programs")
struct ExampleProgramTests {
    let feeds = "Examples/FeedReader/Feeds/"

    @Test func feedReaderReportsEachSyncExactly() throws {
        let run = try ProgramRun(program: "FeedReader", arguments: ["sync", feeds + "newsroom-1.xml", feeds + "newsroom-2.xml", feeds + "newsroom-3.xml"])
        #expect(run.status == 0, "\(run.error)")
        let syncs = Array(run.output.components(separatedBy: "── sync ").dropFirst())
        try #require(syncs.count == 3)
        #expect(syncs[0].contains("sections: 30 inserted, 0 deleted; posts: 500 inserted, 0 deleted, 0 moved, 0 updated"))
        // newsroom-2: 50 new, 50 gone (two whole days), 15 retitled, 5 moved to another day.
        #expect(syncs[1].contains("sections: 1 inserted, 2 deleted; posts: 50 inserted, 50 deleted, 5 moved, 15 updated"))
        #expect(syncs[1].contains("batch deleteSections [28, 29]"))
        #expect(syncs[2].contains("no change: nothing reported"))
        #expect(run.output.components(separatedBy: "batch valid by UIKit's rules").count == 3)
    }

    @Test func feedReaderInboxSectionsByFeedWithBadges() throws {
        let run = try ProgramRun(program: "FeedReader", arguments: ["inbox", feeds + "newsroom-1.xml", feeds + "devblog.atom", feeds + "podcast.xml"])
        #expect(run.status == 0, "\(run.error)")
        let steps = Array(run.output.components(separatedBy: "── ").dropFirst())
        try #require(steps.count == 4)
        #expect(steps[0].contains("Harbourtown Newsroom: 500 entries, 500 unread"))
        #expect(steps[0].contains("inbox badge: 560 unread"))
        // Marking read: one row reconfigured, one feed's badge and the inbox's down by one.
        #expect(steps[1].contains("one batch: reconfigureItems [0,0]\n"))
        #expect(steps[1].contains("badge Harbourtown Newsroom: 499 unread"))
        #expect(!steps[1].contains("badge Lanternfish"))
        #expect(steps[1].contains("inbox badge: 559 unread"))
        // Renaming: the feed's section moves, all its entries with it, in one batch.
        #expect(steps[2].contains("one batch: deleteSections [0], insertSections [2] (500 entries moved with their section)"))
        #expect(steps[2].contains("badge ZZ Harbourtown Newsroom: 499 unread"))
        // Unsubscribing: the cascade takes the feed's entries.
        #expect(steps[3].contains("one batch: deleteSections [1]"))
        #expect(steps[3].contains("inbox badge: 539 unread"))
        #expect(steps[3].contains("ZZ Harbourtown Newsroom: 500 entries, 499 unread"))
    }

    @Test func feedReaderTUIIntoAPipeIsPlainText() throws {
        let run = try ProgramRun(program: "FeedReader", arguments: ["sync", feeds + "newsroom-1.xml", feeds + "newsroom-2.xml", "--tui"])
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.output.contains("\u{1B}"), "escape codes written into a pipe")
        #expect(run.output.contains("+ "), "the inserted rows are still marked")
        // newsroom-2 brings 50 posts above the rows on screen: the reader's place is kept.
        #expect(run.output.contains("scrolled to row 251"))
        #expect(run.output.contains("stays on top, now row 302"))
        #expect(run.output.contains("on screen: 8 of 8 posts as before"))
    }

    @Test func feedReaderCoalescesUnderASlowList() throws {
        let run = try ProgramRun(program: "FeedReader", arguments: ["sync", feeds + "newsroom-1.xml", feeds + "newsroom-2.xml", "--simulate-ui"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.components(separatedBy: "final list equals a fresh fetch: yes").count == 3)
        #expect(run.output.components(separatedBy: "every batch valid by UIKit's rules: yes").count == 3)
        // newsroom-1 is written in 50 transactions; the list takes far fewer changes.
        let line = try #require(run.output.split(separator: "\n").first { $0.contains("changes delivered, covering 50 commits") })
        let delivered = Int(line.split(separator: " ").first { Int($0) != nil } ?? "") ?? 50
        #expect(delivered < 50)
    }

    @Test func feedReaderExplainsABadFile() throws {
        let run = try ProgramRun(program: "FeedReader", arguments: ["sync", "Package.swift"])
        #expect(run.status != 0)
        #expect(run.error.contains("Package.swift"))
    }

    @Test func addressBookFlipsMovesAndDeletesSections() throws {
        let run = try ProgramRun(program: "AddressBook", arguments: [])
        #expect(run.status == 0, "\(run.error)")
        let steps = Array(run.output.components(separatedBy: "── ").dropFirst())
        try #require(steps.count == 6)
        #expect(steps[1].contains("Flip the sort to Z→A") && steps[1].contains("section delete"))
        // Every section's order reverses, so each keeps at most one contact in place, and only
        // one section can stay: 7 of the 8 contacts must move, and no more.
        #expect(steps[1].components(separatedBy: "\nmove '").count - 1 == 7)
        #expect(steps[2].components(separatedBy: "\nmove '").count - 1 == 7)
        #expect(steps[3].contains("move 'c3' from [1,1] to [4,0]") && steps[3].contains("section insert 4 'M'"))
        #expect(steps[4].contains("section delete 0 'D'") && steps[4].contains("deleteSections [0]"))
        #expect(steps[5].contains("(no change reported)"))
        #expect(run.output.components(separatedBy: "valid\n").count == 6)
    }

    @Test(.needsPostgreSQL) func boardRunsAsSeveralClientsOfOneServer() throws {
        guard let schema = try PostgresTestSchema.make() else { return }
        defer { schema.drop() }
        let seeding = try ProgramRun(program: "Board", arguments: ["--shared", schema.url, "--seed"])
        #expect(seeding.status == 0, "\(seeding.error)")
        let clients = ["alice", "bob", "carol"]
        let url = schema.url
        let runs = Mutex<[String: (status: Int32, output: String, error: String)]>([:])
        // A thread each (not concurrentPerform, which runs as many at once as there are
        // cores): the clients wait for each other, so all must run at once.
        let finished = DispatchGroup()
        for client in clients {
            finished.enter()
            Thread {
                defer { finished.leave() }
                guard let run = try? ProgramRun(program: "Board", arguments: ["--shared", url, "--client", client, "--clients", "3", "--moves", "3"]) else { return }
                let result = (run.status, run.output, run.error)
                runs.withLock { $0[client] = result }
            }.start()
        }
        finished.wait()
        var boards: [String] = []
        for client in clients {
            let run = try #require(runs.withLock { $0[client] })
            #expect(run.status == 0, "\(client): \(run.error)")
            // It heard its own moves and the others': every card another client moved.
            let moved = { (output: String) in output.split(separator: "\n").filter { $0.contains("] moved ") }.map { String($0.split(separator: " ")[2]) } }
            for other in clients where other != client {
                let theirs = try #require(runs.withLock { $0[other] })
                for key in moved(theirs.output) {
                    #expect(run.output.contains("move '\(key)'") || run.output.contains("update '\(key)'"),
                            "\(client) never heard \(other)'s move of \(key)")
                }
            }
            let final = try #require(run.output.range(of: "final board:"))
            boards.append(String(run.output[final.lowerBound...]))
        }
        #expect(Set(boards).count == 1, "the clients' final boards differ:\n\(clients.map { client in runs.withLock { $0[client].map { "\($0.output)\n\($0.error)" } ?? "" } }.joined(separator: "\n"))")
    }

    @Test func boardShowsTheMultiSectionCase() throws {
        let run = try ProgramRun(program: "Board", arguments: [])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("section delete 2 'c-review'"))
        #expect(run.output.contains("section insert 4 'f-shipped'"))
        #expect(run.output.contains("deleteItems [1,2] [3,0]"))
        #expect(run.output.contains("update 'k01' from [0,3] to [0,3]"))
        // A move between two columns that stay: split by default, kept with --keep-moves.
        #expect(run.output.contains("insertItems [2,0]") && !run.output.contains("moveItems"))
        let keeping = try ProgramRun(program: "Board", arguments: ["--keep-moves"])
        #expect(keeping.status == 0, "\(keeping.error)")
        #expect(keeping.output.contains("moveItems [1,0]→[2,0]"))
    }

    @Test func usageNamesTheExecutableAndRosterHasAVersion() throws {
        for program in ["FeedReader", "AddressBook", "Board"] {
            let run = try ProgramRun(program: program, arguments: ["--help"])
            #expect(run.output.contains("USAGE: \(program)"), "\(program) --help: \(run.output.prefix(300))")
        }
        let version = try ProgramRun(program: "roster", arguments: ["--version"])
        #expect(version.status == 0)
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == RosterRelease.version)
    }

    @Test func contentLoadingDeliversOnlyToTheRightRows() throws {
        for seed in ["1", "7"] {
            let run = try ProgramRun(program: "ContentLoading", arguments: ["--seed", seed])
            #expect(run.status == 0, "\(run.output.suffix(500))")
            #expect(run.output.contains("verified: every delivery landed on the row showing that photo"))
        }
        // The classic bug, painting on the row where the load started, is caught.
        #expect(try ProgramRun(program: "ContentLoading", arguments: ["--naive"]).status == 1)
    }

    @Test func everyExampleHasHelp() throws {
        for program in ["FeedReader", "AddressBook", "Board", "ContentLoading", "roster"] {
            let run = try ProgramRun(program: program, arguments: ["--help"])
            #expect(run.status == 0, "\(program) --help")
            #expect(run.output.uppercased().contains("USAGE"), "\(program) --help")
        }
    }
}

/// LiveList draws two views over `ObservedResults` as SwiftUI would: each frame redraws
/// only the views whose observed properties notified.
@Suite("LiveList example")
struct LiveListExampleTests {
    @Test func eachFrameRedrawsOnlyTheViewsWhoseDataChanged() throws {
        let run = try ProgramRun(program: "LiveList", arguments: [])
        #expect(run.status == 0, "\(run.error)")
        let frames = Array(run.output.components(separatedBy: "── frame ").dropFirst())
        try #require(frames.count == 9, "\(run.output)")
        func views(_ frame: String) -> [String] {
            frame.split(separator: "\n").filter { $0.hasPrefix("   [") }.map { String($0.dropFirst(3)) }
        }
        #expect(views(frames[0]) == ["[header]", "[rows]"])
        #expect(frames[0].contains("p0018  Post 18  rank 180\n   p0019"))
        // An edit to a shown row redraws the rows, not the header.
        #expect(views(frames[1]) == ["[rows]"])
        #expect(frames[1].contains("p0021  Post 21, edited  rank 210"))
        // Rows outside the window change the count alone; rows above leave the anchored window in place.
        #expect(views(frames[2]) == ["[header]"] && frames[2].contains("201 posts"))
        #expect(views(frames[3]) == ["[header]"] && frames[3].contains("203 posts"))
        // Fast typing: the last search only; a half-typed predicate shows an error and keeps the rows.
        #expect(views(frames[4]) == ["[header]", "[rows]"] && frames[4].contains("11 posts"))
        #expect(frames[4].contains("p0002  Post 2  rank 20\n   p0020  Post 20  rank 200"))
        #expect(views(frames[5]) == ["[header]"] && frames[5].contains("error: predicate \"title BEGINSWITH[c]\""))
        #expect(views(frames[6]) == ["[header]", "[rows]"] && frames[6].contains("111 posts") && !frames[6].contains("error"))
        // The sort flipped: same rows counted, so the header stays.
        #expect(views(frames[7]) == ["[rows]"])
        #expect(frames[7].contains("p0012  Post 12  rank 120\n   p0011"))
        #expect(frames[8].contains("(nothing redrawn)"))
    }

    @Test func aBadPostCountIsRefusedWithAClearError() throws {
        let run = try ProgramRun(program: "LiveList", arguments: ["--posts", "3"])
        #expect(run.status == 2)
        #expect(run.error.contains("--posts needs a whole number of at least 40"))
    }
}
