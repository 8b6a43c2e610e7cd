/// The largest predicate Roster accepts, each limit checked when the predicate is parsed
/// or bound, so that a predicate from anywhere (a user's search field, a script, another
/// process) fails with an error naming the limit instead of overflowing a stack or
/// failing later inside SQLite, in the middle of a delivery.
///
/// A predicate is compiled to SQL and evaluated in Swift, both recursively. SQLite's parser
/// overflows its stack at about 45 nested `NOT (…)` and refuses an expression tree deeper
/// than 1,000 (an `AND` of about 1,000 comparisons); it binds at most 32,766 parameters and
/// matches `GLOB` patterns of at most 50,000 bytes. The limits leave a margin below those,
/// and bound the work of evaluating a predicate in Swift: within them, any predicate on a
/// 64 KB value evaluates in milliseconds (`roster bench --scenario predicate`).
public enum PredicateLimits {
    /// The most levels of parentheses and `NOT` around any part of a predicate.
    public static let maxNesting = 32
    /// The most comparisons in one predicate.
    public static let maxComparisons = 500
    /// The most values in one predicate, `IN` and `BETWEEN` lists included.
    public static let maxValues = 10_000
    /// The longest predicate text, in UTF-8 bytes.
    public static let maxLength = 262_144
    /// The most string operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`) in one
    /// predicate: each reads the value once when Swift evaluates it.
    public static let maxStringComparisons = 16
    /// The longest the `GLOB` patterns of one predicate's string operators may be together,
    /// in compiled bytes (the operand's `*`, `?` and `[` take three bytes each there, and
    /// with `[c]` or `[d]` the operand counts as folded): the work per character of the value grows
    /// with it. It keeps every pattern well under SQLite's own 50,000.
    public static let maxPatternTotal = 8_192
}
