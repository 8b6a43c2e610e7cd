import RosterUpdates

extension ResultsController {
    /// The results, section by section. Sections are never empty; with no objects there
    /// are no sections. O(n): prefer ``object(at:)`` and ``numberOfObjects(inSection:)``.
    ///
    /// - Throws: ``StoreError`` when an object's row cannot be read (the delegate hears
    ///   why), rather than giving an object with missing values.
    public var sections: [ResultsSection] {
        get throws(StoreError) {
            let objects = try fetchedObjects
            guard let engine else { return [] }
            var start = 0
            return (0..<engine.numberOfSections).map { index in
                let count = engine.sectionRange(index).count
                defer { start += count }
                return ResultsSection(name: engine.sectionName(index), objects: Array(objects[start..<start + count]))
            }
        }
    }

    /// All results, in order. O(n).
    ///
    /// - Throws: ``StoreError`` when an object's row cannot be read: a read failed (the
    ///   delegate also hears why), or another connection deleted it in a commit that is not
    ///   delivered yet (``Store/pollExternalChanges()`` delivers it).
    public var fetchedObjects: [Object] {
        get throws(StoreError) {
            guard let engine else { return [] }
            let rows = engine.rows
            guard rows.count == engine.count else {
                throw .database(DatabaseError(code: .error, message: "\(engine.count - rows.count) of the \(engine.count) \(query.entity.name) objects in the results could not be read"))
            }
            return rows.map { Object(entity: query.entity, values: $0) }
        }
    }

    /// The number of objects in the results; 0 before ``performFetch()``.
    public var numberOfObjects: Int { engine?.count ?? 0 }

    /// The number of sections; 0 before ``performFetch()``.
    public var numberOfSections: Int { engine?.numberOfSections ?? 0 }

    /// The number of objects in section `section`, or 0 when there is no such section. O(log n).
    public func numberOfObjects(inSection section: Int) -> Int {
        guard let engine, section >= 0, section < engine.numberOfSections else { return 0 }
        return engine.sectionRange(section).count
    }

    /// The object at an index path, or nil when the path is outside the results or the
    /// object's row cannot be read now (a failed read, which the delegate hears, or a
    /// delete by another connection not delivered yet). O(log n).
    public func object(at indexPath: IndexPath) -> Object? {
        guard let engine, indexPath.section >= 0, indexPath.section < engine.numberOfSections else { return nil }
        let range = engine.sectionRange(indexPath.section)
        guard indexPath.item >= 0, indexPath.item < range.count,
              let values = engine.row(atRank: range.lowerBound + indexPath.item) else { return nil }
        return Object(entity: query.entity, values: values)
    }

    /// The index path of the object with this key, or nil when it is not in the results.
    ///
    /// - Complexity: O(log n).
    public func indexPath(for key: Value) -> IndexPath? {
        engine?.indexPath(for: key)
    }

    /// The results as sections of keys: what the change callbacks turn the previous
    /// snapshot into. O(n).
    public var snapshot: [ListSection<Value, Value>] { engine?.snapshot ?? [] }
}
