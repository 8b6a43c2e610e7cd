/// One section of a live query's results: objects that share the section attribute's value.
public struct ResultsSection: Sendable, Hashable {
    /// The section attribute's value; null when the query has no sections.
    public let name: Value
    /// The section's objects, in order.
    public let objects: [Object]

    /// The name as text, as NSFetchedResultsController's `name` is a `String`: the
    /// value's ``Value/text``, empty for null (objects without a value, or no sections).
    public var title: String { name.text ?? "" }

    /// The number of objects in the section (never zero: empty sections do not exist).
    public var numberOfObjects: Int { objects.count }
}
