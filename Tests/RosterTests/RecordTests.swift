import Foundation
import Testing
@testable import Roster
import RosterTestSupport

struct Article: Record, Equatable {
    var id: String
    var title: String
    var published: Date
    var rank: Int
    var score: Double
    var pinned: Bool
    var summary: String?
    var author: UUID
    var link: URL?
}

/// The same entity as `Article`, before `summary`, `author` and `link` were added.
struct ArticleV1: Record {
    static var entityName: String { "Article" }
    var id: String
    var title: String
    var published: Date
    var rank: Int
    var score: Double
    var pinned: Bool
}

struct Kind: Codable { var name: String }
struct Unstorable: Record {
    var id: Int
    var kind: Kind
}

struct Renamed: Record {
    static var entityName: String { "Article" }
    static var keyAttribute: String { "title" }
    var id: String
    var title: String
}

@Suite("Typed records")
struct RecordTests {
    func sample(_ id: String, rank: Int = 1, day: Double = 0, pinned: Bool = false) -> Article {
        Article(id: id, title: "Title \(id)", published: Date(timeIntervalSince1970: 1_700_000_000 + day * 86_400), rank: rank,
                score: 0.5, pinned: pinned, summary: nil, author: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                link: URL(string: "https://example.com/\(id)"))
    }

    @Test func theSchemaComesFromTheType() throws {
        let store = try Store.temporary()
        let entity = try store.define(Article.self)
        #expect(entity.attributes.map(\.name) == ["id", "title", "published", "rank", "score", "pinned", "summary", "author", "link"])
        #expect(entity.attributes.map(\.type) == [.string, .string, .double, .integer, .double, .bool, .string, .string, .string])
        #expect(entity.key.name == "id")
    }

    @Test func recordsRoundTripThroughTheStore() throws {
        let store = try Store.temporary()
        try store.define(Article.self)
        var article = sample("a1")
        article.summary = "Hello"
        try store.insert(article)
        #expect(try store.fetch(Article.self, key: "a1") == article)
        // Dates are stored as seconds since 1970, so raw SQL and scripts can read them.
        #expect(try store.fetch("Article", key: "a1")?["published"] == .double(1_700_000_000))
        article.rank = 9
        try store.update(article)
        #expect(try store.fetch(Article.self, key: "a1")?.rank == 9)
        try store.save(sample("a2"))
        try store.save(article)
        try store.delete(Article.self, key: "a2")
        #expect(try store.fetch(Article.self, key: "a2") == nil)
        #expect(throws: StoreError.duplicateKey(entity: "Article", key: "a1")) { try store.insert(article) }
    }

