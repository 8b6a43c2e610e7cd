/// Schemas of their own on a PostgreSQL server, for runs and tests that must not see each
/// other's entities: `roster run` and the tests work in a new `roster_<random>` schema each,
/// and drop it when they finish.
///
/// ```swift
/// let scratch = try PostgresSchema.create(at: "postgresql://me@localhost/app")
/// let store = try Store(postgresURL: scratch.url)   // works in scratch.name
/// …
/// try PostgresSchema.drop(scratch.name, at: "postgresql://me@localhost/app")
/// ```
public enum PostgresSchema {
    /// Creates a schema named `roster_` and 16 random hexadecimal digits.
    ///
    /// - Returns: its name, and `url` with the schema as its search path
    ///   (`options=-csearch_path%3D<name>` added to its query).
    /// - Throws: ``StoreError/server(_:)`` when the server cannot be reached or the role
    ///   may not create schemas.
    public static func create(at url: String) throws -> (name: String, url: String) {
        let name = "roster_" + String(UInt64.random(in: .min ... .max), radix: 16).leftPadded(to: 16)
        #if !PostgreSQL
        throw StoreError.server(.notBuilt)
        #else
        do throws(ServerError) {
            let connection = try ServerConnection(url: url)
            defer { connection.close() }
            try connection.execute("CREATE SCHEMA \(ServerCatalog.Names.quoted(name))")
        } catch {
            throw StoreError.server(error)
        }
        return (name, Self.url(url, searchPath: name))
        #endif
    }

    /// Drops a schema and everything in it (`DROP SCHEMA … CASCADE`); nothing when it does
    /// not exist.
    ///
    /// - Throws: ``StoreError/server(_:)`` when the server cannot be reached or refuses.
    public static func drop(_ name: String, at url: String) throws {
        #if !PostgreSQL
        throw StoreError.server(.notBuilt)
        #else
        do throws(ServerError) {
            let connection = try ServerConnection(url: url)
            defer { connection.close() }
            try connection.execute("DROP SCHEMA IF EXISTS \(ServerCatalog.Names.quoted(name)) CASCADE")
        } catch {
            throw StoreError.server(error)
        }
        #endif
    }

    /// Whether `location` is a PostgreSQL URL (`postgresql://…` or `postgres://…`) rather
    /// than a file path: what `roster`'s `--store` and ``ExternalConnection`` go by.
    public static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// `url` without its password, for messages and reports.
    package static func redacted(_ url: String) -> String {
        // postgresql://user:password@host/… → postgresql://user:***@host/…
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url.replacingOccurrences(of: #"password\s*=\s*\S+"#, with: "password=***", options: .regularExpression)
        }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    /// `url` with `schema` as its search path: a URL gains `options=-csearch_path%3D<schema>`
    /// in its query; a `key=value` string gains `options='-csearch_path=<schema>'`.
    public static func url(_ url: String, searchPath schema: String) -> String {
        if isURL(url) {
            return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        }
        return url + " options='-csearch_path=\(schema)'"
    }
}

extension String {
    /// The string with zeros before it, up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(length - count, 0)) + self
    }
}
