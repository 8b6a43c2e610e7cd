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
            guard hasFetched else { return [] }
            if let shown = windowTracker?.shown {
                var start = 0
                return shown.map { section in
                    defer { start += section.items.count }
                    return ResultsSection(name: section.id, objects: Array(objects[start..<start + section.items.count]))
                }
            }
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
            guard hasFetched else { return [] }
            let expected = windowTracker.map { $0.shown.reduce(0) { $0 + $1.items.count } } ?? engine?.count ?? 0
            let rows = windowTracker.map { $0.shown.flatMap(\.items).compactMap { row(forKey: $0, in: engine) } } ?? engine?.rows ?? []
            guard rows.count == expected else {
                throw .database(DatabaseError(code: .error, message: "\(expected - rows.count) of the \(expected) \(query.entity.name) objects in the results could not be read"))
            }
            return rows.map { Object(entity: query.entity, values: $0) }
        }
    }

    /// The number of objects in the results (in the window, when there is one); 0 before
    /// ``performFetch()``. The whole results' count is ``counts``.
    public var numberOfObjects: Int {
        if let shown = windowTracker?.shown, hasFetched { return shown.reduce(0) { $0 + $1.items.count } }
        return engine?.count ?? 0
    }

    /// The number of sections (that the window's rows fall in, when there is one); 0
    /// before ``performFetch()``.
    public var numberOfSections: Int {
        if let shown = windowTracker?.shown, hasFetched { return shown.count }
        return engine?.numberOfSections ?? 0
    }

    /// The number of objects in section `section` (of the window, when there is one), or
    /// 0 when there is no such section. O(log n).
    public func numberOfObjects(inSection section: Int) -> Int {
        if let shown = windowTracker?.shown, hasFetched { return shown.indices.contains(section) ? shown[section].items.count : 0 }
        guard let engine, section >= 0, section < engine.numberOfSections else { return 0 }
        return engine.sectionRange(section).count
    }

    /// The object at an index path (window-relative, when there is a window), or nil when
    /// the path is outside the results or the object's row cannot be read now (a failed
    /// read, which the delegate hears, or a delete by another connection not delivered
    /// yet). O(log n).
    public func object(at indexPath: IndexPath) -> Object? {
        if let shown = windowTracker?.shown, hasFetched {
            guard shown.indices.contains(indexPath.section), shown[indexPath.section].items.indices.contains(indexPath.item),
                  let values = row(forKey: shown[indexPath.section].items[indexPath.item], in: engine) else { return nil }
            return Object(entity: query.entity, values: values)
        }
        guard let engine, indexPath.section >= 0, indexPath.section < engine.numberOfSections else { return nil }
        let range = engine.sectionRange(indexPath.section)
        guard indexPath.item >= 0, indexPath.item < range.count,
              let values = engine.row(atRank: range.lowerBound + indexPath.item) else { return nil }
        return Object(entity: query.entity, values: values)
    }

    /// The index path of the object with this key, or nil when it is not in the results
    /// (in the window, when there is one).
    ///
    /// - Complexity: O(log n); O(the window's size) with a window.
    public func indexPath(for key: Value) -> IndexPath? {
        if let shown = windowTracker?.shown, hasFetched {
            for (section, rows) in shown.enumerated() {
                if let item = rows.items.firstIndex(of: key) { return IndexPath(item: item, section: section) }
            }
            return nil
        }
        return engine?.indexPath(for: key)
    }

    /// The results (the window's rows, when there is one) as sections of keys: what the
    /// change callbacks turn the previous snapshot into. O(n).
    public var snapshot: [ListSection<Value, Value>] {
        shownNow
    }

    /// The rank of the object with this key in the whole results (counted from 0 over all
    /// sections, whatever the window shows), or nil when it is not in them: what an offset
    /// window moves to in order to keep a row on screen. O(log n). A window opened cold
    /// loads the whole results first (``loadResults()``), unless it is an offset window
    /// and the row is one of its rows; a failure to load reaches the delegate, and gives nil.
    public func rank(of key: Value) -> Int? {
        if let cold = coldWindow, let firstRank = cold.firstRank, let position = cold.keys.firstIndex(of: key) {
            return firstRank + position
        }
        if coldWindow != nil {
            do { try loadWholeResults() } catch {
                delegate?.controller(self, didFailWith: error)
                return nil
            }
        }
        return engine?.rank(ofKey: key)
    }

    /// Where to keep the user's place after a change (``ScrollPosition``): the row with
    /// `key` where it is now, or, when it left, the nearest row of `visibleBefore` that
    /// stayed (the first after it, else the nearest before it); nil when none stayed.
    ///
    /// - Parameters:
    ///   - key: the row whose place to keep, typically the first one on screen.
    ///   - visibleBefore: the keys the list showed before the change, in order (its
    ///     visible rows, or ``snapshot``'s items as they were), `key` among them.
    /// - Complexity: O(log n) per row tried; with a window, O(the window) per row.
    public func scrollPosition(keeping key: Value, visibleBefore: [Value]) -> ScrollPosition? {
        ScrollPosition.nearest(to: key, among: visibleBefore, locate: indexPath(for:))
            .map { ScrollPosition(key: $0.key, indexPath: $0.position, isSameRow: $0.key == key) }
    }
}
