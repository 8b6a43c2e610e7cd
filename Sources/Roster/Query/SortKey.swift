/// One sort key of a query: an attribute and a direction.
///
/// ```swift
/// let sort = [SortKey("day", ascending: false), SortKey("rank")]
/// ```
///
/// Sorting follows SQLite's `ORDER BY`; see ``Value/compare(_:_:)``. A list of sort keys
/// is checked against the entity when a live query or a fetch runs its request.
public struct SortKey: Sendable, Hashable {
    /// The name of the attribute to sort by.
    public var attribute: String
    /// True for ascending order (null first), false for descending order (null last).
    public var ascending: Bool

    /// Creates a sort descriptor.
    public init(_ attribute: String, ascending: Bool = true) {
        self.attribute = attribute
        self.ascending = ascending
    }
}

extension SortKey: CustomStringConvertible {
    /// The attribute name and `asc` or `desc`, e.g. `day desc`.
    public var description: String { "\(attribute) \(ascending ? "asc" : "desc")" }
}
