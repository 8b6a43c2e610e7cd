import Roster

/// A schema of its own on the test server, for one test: created by ``make()``, dropped
/// by ``drop()`` (call it in a `defer`).
public struct PostgresTestSchema: Sendable {
    /// The server's URL, without a search path.
    public let serverURL: String
    /// The schema's name.
    public let name: String
    /// The URL whose search path is the schema: what the test's stores open.
    public let url: String

    /// A new schema on the test server, or nil when there is no server and the test should
    /// skip (never under `CI=true`: ``PostgresTestServer/url()`` throws then).
    public static func make() throws -> PostgresTestSchema? {
        guard let server = try PostgresTestServer.url() else { return nil }
        let created = try PostgresSchema.create(at: server)
        return PostgresTestSchema(serverURL: server, name: created.name, url: created.url)
    }

    /// Drops the schema and everything in it.
    public func drop() {
        try? PostgresSchema.drop(name, at: serverURL)
    }
}
