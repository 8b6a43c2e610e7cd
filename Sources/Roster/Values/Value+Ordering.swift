extension Value {
    /// Compares two values exactly as SQLite's `ORDER BY` does: -1, 0 or 1.
    ///
    /// Null comes first; then numbers, where integers, doubles and bools (as 0 and 1)
    /// compare with each other by their exact mathematical values — an `Int64` and a
    /// `Double` are compared without rounding either one, as SQLite's
    /// `sqlite3IntFloatCompare` does; then text, byte for byte (SQLite's BINARY
    /// collation): ``string(_:)`` and ``invalidUTF8(_:)`` values compare with each other as
    /// SQLite compares their bytes.
    ///
    /// ```swift
    /// Value.compare(nil, 0)                                   // -1
    /// Value.compare(9007199254740993, 9007199254740992.0)     // 1
    /// Value.compare(true, 1)                                  // 0
    /// Value.compare("B", "a")                                 // -1: "B" is 0x42, "a" 0x61
    /// ```
    ///
    /// A NaN double ranks as null, because SQLite stores NaN as NULL.
    ///
    /// - Complexity: O(*n*) in the length of the shorter string; O(1) otherwise.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case let (.string(x), .string(y)):
            return compareStrings(x, y)
        case let (.integer(x), .integer(y)):
            return x < y ? -1 : (x > y ? 1 : 0)
        case let (.double(x), .double(y)) where !x.isNaN && !y.isNaN:
            return x < y ? -1 : (x > y ? 1 : 0)
        default:
            break
        }
        let (rankA, rankB) = (a.storageRank, b.storageRank)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        if rankA == 2 { return compareText(a, b) }
        switch (a.numeric, b.numeric) {
        case let (.integer(x)?, .integer(y)?): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.integer(x)?, .double(y)?): return compareExactly(x, y)
        case let (.double(x)?, .integer(y)?): return -compareExactly(y, x)
        case let (.double(x)?, .double(y)?): return x < y ? -1 : (x > y ? 1 : 0)
        default: return 0  // two nulls
        }
    }

    /// Whether SQLite would hold this value as NULL: `.null`, or a NaN double.
    var isSQLNull: Bool {
        switch self {
        case .null: true
        case let .double(number): number.isNaN
        default: false
        }
    }

    /// 0 for null, 1 for numbers, 2 for text: SQLite's order of storage classes.
    private var storageRank: Int {
        switch self {
        case .null: 0
        case let .double(number): number.isNaN ? 0 : 1
        case .integer, .bool: 1
        case .string, .invalidUTF8: 2
        }
    }

    /// The value as an integer or a double, bools as 0 and 1; nil for null and text.
    private var numeric: Value? {
        switch self {
        case .integer, .double: self
        case let .bool(flag): .integer(flag ? 1 : 0)
        case .null, .string, .invalidUTF8: nil
        }
    }

    /// Compares an integer with a (non-NaN) double without rounding either one.
    ///
    /// The same steps as SQLite's `sqlite3IntFloatCompare` for platforms without a wide
    /// `long double`: doubles outside the Int64 range settle it at once; otherwise the
    /// integer parts decide, and for equal integer parts the double's fraction does.
    private static func compareExactly(_ integer: Int64, _ double: Double) -> Int {
        if double < -9223372036854775808.0 { return 1 }
        if double >= 9223372036854775808.0 { return -1 }
        let truncated = Int64(double)  // in range, so exact after truncation
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        // |integer| < 2^63 equals trunc(double); when |double| >= 2^53 it has no fraction,
        // and below 2^53 the conversion of `integer` is exact, so this compares the fraction.
        let converted = Double(integer)
        return converted < double ? -1 : (converted > double ? 1 : 0)
    }

    /// Compares text of which at least one side is ``invalidUTF8(_:)``, by bytes as for
    /// strings. Kept out of line so that ``compare(_:_:)`` stays small.
    @inline(never)
    private static func compareText(_ a: Value, _ b: Value) -> Int {
        a.withTextBytes { x in b.withTextBytes { y in compareBytes(x, y) } ?? 0 } ?? 0
    }

    /// Compares UTF-8 bytes as unsigned numbers, the shorter string first on a common
    /// prefix: SQLite's BINARY collation.
    static func compareStrings(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in compareBytes(x, y) }
        }
    }

    /// Compares two texts' bytes as ``compareStrings(_:_:)`` does (`memcmp`, then the
    /// length), whether or not the bytes are valid UTF-8.
    @inline(__always)
    static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(x.count, y.count)
        var index = 0
        // Equal stretches eight bytes at a time (sort values often share long prefixes).
        let (left, right) = (UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
        while index + 8 <= common,
              left.loadUnaligned(fromByteOffset: index, as: UInt64.self) == right.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
            index += 8
        }
        while index < common {
            if x[index] != y[index] { return x[index] < y[index] ? -1 : 1 }
            index += 1
        }
        return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
    }
}
