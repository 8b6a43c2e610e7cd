import RosterUpdates

extension ResultsController {
    /// The results, section by section. Sections are never empty; with no objects there
    /// are no sections.
    public var sections: [ResultsSection] {
        state.sectionStarts.indices.map { index in
            ResultsSection(name: state.sectionStarts[index].name,
                           objects: state.rows[state.sectionRange(index)].map { Object(entity: state.query.entity, values: $0) })
        }
    }

    /// All results, in order.
    public var fetchedObjects: [Object] {
        state.rows.map { Object(entity: state.query.entity, values: $0) }
    }

    /// The number of objects in the results.
    public var numberOfObjects: Int { state.rows.count }

    /// The number of sections.
    public var numberOfSections: Int { state.sectionStarts.count }

    /// The number of objects in section `section`.
    public func numberOfObjects(inSection section: Int) -> Int { state.sectionRange(section).count }

    /// The object at an index path.
    ///
    /// - Precondition: the index path is inside the results.
    public func object(at indexPath: IndexPath) -> Object {
        Object(entity: state.query.entity, values: state.row(at: indexPath))
    }

    /// The index path of the object with this key, or nil when it is not in the results.
    ///
    /// - Complexity: O(log n).
    public func indexPath(for key: Value) -> IndexPath? {
        state.indexPath(for: key)
    }

    /// The results as sections of keys: what the change callbacks turn the previous
    /// snapshot into.
    public var snapshot: [Section<Value, Value>] { state.snapshot }
}
