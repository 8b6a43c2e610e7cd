import Roster
import RosterJSON

/// Something in a script run that records trace events: a live query's or a live count's
/// recorder. The runner takes their events after each line, in the order they were registered.
protocol EventSource: AnyObject {
    /// The events recorded since the last call.
    func takeEvents() -> [JSONObject]
}

/// The delegate of one live query in a script run: writes every callback it receives as a
/// trace event, and after each group the batch the adapter makes of it and the snapshot.
final class TraceRecorder: ResultsControllerDelegate, EventSource {
    let queryName: String
    let adapter: BatchAdapter
    /// Events recorded since the last ``takeEvents()``, without their line numbers.
    private var events: [JSONObject] = []
    private var group = ChangeGroup<Value, Value>()

    init(queryName: String, adapter: BatchAdapter) {
        self.queryName = queryName
        self.adapter = adapter
    }

    /// The events recorded since the last call.
    func takeEvents() -> [JSONObject] {
        defer { events = [] }
        return events
    }

    /// Records the query's whole results as a `snapshot` event.
    func recordSnapshot(of controller: ResultsController) {
        let sections: [JSONValue] = controller.snapshot.map { section in
            .object(JSONObject(uniqueKeysWithValues: [
                ("name", ScriptValues.json(section.id)),
                ("keys", .array(section.items.map(ScriptValues.json))),
            ]))
        }
        let window = controller.window.map { [("window", ScriptWindow.json($0))] } ?? []
        record("snapshot", window + [("sections", .array(sections))])
    }

    func controller(_ controller: ResultsController, didChangeCounts counts: ResultsCounts) {
        record("counts", [
            ("total", .integer(Int64(counts.total))),
            ("sections", .array(counts.sections.map { section in
                .object(JSONObject(uniqueKeysWithValues: [("name", ScriptValues.json(section.name)), ("count", .integer(Int64(section.numberOfObjects)))]))
            })),
        ])
    }

    /// Records every section's aggregates and the totals: what a query prints when it is
    /// registered.
    func recordAllAggregates(of controller: ResultsController) {
        guard let total = controller.aggregates else { return }
        let sections = (controller.counts?.sections ?? []).compactMap { section in
            controller.aggregates(forSectionName: section.name).map { (name: section.name, values: $0) }
        }
        recordAggregates(total: total, sections: sections)
    }

    func controller(_ controller: ResultsController, didChangeAggregates change: AggregateChange) {
        recordAggregates(total: change.total, sections: change.sections.map { (name: $0.name, values: $0.values) })
    }

    private func recordAggregates(total: AggregateValues, sections: [(name: Value, values: AggregateValues)]) {
        func fields(_ values: AggregateValues) -> [(String, JSONValue)] {
            [("count", .integer(Int64(values.numberOfObjects))),
             ("values", .object(JSONObject(uniqueKeysWithValues: zip(values.names, values.values.map(ScriptValues.json)).map { ($0, $1) })))]
        }
        record("aggregates", [
            ("total", .object(JSONObject(uniqueKeysWithValues: fields(total)))),
            ("sections", .array(sections.map { section in
                .object(JSONObject(uniqueKeysWithValues: [("name", ScriptValues.json(section.name))] + fields(section.values)))
            })),
        ])
    }

    func controller(_ controller: ResultsController, willResyncBecause reason: ResyncReason) {
        record("resync", [("reason", .string(reason.code))])
    }

    func controller(_ controller: ResultsController, didFailWith error: StoreError) {
        if heldErrors != nil {
            heldErrors?.append(error)
            return
        }
        record("error", [("message", .string("\(error)"))])
    }

    /// Errors heard while a query registers (an aggregate out of range from the start),
    /// printed after its `snapshot`, `counts` and `aggregates`, as a commit's are after its
    /// `aggregates`; nil when errors print as they come.
    private var heldErrors: [StoreError]?

    /// Holds the errors heard from now on until ``printHeldErrors()``.
    func holdErrors() {
        heldErrors = heldErrors ?? []
    }

    /// Prints the errors held since ``holdErrors()``, in order, and prints the next ones as
    /// they come.
    func printHeldErrors() {
        let held = heldErrors ?? []
        heldErrors = nil
        for error in held { record("error", [("message", .string("\(error)"))]) }
    }

    func controllerWillChangeContent(_ controller: ResultsController) {
        group = ChangeGroup()
        record("willChange", [])
    }

    func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {
        group.sectionChanges.append(SectionChange(type: type, index: sectionIndex, section: section.name))
        record("section", [
            ("change", .string(type == .insert ? "insert" : "delete")),
            ("index", .integer(Int64(sectionIndex))),
            ("name", ScriptValues.json(section.name)),
        ])
    }

    func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
        // The callbacks come in the order of the controller's group, whose changes name
        // their changed attributes when the query asked for them.
        let position = group.objectChanges.count
        let changes = controller.lastChange?.objectChanges ?? []
        let changed = position < changes.count && changes[position].item == object.key ? changes[position].changedAttributes : nil
        group.objectChanges.append(ObjectChange(type: type, item: object.key, from: indexPath, to: newIndexPath, changedAttributes: changed))
        var fields: [(String, JSONValue)] = [("change", .string(Self.name(of: type))), ("key", ScriptValues.json(object.key))]
        if let indexPath { fields.append(("from", ScriptValues.json(indexPath))) }
        if let newIndexPath { fields.append(("to", ScriptValues.json(newIndexPath))) }
        // Named on updates and moves (null where unknown: a resync's updates, a move that
        // changed nothing).
        if controller.request.reportsChangedAttributes && (type == .update || type == .move) {
            fields.append(("changed", changed.map { .array($0.map(JSONValue.string)) } ?? .null))
        }
        record("object", fields)
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        record("didChange", [])
        let batch = adapter.batch(for: group)
        func paths(_ paths: [IndexPath]) -> JSONValue { .array(paths.map(ScriptValues.json)) }
        // A query that splits its updates adds reconfigureItems; every other batch is as it was.
        let reconfigures = adapter.reloadingAttributes == nil ? [] : [("reconfigureItems", paths(batch.reconfigureItems))]
        record("batch", [
            ("deleteSections", .array(batch.deleteSections.map { .integer(Int64($0)) })),
            ("insertSections", .array(batch.insertSections.map { .integer(Int64($0)) })),
            ("deleteItems", paths(batch.deleteItems)),
            ("insertItems", paths(batch.insertItems)),
            ("reloadItems", paths(batch.reloadItems)),
            ("moveItems", .array(batch.moveItems.map { .array([ScriptValues.json($0.from), ScriptValues.json($0.to)]) })),
        ] + reconfigures)
        recordSnapshot(of: controller)
    }

    private func record(_ event: String, _ fields: [(String, JSONValue)]) {
        events.append(JSONObject(uniqueKeysWithValues: [("query", .string(queryName)), ("event", .string(event))] + fields))
    }

    private static func name(of type: ObjectChangeType) -> String {
        switch type {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}
