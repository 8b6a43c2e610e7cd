/// This release of Roster.
///
/// (Not named `RosterVersion`: the symbol-graph tools leave out a `<Module>Version…`
/// symbol, as they do Apple frameworks' `…VersionNumber`, so it would be missing from the
/// documentation and from Docs/PublicAPI.md.)
public enum RosterRelease {
    /// The version, `MAJOR.MINOR.PATCH` with a `-dev` suffix between releases: the
    /// package's one version source. `roster --version` prints it, and CHANGELOG.md names
    /// the changes since the last release.
    public static let version = "0.4.0-dev"

    /// Whether this build has the PostgreSQL backend: the package trait `PostgreSQL`
    /// (`.package(url: …, from: …, traits: ["PostgreSQL"])`), which links libpq. Without it
    /// ``Store/init(postgresURL:)`` and every other PostgreSQL entry point throws
    /// ``StoreError/server(_:)`` with SQLSTATE `0A000` saying so.
    public static var hasPostgreSQL: Bool {
        #if PostgreSQL
        true
        #else
        false
        #endif
    }
}
