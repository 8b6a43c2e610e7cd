import CSQLite

/// The SQL function `roster_glob(pattern, subject)`: whether the whole text `subject`
/// matches ``GlobPattern`` `pattern` — SQLite's `GLOB` but for a NUL, which is a character
/// here rather than the end of the text. A predicate's string operators run it in SQL
/// (``BoundPredicate/sql``), and Swift runs the same matcher on a row, so both always give
/// the same answer. Null or non-text arguments match nothing (a string attribute holds
/// text). The compiled pattern is kept for the statement while its argument stays the same
/// (`sqlite3_set_auxdata`), so a scan compiles it once.
package enum GlobFunction {
    /// The function's name in SQL.
    package static let name = "roster_glob"

    /// Registers the function on a connection.
    ///
    /// - Returns: SQLite's result code.
    package static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(handle, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY,
                                   nil, { context, _, arguments in GlobFunction.call(context, arguments) }, nil, nil, nil)
    }

    /// A compiled pattern kept as a statement's auxiliary data.
    private final class Compiled {
        let pattern: GlobPattern
        init(_ pattern: GlobPattern) { self.pattern = pattern }
    }

    private static func call(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, let patternValue = arguments[0], let subjectValue = arguments[1],
              sqlite3_value_type(patternValue) == SQLITE_TEXT, sqlite3_value_type(subjectValue) == SQLITE_TEXT else {
            sqlite3_result_int(context, 0)
            return
        }
        let pattern: GlobPattern
        if let kept = sqlite3_get_auxdata(context, 0) {
            pattern = Unmanaged<Compiled>.fromOpaque(kept).takeUnretainedValue().pattern
        } else {
            pattern = GlobPattern(bytes: bytes(of: patternValue).map { Array($0) } ?? [])
            let box = Unmanaged.passRetained(Compiled(pattern)).toOpaque()
            // SQLite releases it (at once, when it cannot keep it) through the destructor.
            sqlite3_set_auxdata(context, 0, box) { Unmanaged<Compiled>.fromOpaque($0!).release() }
        }
        let matched = bytes(of: subjectValue).map { pattern.matches(utf8: $0) } ?? pattern.matches(utf8: UnsafeBufferPointer(start: nil, count: 0))
        sqlite3_result_int(context, matched ? 1 : 0)
    }

    /// A text value's bytes, whole (NULs included); nil for empty text.
    private static func bytes(of value: OpaquePointer) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_value_text(value) else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return count > 0 ? UnsafeBufferPointer(start: text, count: count) : nil
    }
}
