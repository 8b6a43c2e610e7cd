/// A list of sort descriptors checked against an entity, ending with its key.
///
/// The key, ascending, is appended as the last sort key unless the list already names
/// it, so two objects never tie; an attribute named twice counts where it first appears.
/// ``orderBySQL`` and ``compare(_:_:)`` give the same order, SQLite's `ORDER BY`.
///
/// ```swift
/// let sort = try BoundSort([SortKey("day", ascending: false), SortKey("rank")], entity: post)
/// sort.orderBySQL   // "day" COLLATE BINARY DESC, "rank" COLLATE BINARY ASC, "id" COLLATE BINARY ASC
/// rows.sort { sort.compare($0, $1) < 0 }
/// ```
package struct BoundSort: Sendable, Hashable {
    /// The sort keys in order of precedence, the key attribute included.
    package let descriptors: [SortKey]
    /// The index in the entity's attributes of each sort key.
    package let attributeIndexes: [Int]
    /// The direction of each sort key.
    package let ascending: [Bool]

    /// Checks the descriptors against `entity` and completes them with its key.
    ///
    /// - Throws: ``SchemaError`` naming the attribute and the entity when the entity has
    ///   no attribute of that name.
    package init(_ descriptors: [SortKey], entity: Entity) throws(SchemaError) {
        var kept: [SortKey] = []
        var indexes: [Int] = []
        for descriptor in descriptors {
            guard let index = entity.index(of: descriptor.attribute) else {
                throw SchemaError("sort: entity '\(entity.name)' has no attribute '\(descriptor.attribute)'")
            }
            guard !indexes.contains(index) else { continue }
            kept.append(descriptor)
            indexes.append(index)
        }
        if !indexes.contains(entity.keyIndex) {
            kept.append(SortKey(entity.key.name))
            indexes.append(entity.keyIndex)
        }
        self.descriptors = kept
        self.attributeIndexes = indexes
        self.ascending = kept.map(\.ascending)
    }

    /// The terms of an `ORDER BY` clause, e.g. `"day" COLLATE BINARY DESC, "rank" COLLATE
    /// BINARY ASC, "id" COLLATE BINARY ASC`.
    ///
    /// Each term names the BINARY collation (which numbers ignore), so that the order is
    /// ``compare(_:_:)``'s even when another process rebuilt a column with another
    /// collation; an index on the columns, which Roster creates with BINARY, still serves it.
    package var orderBySQL: String {
        descriptors.map { "\(Identifier.quoted($0.attribute)) COLLATE BINARY \($0.ascending ? "ASC" : "DESC")" }
            .joined(separator: ", ")
    }

    /// Conditions that together select the rows sorting before a row with these sort
    /// values (``sortKey(of:)``), or after it, in ``orderBySQL``'s order, as disjoint
    /// ranges an index on the sort serves one by one: for each sort key, the rows equal on
    /// the keys before it and before (after) on it. Nulls sort first ascending and last
    /// descending, as in `ORDER BY`; text compares by bytes. Each condition comes with the
    /// values its `?`s take, in order.
    package func ranges(of sortValues: [Value], after: Bool) -> [(sql: String, values: [Value])] {
        let positions = descriptors.indices.filter { $0 < sortValues.count }
        var ranges: [(sql: String, values: [Value])] = []
        for position in after ? positions.reversed() : positions {
            var prefix: [String] = []
            var prefixValues: [Value] = []
            for earlier in 0..<position {
                let column = Identifier.quoted(descriptors[earlier].attribute)
                if sortValues[earlier].isNull {
                    prefix.append("\(column) IS NULL")
                } else {
                    prefix.append("\(column) = ? COLLATE BINARY")
                    prefixValues.append(sortValues[earlier])
                }
            }
            // After a value in one direction is before it in the other, ranges reversed.
            let ascending = descriptors[position].ascending != after
            var strict = Self.before(sortValues[position], column: Identifier.quoted(descriptors[position].attribute), ascending: ascending)
            if after { strict.reverse() }
            for (condition, values) in strict {
                ranges.append(((prefix + [condition]).joined(separator: " AND "), prefixValues + values))
            }
        }
        return ranges
    }

    /// The values of one column that sort before `value`, as disjoint ranges in order.
    private static func before(_ value: Value, column: String, ascending: Bool) -> [(String, [Value])] {
        switch (ascending, value.isNull) {
        case (true, true): []
        case (true, false): [("\(column) IS NULL", []), ("\(column) < ? COLLATE BINARY", [value])]
        case (false, true): [("\(column) IS NOT NULL", [])]
        case (false, false): [("\(column) > ? COLLATE BINARY", [value])]
        }
    }

    /// ``orderBySQL`` backwards: the rows nearest a row first, going up.
    package var reversedOrderBySQL: String {
        descriptors.map { "\(Identifier.quoted($0.attribute)) COLLATE BINARY \($0.ascending ? "DESC" : "ASC")" }
            .joined(separator: ", ")
    }

    /// Compares two rows of the entity (values in attribute order): -1, 0 or 1.
    ///
    /// - Complexity: O(*k*) value comparisons for *k* sort keys.
    package func compare(_ a: [Value], _ b: [Value]) -> Int {
        for (position, index) in attributeIndexes.enumerated() {
            let order = Value.compare(a[index], b[index])
            if order != 0 { return ascending[position] ? order : -order }
        }
        return 0
    }

    /// The values of the sort keys of a row, in sort order: what ``compareKeys(_:_:)`` takes.
    package func sortKey(of row: [Value]) -> [Value] {
        attributeIndexes.map { row[$0] }
    }

    /// Compares two sort keys made by ``sortKey(of:)``: -1, 0 or 1.
    ///
    /// - Complexity: O(*k*) value comparisons for *k* sort keys.
    package func compareKeys(_ a: [Value], _ b: [Value]) -> Int {
        for position in ascending.indices {
            let order = Value.compare(a[position], b[position])
            if order != 0 { return ascending[position] ? order : -order }
        }
        return 0
    }
}
