/// A JSON value that remembers how it was written.
///
/// Two facts that Foundation's `JSONSerialization` forgets matter to the script runner:
/// whether a number was written as an integer (`3`) or not (`3.0`, `3e0`), and the order
/// of an object's keys. `JSONValue` keeps both: integers that fit in `Int64` are
/// ``integer(_:)``, every other number is ``number(_:)``, and objects are ordered
/// ``JSONObject``s.
///
/// ```swift
/// let line = try JSONValue.parse(#"{"op":"update","key":"p1","values":{"rank":3}}"#)
/// line["op"]?.stringValue                  // "update"
/// line["values"]?["rank"]                  // .integer(3)
/// line.serialized()                        // the same text back, keys in the same order
/// ```
///
/// Strings compare and hash by their UTF-8 bytes, as SQLite's BINARY collation does, so
/// a precomposed `"é"` and a decomposed `"e\u{301}"` are different values (and different
/// object keys).
package enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64` (`-0` is `0`).
    case integer(Int64)
    /// A number written with a fraction or an exponent, or an integer too large for `Int64`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in the order they were written.
    case object(JSONObject)
}
