import RosterUpdates

extension ResultsController {
    /// The results, section by section. Sections are never empty; with no objects there
    /// are no sections. O(n): prefer ``object(at:)`` and ``numberOfObjects(inSection:)``.
    public var sections: [ResultsSection] {
        (0..<engine.numberOfSections).map { index in
            ResultsSection(name: engine.sectionName(index),
                           objects: engine.sectionRange(index).map { Object(entity: engine.query.entity, values: engine.row(atRank: $0)) })
        }
    }

    /// All results, in order. O(n).
    public var fetchedObjects: [Object] {
        engine.rows.map { Object(entity: engine.query.entity, values: $0) }
    }

    /// The number of objects in the results.
    public var numberOfObjects: Int { engine.count }

    /// The number of sections.
    public var numberOfSections: Int { engine.numberOfSections }

    /// The number of objects in section `section`. O(log n).
    public func numberOfObjects(inSection section: Int) -> Int { engine.sectionRange(section).count }

    /// The object at an index path. O(log n).
    ///
    /// - Precondition: the index path is inside the results.
    public func object(at indexPath: IndexPath) -> Object {
        let range = engine.sectionRange(indexPath.section)
        precondition(indexPath.item >= 0 && indexPath.item < range.count, "index path \(indexPath) is outside the results")
        return Object(entity: engine.query.entity, values: engine.row(atRank: range.lowerBound + indexPath.item))
    }

    /// The index path of the object with this key, or nil when it is not in the results.
    ///
    /// - Complexity: O(log n).
    public func indexPath(for key: Value) -> IndexPath? {
        engine.indexPath(for: key)
    }

    /// The results as sections of keys: what the change callbacks turn the previous
    /// snapshot into. O(n).
    public var snapshot: [Section<Value, Value>] { engine.snapshot }
}
