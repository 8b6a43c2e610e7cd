import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// Raw SQL runs in the store's transaction and may not control it: SQLite, not a text
/// scan, decides where statements start and what kind each one is.
@Suite("Raw SQL")
struct RawSQLTests {
    /// Transaction control that a hand-written scan of the text can misread, with the
    /// command SQLite compiles it to and the statement (counting from 1) it is in.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let sql: String
        let command: String
        let statement: Int
        var testDescription: String { sql.debugDescription }
    }

    static let hostile: [Hostile] = [
        // `[…]` quotes an identifier: what is inside it opens no string or comment.
        Hostile(sql: "SELECT 1 AS [']; COMMIT; --", command: "COMMIT", statement: 2),
        Hostile(sql: "SELECT 1 AS [\"]; COMMIT; --", command: "COMMIT", statement: 2),
        Hostile(sql: "SELECT 1 AS [`]; COMMIT", command: "COMMIT", statement: 2),
        Hostile(sql: "SELECT 1 AS [--]; COMMIT", command: "COMMIT", statement: 2),
        Hostile(sql: "SELECT 1 AS [/*]; COMMIT; --*/", command: "COMMIT", statement: 2),
        Hostile(sql: "SELECT 'it''s', \"a\"\"b\"; COMMIT", command: "COMMIT", statement: 2),
        // Comments do not nest in SQLite: the first `*/` ends them.
        Hostile(sql: "/* outer /* inner */ COMMIT", command: "COMMIT", statement: 1),
        Hostile(sql: "/* a */ -- b\n  commit", command: "COMMIT", statement: 1),
        Hostile(sql: "  \n\tcommit transaction", command: "COMMIT", statement: 1),
        Hostile(sql: "end", command: "COMMIT", statement: 1),
        Hostile(sql: "END TRANSACTION", command: "COMMIT", statement: 1),
        Hostile(sql: "begin", command: "BEGIN", statement: 1),
        Hostile(sql: "BEGIN IMMEDIATE TRANSACTION", command: "BEGIN", statement: 1),
        Hostile(sql: "rollback", command: "ROLLBACK", statement: 1),
        Hostile(sql: "SAVEPOINT x", command: "SAVEPOINT x", statement: 1),
        Hostile(sql: "RELEASE x", command: "RELEASE x", statement: 1),
        Hostile(sql: "release savepoint roster_statement", command: "RELEASE roster_statement", statement: 1),
        Hostile(sql: "ROLLBACK TO x", command: "ROLLBACK TO x", statement: 1),
        Hostile(sql: "rollback transaction to savepoint roster_statement", command: "ROLLBACK TO roster_statement", statement: 1),
        // Empty statements are not statements.
        Hostile(sql: ";; COMMIT", command: "COMMIT", statement: 1),
        Hostile(sql: "SELECT 1;;\n;COMMIT;;", command: "COMMIT", statement: 2),
    ]

    /// The message of the ``StoreError/rejectedSQL(_:)`` that `body` throws; nil, with a
    /// recorded issue, when it throws anything else or nothing.
    func rejection(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> String? {
        do {
            try body()
            Issue.record("expected rejectedSQL, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as StoreError where error.code == .rejectedSQL {
            return error.description
        } catch {
            Issue.record("expected rejectedSQL, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    func transactionMessage(_ command: String, _ statement: Int, external: Bool = false) -> String {
        "raw SQL may not control transactions ('\(command)' in statement \(statement)): "
            + (external ? "it runs in a transaction of its own" : "it runs in the store's transaction")
    }

    /// A store with `p1` (rank 1) and a live query over posts by rank.
    func watchedStore() throws -> (Store, ResultsController, GroupRecorder) {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        let controller = try ResultsController(store: store, request: FetchRequest(entity: "Post", sortKeys: [SortKey("rank")]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (store, controller, recorder)
    }

    /// The names of the databases attached to the store's connection.
    func databaseNames(_ store: Store) throws -> [Value] {
        let statement = try store.writer.prepare("SELECT name FROM pragma_database_list ORDER BY seq")
        var names: [Value] = []
        while try statement.step() { names.append(statement.column(0)) }
        return names
    }

    // MARK: - The reported case

    @Test func aCommitHiddenAfterABracketQuotedIdentifierIsRefusedAndRollbackStillUndoesTheTransaction() throws {
        let (store, controller, recorder) = try watchedStore()
        try store.beginTransaction()
        try store.insert("Post", ["id": "p2", "rank": 2])
        let message = rejection { try store.execute("SELECT 1 AS [']; COMMIT; --") }
        #expect(message == "raw SQL may not control transactions ('COMMIT' in statement 2): it runs in the store's transaction")
        #expect(store.isInTransaction)
        try store.rollback()
        #expect(try store.fetch("Post", key: "p2") == nil)
        #expect(recorder.takeGroups().isEmpty)
        #expect(controller.numberOfObjects == 1)
        // The store goes on working, and live queries hear about the next commit.
        try store.beginTransaction()
        try store.insert("Post", ["id": "p3", "rank": 3])
        try store.commit()
        #expect(try store.fetch("Post", key: "p3") != nil)
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .insert, item: "p3", from: nil, to: IndexPath(item: 1, section: 0)),
        ])])
        try store.execute("UPDATE Post SET rank = 0 WHERE id = 'p3'")
        #expect(recorder.takeGroups() == [ChangeGroup(objectChanges: [
            ObjectChange(type: .move, item: "p3", from: IndexPath(item: 1, section: 0), to: IndexPath(item: 0, section: 0)),
        ])])
    }

    // MARK: - Transaction control, every way of writing it

    @Test(arguments: hostile)
    func transactionControlIsRefusedOutsideATransaction(_ hostile: Hostile) throws {
        let (store, controller, recorder) = try watchedStore()
        #expect(rejection { try store.execute(hostile.sql) } == transactionMessage(hostile.command, hostile.statement))
        // Whatever ran before the refused statement is undone.
        #expect(rejection { try store.execute("UPDATE Post SET rank = 2; " + hostile.sql) }
            == transactionMessage(hostile.command, hostile.statement + 1))
        #expect(!store.isInTransaction)
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
        #expect(recorder.takeGroups().isEmpty)
        try store.execute("INSERT INTO Post(id, rank) VALUES ('p2', 5)")
        #expect(recorder.takeGroups().count == 1)
        #expect(controller.numberOfObjects == 2)
    }

    @Test(arguments: hostile)
    func transactionControlIsRefusedInsideATransaction(_ hostile: Hostile) throws {
        let (store, controller, recorder) = try watchedStore()
        try store.beginTransaction()
        try store.insert("Post", ["id": "p2", "rank": 2])
        #expect(rejection { try store.execute("UPDATE Post SET rank = 7; " + hostile.sql) }
            == transactionMessage(hostile.command, hostile.statement + 1))
        // The raw SQL is undone; the transaction and what it did before go on.
        #expect(store.isInTransaction)
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
        #expect(try store.fetch("Post", key: "p2")?["rank"] == 2)
        try store.rollback()
        #expect(try store.fetch("Post", key: "p2") == nil)
        #expect(recorder.takeGroups().isEmpty)
        try store.write { try store.insert("Post", ["id": "p3", "rank": 3]) }
        #expect(recorder.takeGroups().count == 1)
        #expect(controller.numberOfObjects == 2)
    }

    @Test(arguments: hostile)
    func anExternalConnectionRefusesTransactionControl(_ hostile: Hostile) throws {
        let (store, controller, recorder) = try watchedStore()
        let other = try ExternalConnection(path: store.path)
        #expect(rejection { try other.execute("UPDATE Post SET rank = 2; " + hostile.sql) }
            == transactionMessage(hostile.command, hostile.statement + 1, external: true))
        #expect(try !store.pollExternalChanges())
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
        try other.execute("INSERT INTO Post(id, rank) VALUES ('p2', 2)")
        #expect(try store.pollExternalChanges())
        #expect(recorder.takeGroups().count == 1)
        #expect(controller.numberOfObjects == 2)
    }

    @Test func anUpdateFollowedByCommitLeavesTheTableAsItWas() throws {
        let store = try postStore()
        try store.execute("CREATE TABLE T(x INTEGER); INSERT INTO T VALUES (0)")
        func x() throws -> Value {
            let statement = try store.writer.prepare("SELECT x FROM T")
            _ = try statement.step()
            return statement.column(0)
        }
        #expect(rejection { try store.execute("UPDATE T SET x = 1; COMMIT") } == transactionMessage("COMMIT", 2))
        #expect(try x() == 0)
        try store.beginTransaction()
        #expect(rejection { try store.execute("UPDATE T SET x = 1; COMMIT") } == transactionMessage("COMMIT", 2))
        #expect(try x() == 0)
        #expect(store.isInTransaction)
        try store.commit()
        #expect(try x() == 0)
    }

    @Test func textThatOnlyLooksLikeTransactionControlRuns() throws {
        let store = try postStore()
        try store.execute("SELECT 1 AS [; COMMIT]")
        try store.execute("INSERT INTO Post(id, title) VALUES ('p1', 'x; COMMIT'); UPDATE Post SET day = 'END' WHERE [id] = 'p1'")
        try store.execute("CREATE TABLE \"begin\"(\"commit\"); INSERT INTO \"begin\" VALUES ('rollback'); -- COMMIT")
        try store.execute("SELECT 1 /* ; COMMIT */; SELECT \"savepoint\" FROM (SELECT 1 AS savepoint)")
        let post = try #require(try store.fetch("Post", key: "p1"))
        #expect(post["title"] == "x; COMMIT")
        #expect(post["day"] == "END")
    }

    // MARK: - Statements run as before

    @Test func everyStatementRunsInOrder() throws {
        let store = try postStore()
        try store.execute("""
            CREATE TABLE T(x INTEGER); INSERT INTO T VALUES (1);;
            UPDATE T SET x = x * 10; -- a comment between statements
            INSERT INTO Post(id, rank) SELECT 'p' || x, x FROM T; /* and after the last */
            """)
        #expect(try store.fetch("Post", key: "p10")?["rank"] == 10)
        try store.execute("")
        try store.execute(" ;; -- nothing to run")
    }

    @Test func argumentsBindToTheOneStatement() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1, "title": "t"])
        try store.execute("UPDATE Post SET rank = ? WHERE id = ?; -- done\n", arguments: [7, "p1"])
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 7)
        // Without arguments, parameters are null, as SQLite leaves them.
        try store.execute("UPDATE Post SET title = ? WHERE id = 'p1'")
        #expect(try store.fetch("Post", key: "p1")?["title"] == .null)
        do {
            try store.execute("UPDATE Post SET rank = ? WHERE id = ?", arguments: [8])
            Issue.record("a missing argument was accepted")
        } catch let error as StoreError {
            #expect(error.databaseError?.code == .range, "\(error)")
        }
        // Arguments belong to one statement: a second one is refused, and the first undone.
        #expect(rejection { try store.execute("UPDATE Post SET rank = ?; DELETE FROM Post", arguments: [9]) }
            == "raw SQL with arguments must be a single statement; statement 2 follows")
        #expect(rejection { try store.execute("-- nothing", arguments: [9]) }
            == "raw SQL with arguments must be a single statement; there is none")
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 7)
    }

    // MARK: - ATTACH, DETACH, VACUUM

    @Test func attachAndDetachAreRefused() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        let reason = "attached databases outlive a rollback, and the store tracks only its own file"
        #expect(rejection { try store.execute("UPDATE Post SET rank = 2; ATTACH ':memory:' AS other") }
            == "raw SQL may not attach or detach databases ('ATTACH' in statement 2): \(reason)")
        #expect(rejection { try store.execute("DETACH other") }
            == "raw SQL may not attach or detach databases ('DETACH' in statement 1): \(reason)")
        try store.beginTransaction()
        #expect(rejection { try store.execute("attach database ':memory:' as other") }
            == "raw SQL may not attach or detach databases ('ATTACH' in statement 1): \(reason)")
        try store.commit()
        #expect(try databaseNames(store) == ["main"])
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
        let other = try ExternalConnection(path: store.path)
        #expect(rejection { try other.execute("ATTACH ':memory:' AS other") }
            == "raw SQL may not attach or detach databases ('ATTACH' in statement 1): \(reason)")
    }

    @Test func vacuumFailsWithSQLitesOwnErrorAndChangesNothing() throws {
        let store = try postStore()
        try store.insert("Post", ["id": "p1", "rank": 1])
        let runs: [() throws -> Void] = [
            { try store.execute("UPDATE Post SET rank = 2; VACUUM") },
            { try ExternalConnection(path: store.path).execute("UPDATE Post SET rank = 2; VACUUM") },
        ]
        for run in runs {
            do {
                try run()
                Issue.record("VACUUM ran")
            } catch let error as StoreError {
                #expect(error.databaseError?.message == "cannot VACUUM from within a transaction", "\(error)")
            }
        }
        #expect(!store.isInTransaction)
        #expect(try store.fetch("Post", key: "p1")?["rank"] == 1)
    }
}
