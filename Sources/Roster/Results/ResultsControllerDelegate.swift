/// Receives what changed in a live query's results, with NSFetchedResultsController's
/// conventions: the one delegate protocol of ``ResultsController`` and ``LiveResults``.
///
/// `Controller` is the live query that reports: ``ResultsController`` (the default, when a
/// delegate implements none of the methods) or ``LiveResults``
/// (see ``LiveResults/deliver(to:isolation:)``). It is inferred from the methods you write.
///
/// For each committed transaction (or sort or predicate change) that changes the results,
/// the live query calls, in order: ``controllerWillChangeContent(_:)``; then
/// ``controller(_:didChange:atSectionIndex:for:)`` for each section deleted (index before
/// the change) and inserted (index after); then
/// ``controller(_:didChange:at:for:newIndexPath:)`` for each object inserted (`newIndexPath`
/// only), deleted (`indexPath` only), moved (both) or updated (both: before and after);
/// then ``controllerDidChangeContent(_:)``. A transaction that does not change the results
/// calls nothing.
///
/// Where callbacks arrive: a ``ResultsController`` calls them synchronously on the
/// isolation domain that owns the store, after the commit, before the call that committed
/// returns; during them the controller already shows the new results. ``LiveResults``
/// calls them on the actor that runs ``LiveResults/deliver(to:isolation:)``. Every method
/// has an empty default. A failure to read what a commit changed never throws from the
/// write that committed (it did commit): it reaches the delegate as
/// ``controller(_:didFailWith:)``, and the group that makes up for it is announced by
/// ``controller(_:willResyncBecause:)``.
public protocol ResultsControllerDelegate<Controller>: AnyObject {
    /// The live query whose changes the delegate receives.
    associatedtype Controller: AnyObject = ResultsController
    /// The live query is about to report a group of changes.
    func controllerWillChangeContent(_ controller: Controller)
    /// A section was inserted (index after the change) or deleted (index before it).
    func controller(_ controller: Controller, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType)
    /// An object was inserted, deleted, moved or updated; `indexPath` is before the change,
    /// `newIndexPath` after it.
    func controller(_ controller: Controller, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?)
    /// The group of changes is complete.
    func controllerDidChangeContent(_ controller: Controller)
    /// The next group of changes is a resync: the live query could not apply commits row
    /// by row, re-fetched, and reports the difference from the results the delegate last
    /// saw (every object that stays is reported updated). Called just before
    /// ``controllerWillChangeContent(_:)``.
    func controller(_ controller: Controller, willResyncBecause reason: ResyncReason)
    /// Reading what a commit changed failed. The results stay as the delegate last saw
    /// them; the live query reads again when the store next delivers changes (after a
    /// commit or ``Store/pollExternalChanges()``) and then reports a resync group.
    func controller(_ controller: Controller, didFailWith error: StoreError)
    /// The whole results' counts changed (``ResultsCounts``): called only for a live query
    /// with a window (``ResultsWindow``), after the group of the commit that changed them
    /// (after ``controllerDidChangeContent(_:)``), or alone when the window's rows did not
    /// change — rows came or went outside it. Arrives where the other callbacks do.
    func controller(_ controller: Controller, didChangeCounts counts: ResultsCounts)
    /// The live query's aggregates changed (``FetchRequest/aggregates``): the totals and
    /// each section whose values changed. Called after the group of the commits that
    /// changed them (after ``controllerDidChangeContent(_:)`` and any
    /// ``controller(_:didChangeCounts:)``), or alone when no row the list shows changed.
    /// Arrives where the other callbacks do.
    func controller(_ controller: Controller, didChangeAggregates change: AggregateChange)
    /// The section index title of a section (``ResultsController/sectionIndexTitles``); nil
    /// (the default) takes ``ResultsController/sectionIndexTitle(forSectionName:)``'s.
    /// Asked when the titles are read, on the caller's isolation.
    func controller(_ controller: Controller, sectionIndexTitleForSectionName name: Value) -> String?
}

extension ResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: Controller) {}
    public func controller(_ controller: Controller, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {}
    public func controller(_ controller: Controller, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: Controller) {}
    public func controller(_ controller: Controller, willResyncBecause reason: ResyncReason) {}
    public func controller(_ controller: Controller, didFailWith error: StoreError) {}
    public func controller(_ controller: Controller, didChangeCounts counts: ResultsCounts) {}
    public func controller(_ controller: Controller, didChangeAggregates change: AggregateChange) {}
    public func controller(_ controller: Controller, sectionIndexTitleForSectionName name: Value) -> String? { nil }

    /// Plays one change group as callbacks: the one emitter of ``ResultsController`` and
    /// ``LiveResults``.
    ///
    /// - Parameters:
    ///   - sectionCount: the number of objects of a changed section (before the change
    ///     for a delete, after it for an insert).
    ///   - object: the object of the object change at this position in the group; nil
    ///     skips it (callers make sure every object is there before they emit).
    func receive(_ group: ChangeGroup<Value, Value>, resync: ResyncReason?, from controller: Controller,
                 sectionCount: (SectionChange<Value>) -> Int, object: (Int, ObjectChange<Value>) -> Object?) {
        if let resync { self.controller(controller, willResyncBecause: resync) }
        controllerWillChangeContent(controller)
        for section in group.sectionChanges {
            self.controller(controller, didChange: SectionInfo(name: section.section, numberOfObjects: sectionCount(section)),
                            atSectionIndex: section.index, for: section.type)
        }
        for position in group.objectChanges.indices {
            guard let value = object(position, group.objectChanges[position]) else { continue }
            // Read in place: a copy of each change was a tenth of the callbacks' cost.
            self.controller(controller, didChange: value, at: group.objectChanges[position].from,
                            for: group.objectChanges[position].type, newIndexPath: group.objectChanges[position].to)
        }
        controllerDidChangeContent(controller)
    }
}
