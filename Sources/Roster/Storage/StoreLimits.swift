/// The largest values the store's write API takes, so that an oversized value is a clear
/// error naming the limit at the write that makes it, not a failure deep inside SQLite or
/// a list that stalls on a row it cannot show.
///
/// Raw SQL and other processes are bound only by SQLite's own limit (1,000,000,000 bytes
/// by default); live queries read such rows like any other.
public enum StoreLimits {
    /// The longest text a `string` attribute takes through ``Store/insert(_:_:)`` or
    /// ``Store/update(_:key:_:)``, in UTF-8 bytes: 16 MiB.
    public static let maxTextBytes = 16 * 1024 * 1024
}
