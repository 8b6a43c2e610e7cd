import RosterUpdates

extension ResultsController {
    /// The results, section by section. Sections are never empty; with no objects there
    /// are no sections.
    public var sections: [ResultsSection] {
        sectionStarts.indices.map { index in
            let range = sectionRange(index)
            return ResultsSection(name: sectionStarts[index].name, objects: rows[range].map { Object(entity: query.entity, values: $0) })
        }
    }

    /// All results, in order.
    public var fetchedObjects: [Object] {
        rows.map { Object(entity: query.entity, values: $0) }
    }

    /// The number of objects in the results.
    public var numberOfObjects: Int { rows.count }

    /// The number of sections.
    public var numberOfSections: Int { sectionStarts.count }

    /// The number of objects in section `section`.
    public func numberOfObjects(inSection section: Int) -> Int { sectionRange(section).count }

    /// The object at an index path.
    ///
    /// - Precondition: the index path is inside the results.
    public func object(at indexPath: IndexPath) -> Object {
        let range = sectionRange(indexPath.section)
        precondition(indexPath.item >= 0 && indexPath.item < range.count, "index path \(indexPath) is outside the results")
        return Object(entity: query.entity, values: rows[range.lowerBound + indexPath.item])
    }

    /// The index path of the object with this key, or nil when it is not in the results.
    ///
    /// - Complexity: O(log n).
    public func indexPath(for key: Value) -> IndexPath? {
        guard let row = rowByKey[key] else { return nil }
        let position = insertionIndex(of: row)
        // Find the last section that starts at or before the position.
        var low = 0
        var high = sectionStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle].start <= position { low = middle } else { high = middle - 1 }
        }
        return IndexPath(item: position - sectionStarts[low].start, section: low)
    }

    /// The results as sections of keys: what a diffable data source takes, and what the
    /// change callbacks turn the previous snapshot into.
    public var snapshot: [Section<Value, Value>] {
        sectionStarts.indices.map { index in
            Section(id: sectionStarts[index].name, items: rows[sectionRange(index)].map { query.key(of: $0) })
        }
    }

    func sectionRange(_ index: Int) -> Range<Int> {
        precondition(index >= 0 && index < sectionStarts.count, "section \(index) is outside the results (\(sectionStarts.count) sections)")
        let end = index + 1 < sectionStarts.count ? sectionStarts[index + 1].start : rows.count
        return sectionStarts[index].start..<end
    }

    /// The first position in `rows` whose row does not sort before `row`.
    func insertionIndex(of row: [Value]) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if query.sort.compare(rows[middle], row) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