    @Test func addingAPropertyAddsTheColumnOnOpen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roster-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        do {
            let store = try Store(path: path)
            try store.define(ArticleV1.self)
            try store.insert(ArticleV1(id: "old", title: "Kept", published: Date(timeIntervalSince1970: 0), rank: 1, score: 1, pinned: true))
        }
        let store = try Store(path: path)
        let observed = try ResultsController(store: store, request: FetchRequest(Article.self, sortedBy: [.ascending(\.rank)]))
        // The live query was built on the old entity; defining the new type migrates the table.
        let entity = try store.define(Article.self)
        #expect(entity.attributes.map(\.name).suffix(3) == ["summary", "author", "link"])
        #expect(try store.fetch("Article", key: "old")?["title"] == "Kept")
        #expect(try store.fetch("Article", key: "old")?["summary"] == .null)
        try store.insert(sample("new"))
        #expect(try store.fetch(Article.self, key: "new") == sample("new"))
        // The update trigger now watches the new columns too.
        let controller = try ResultsController(store: store, request: FetchRequest(Article.self, sortedBy: [.ascending(\.rank)]))
        let recorder = GroupRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        try store.execute("UPDATE Article SET summary = 'now summarised' WHERE id = 'new'")
        #expect(recorder.takeGroups().first?.objectChanges.map(\.type) == [.update])
        _ = observed
    }

    @Test func changesThatWouldLoseDataAreErrors() throws {
        let store = try Store.temporary()
        try store.define(Article.self)
        #expect(throws: StoreError.schemaMismatch(entity: "Article", reason: "attribute 'summary' is in the database but not in the new definition; Roster does not drop columns (their data would be lost)")) {
            try store.define(ArticleV1.self)
        }
        #expect(throws: StoreError.schemaMismatch(entity: "Article", reason: "its key is 'id' in the database, not 'title'")) {
            try store.define(Renamed.self)
        }
        #expect(throws: StoreError.schemaMismatch(entity: "Unstorable", reason: "property 'kind' has type Kind, which Roster cannot store; use String, an integer, Double, Float, Bool, Date, UUID or URL, optional or not")) {
            try store.define(Unstorable.self)
        }
    }

    @Test func aNullForANonOptionalPropertyIsAClearError() throws {
        let store = try Store.temporary()
        try store.define(Article.self)
        try store.insert("Article", ["id": "bad", "published": 0, "rank": 1, "score": 1, "pinned": false, "author": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"])
        #expect {
            _ = try store.fetch(Article.self, key: "bad")
        } throws: { error in
            "\(error)".contains("Article.title is null for key 'bad'; make the property optional")
        }
    }

    @Test func keyPathsNameTheirAttributes() throws {
        let layout = try RecordLayouts.of(Article.self)
        #expect(layout.attributeName(for: \Article.id) == "id")
        #expect(layout.attributeName(for: \Article.published) == "published")
        #expect(layout.attributeName(for: \Article.pinned) == "pinned")
        #expect(layout.attributeName(for: \Article.summary) == "summary")
        #expect(layout.attributeName(for: \Article.author) == "author")
        #expect(layout.attributeName(for: \Article.link) == "link")
        #expect(layout.attributeName(for: \Article.title.count) == nil)
    }

    @Test func typedRequestsMatchTheirFormatTwins() throws {
        let store = try Store.temporary()
        try store.define(Article.self)
        try store.write {
            for index in 0..<12 { try store.insert(sample("a\(index)", rank: index % 5, day: Double(index % 3), pinned: index % 4 == 0)) }
        }
        let typed = try FetchRequest(Article.self, where: \.rank > 1 && !(\.pinned == true) || .beginsWith(\.title, "title a1", caseInsensitive: true),
                                     sortedBy: [.descending(\.published), .ascending(\.rank)], sectionedBy: \.published)
        let format = FetchRequest(entity: "Article",
                                  predicate: try QueryPredicate("(rank > 1 AND NOT (pinned == YES)) OR title BEGINSWITH[c] 'title a1'"),
                                  sortKeys: [SortKey("published", ascending: false), SortKey("rank")], sectionAttribute: "published")
        #expect(typed.sortKeys == format.sortKeys)
        #expect(typed.sectionAttribute == "published")
        let a = try ResultsController(store: store, request: typed)
        let b = try ResultsController(store: store, request: format)
        try a.performFetch()
        try b.performFetch()
        #expect(a.snapshot == b.snapshot)
        #expect(!a.snapshot.isEmpty)
        #expect(try a.records(as: Article.self).allSatisfy { $0.rank > 1 && !$0.pinned || $0.title.lowercased().hasPrefix("title a1") })
    }

    @Test func typedStringOperatorsFoldCaseAndDiacriticsAsTheirModifiers() throws {
        let store = try Store.temporary()
        try store.define(Article.self)
        let stored = ["Élève modèle", "ELEVE", "Straße", "STRASSE", "Café", "cafe", "naïve"]
        try store.write {
            for (index, title) in stored.enumerated() {
                var article = sample("t\(index)")
                article.title = title
                try store.insert(article)
            }
        }
        func titles(_ predicate: TypedPredicate<Article>) throws -> [String] {
            let controller = try ResultsController(store: store, request: FetchRequest(Article.self, where: predicate, sortedBy: [.ascending(\.id)]))
            try controller.performFetch()
            return try controller.records(as: Article.self).map(\.title)
        }
        #expect(try titles(.beginsWith(\.title, "eleve", caseInsensitive: true, diacriticInsensitive: true)) == ["Élève modèle", "ELEVE"])
        #expect(try titles(.beginsWith(\.title, "eleve", caseInsensitive: true)) == ["ELEVE"])
        #expect(try titles(.contains(\.title, "SS", caseInsensitive: true)) == ["Straße", "STRASSE"])
        #expect(try titles(.endsWith(\.title, "fe", diacriticInsensitive: true)) == ["Café", "cafe"])
        #expect(try titles(.equals(\.title, "NAIVE", caseInsensitive: true, diacriticInsensitive: true)) == ["naïve"])
        #expect(try titles(.equals(\.title, "naive", caseInsensitive: true)).isEmpty)
    }

    @Test func aMisspeltAttributeInAFormatIsAnErrorThatNamesIt() throws {
        #expect {
            _ = try FetchRequest(Article.self, where: .format("rnak > %@", 2))
        } throws: { error in
            "\(error)".contains("no attribute 'rnak'") || "\(error)".contains("rnak")
        }
        let store = try Store.temporary()
        try store.define(Article.self)
        #expect {
            _ = try ResultsController(store: store, request: FetchRequest(entity: "Article", predicate: QueryPredicate("rnak > %@", 2)))
        } throws: { error in
            "\(error)".contains("'rnak'")
        }
    }
}

/// A record whose own `encode(to:)` writes what no attribute holds.
struct ListEncoded: Record {
    var id: String
    var rank: Int

    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode(id)
    }
}

/// A record whose own `encode(to:)` nests an object under a key.
struct NestingEncoded: Record {
    var id: String
    var rank: Int

    enum CodingKeys: String, CodingKey { case id, rank }
    enum Inner: String, CodingKey { case value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .rank)
        try inner.encode(rank, forKey: .value)
    }
}

@Suite("Records that encode what no attribute holds")
struct RecordEncodingMisuseTests {
    @Test func aRecordThatEncodesAListOrANestedObjectIsAnErrorNotACrash() throws {
        let store = try Store.temporary()
        try store.define(ListEncoded.self)
        try store.define(NestingEncoded.self)
        #expect(throws: (any Error).self) { try store.insert(ListEncoded(id: "a", rank: 1)) }
        #expect(throws: (any Error).self) { try store.insert(NestingEncoded(id: "a", rank: 1)) }
        #expect(try store.fetch(ListEncoded.self, key: "a") == nil)
        #expect(try store.fetch(NestingEncoded.self, key: "a") == nil)
    }
}
