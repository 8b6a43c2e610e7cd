import Foundation
import Roster

/// Records every delegate callback of a ``ResultsController`` as a change group, and
/// notes any callback out of FRC's order: the one change recorder of the tests.
public final class GroupRecorder: ResultsControllerDelegate {
    /// A recorder with nothing recorded yet.
    public init() {}

    public private(set) var groups: [ChangeGroup<Value, Value>] = []
    private var current: ChangeGroup<Value, Value>?
    public private(set) var callbackOrderProblems: [String] = []

    public func takeGroups() -> [ChangeGroup<Value, Value>] {
        defer { groups = [] }
        return groups
    }

    public func controllerWillChangeContent(_ controller: ResultsController) {
        if current != nil { callbackOrderProblems.append("willChange twice without didChange") }
        current = ChangeGroup()
    }

    public func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {
        guard current != nil else { return callbackOrderProblems.append("section change outside willChange/didChange") }
        if !(current!.objectChanges.isEmpty) { callbackOrderProblems.append("section change after an object change") }
        current!.sectionChanges.append(SectionChange(type: type, index: sectionIndex, section: section.name))
    }

    public func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
        guard current != nil else { return callbackOrderProblems.append("object change outside willChange/didChange") }
        // The controller's group names the changed attributes; its callbacks come in its order.
        let position = current!.objectChanges.count
        let changes = controller.lastChange?.objectChanges ?? []
        let changed = position < changes.count && changes[position].item == object.key ? changes[position].changedAttributes : nil
        current!.objectChanges.append(ObjectChange(type: type, item: object.key, from: indexPath, to: newIndexPath))
        objects.append((type, object, changed, controller.request))
    }

    /// Every object change heard, with the object the delegate was given and the
    /// attributes the change names as changed (``FetchRequest/reportsChangedAttributes``),
    /// under the controller's request then, in order.
    public private(set) var objects: [(type: ObjectChangeType, object: Object, changed: [String]?, request: FetchRequest)] = []

    public func takeObjects() -> [(type: ObjectChangeType, object: Object, changed: [String]?, request: FetchRequest)] {
        defer { objects = [] }
        return objects
    }

    public func controllerDidChangeContent(_ controller: ResultsController) {
        guard let current else { return callbackOrderProblems.append("didChange without willChange") }
        groups.append(current)
        self.current = nil
    }

    /// Failures the delegate heard, and the reasons of resyncs announced, in order.
    public private(set) var errors: [StoreError] = []
    public private(set) var resyncs: [ResyncReason] = []

    /// Forgets the resyncs announced so far.
    public func forgetResyncs() { resyncs = [] }

    public func controller(_ controller: ResultsController, didFailWith error: StoreError) {
        errors.append(error)
    }

    /// The whole results' counts heard by a windowed controller, in order.
    public private(set) var counts: [ResultsCounts] = []

    public func takeCounts() -> [ResultsCounts] {
        defer { counts = [] }
        return counts
    }

    public func controller(_ controller: ResultsController, didChangeCounts counts: ResultsCounts) {
        if current != nil { callbackOrderProblems.append("counts reported inside a group") }
        self.counts.append(counts)
    }

    /// The aggregate changes heard, in order.
    public private(set) var aggregateChanges: [AggregateChange] = []

    public func takeAggregateChanges() -> [AggregateChange] {
        defer { aggregateChanges = [] }
        return aggregateChanges
    }

    public func controller(_ controller: ResultsController, didChangeAggregates change: AggregateChange) {
        if current != nil { callbackOrderProblems.append("aggregates reported inside a group") }
        aggregateChanges.append(change)
    }

    public func controller(_ controller: ResultsController, willResyncBecause reason: ResyncReason) {
        if current != nil { callbackOrderProblems.append("resync announced inside a group") }
        resyncs.append(reason)
    }
}
