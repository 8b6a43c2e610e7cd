/// A live query's aggregates (``FetchRequest/aggregates``) over one group of its objects:
/// a section, or the whole results.
///
/// - A **count** is the number of the group's objects for which its predicate is true: an
///   integer.
/// - A **sum** adds the attribute's non-null values: an integer for an `integer` or `bool`
///   attribute (`true` counts 1), exact; a double for a `double` attribute, compensated
///   (within a few units in the last place of the exact sum, as SQLite's `SUM`). A group
///   with no values to add sums to `0` (or `0.0`), as SQL's `TOTAL` does, not null.
///   An integer sum outside Int64's range is null, and the live query reports
///   ``StoreError/Code/aggregateOverflow`` through its error channel when it goes out of
///   range; it reads again once values leave that bring it back. A double sum of both
///   infinities is null.
public struct AggregateValues: Sendable, Hashable {
    /// The number of objects in the group.
    public let numberOfObjects: Int
    /// The aggregates' names, in the request's order.
    public let names: [String]
    /// The aggregates' values, in the request's order.
    public let values: [Value]

    init(numberOfObjects: Int, names: [String], values: [Value]) {
        self.numberOfObjects = numberOfObjects
        self.names = names
        self.values = values
    }

    /// The value of the aggregate with this name, or nil when the request has none by it.
    public subscript(_ name: String) -> Value? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// One section's aggregates, named by the section.
public struct SectionAggregates: Sendable, Hashable {
    /// The section's name (null without a section attribute).
    public let name: Value
    /// Its aggregates; for a section that is gone, zero objects and zero values.
    public let values: AggregateValues
}

/// What a change did to a live query's aggregates: the totals, and each section whose
/// values changed. Reported with the row changes of the same commits (after them), so a
/// list and its badges never disagree.
public struct AggregateChange: Sendable, Hashable {
    /// The aggregates over the whole results, after the change.
    public let total: AggregateValues
    /// The sections whose aggregates changed, in the order of the query's sections (a
    /// section that is gone where its name would sort), with their values after the change.
    public let sections: [SectionAggregates]
}
