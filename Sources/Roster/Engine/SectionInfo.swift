/// A section as a callback sees it: its name and how many objects it holds (before the
/// change for a deleted section, after it for an inserted one); in ``ResultsCounts``, how
/// many the whole results hold.
public struct SectionInfo: Sendable, Hashable {
    /// The section attribute's value shared by the section's objects; null without sections.
    public let name: Value
    /// The number of objects in the section.
    public let numberOfObjects: Int

    /// The name as text, as NSFetchedResultsController's `name` is a `String`: the
    /// value's ``Value/text``, empty for null (objects without a value, or no sections).
    public var title: String { name.text ?? "" }
}
