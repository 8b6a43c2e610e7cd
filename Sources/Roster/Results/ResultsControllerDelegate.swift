/// Receives what changed in a ``ResultsController``'s results, with
/// NSFetchedResultsController's conventions.
///
/// For each committed transaction (or sort or predicate change) that changes the results,
/// the controller calls, in order: ``controllerWillChangeContent(_:)``; then
/// ``controller(_:didChange:atSectionIndex:for:)`` for each section deleted (index before
/// the change) and inserted (index after); then
/// ``controller(_:didChange:at:for:newIndexPath:)`` for each object inserted (`newIndexPath`
/// only), deleted (`indexPath` only), moved (both) or updated (both: before and after);
/// then ``controllerDidChangeContent(_:)``. A transaction that does not change the results
/// calls nothing.
///
/// Callbacks arrive synchronously on the isolation domain that owns the store, after the
/// commit, before the call that committed returns. During them the controller already
/// shows the new results. Every method has an empty default. A failure to read what a
/// commit changed never throws from the write that committed (it did commit): it reaches
/// the delegate as ``controller(_:didFailWith:)``, and the group that makes up for it is
/// announced by ``controller(_:willResyncBecause:)``.
public protocol ResultsControllerDelegate: AnyObject {
    /// The controller is about to report a group of changes.
    func controllerWillChangeContent(_ controller: ResultsController)
    /// A section was inserted (index after the change) or deleted (index before it).
    func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType)
    /// An object was inserted, deleted, moved or updated; `indexPath` is before the change,
    /// `newIndexPath` after it.
    func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?)
    /// The group of changes is complete.
    func controllerDidChangeContent(_ controller: ResultsController)
    /// The next group of changes is a resync: the controller could not apply commits row by
    /// row, re-fetched, and reports the difference from the results the delegate last saw
    /// (every object that stays is reported updated). Called just before
    /// ``controllerWillChangeContent(_:)``.
    func controller(_ controller: ResultsController, willResyncBecause reason: ResyncReason)
    /// Reading what a commit changed failed. The results stay as the delegate last saw
    /// them; the controller reads again when the store next delivers changes (after a
    /// commit or ``Store/pollExternalChanges()``) and then reports a resync group.
    func controller(_ controller: ResultsController, didFailWith error: StoreError)
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: ResultsController) {}
    public func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {}
    public func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: ResultsController) {}
    public func controller(_ controller: ResultsController, willResyncBecause reason: ResyncReason) {}
    public func controller(_ controller: ResultsController, didFailWith error: StoreError) {}
}

/// A section as a callback sees it: its name and how many objects it holds (before the
/// change for a deleted section, after it for an inserted one).
public struct SectionInfo: Sendable, Hashable {
    /// The section attribute's value shared by the section's objects; null without sections.
    public let name: Value
    /// The number of objects in the section.
    public let numberOfObjects: Int
}
