import CSQLite

extension IncrementalResults {
    /// Reads an ordered fetch (``BoundQuery/orderSQL``: the key, then the other sort
    /// values) into the arena row by row, noting the sections as they go by.
    ///
    /// This is the whole of `performFetch` at a million rows, so it stays close to
    /// SQLite's buffers: a sort value byte-for-byte equal to the previous row's (the
    /// section name, a day shared by thousands of rows) is kept rather than built again,
    /// and a new section is seen without comparing names.
    final class OrderReader {
        private let arena: Arena
        /// The attribute types of the columns, in ``BoundQuery/orderColumns`` order.
        private let types: [AttributeType]
        /// Where a row's section name is: nowhere (one section, named null), the first sort
        /// value held in the arena, or the key (a query sectioned by its key).
        private let section: SectionSource
        /// The sort values of the row read last.
        private var previous: [Value]
        private(set) var ids: [Int32] = []
        /// The section names in order, and each one's row count.
        private(set) var names: [Value] = []
        private(set) var counts: [Value: Int] = [:]

        private enum SectionSource { case none, firstSortValue, key }

        init(query: BoundQuery, arena: Arena) {
            self.arena = arena
            types = query.orderColumns.map { query.entity.attributes[$0].type }
            if query.sectionIndex == nil {
                section = .none
            } else {
                section = arena.slots.first.flatMap { $0 } == nil ? .key : .firstSortValue
            }
            previous = [Value](repeating: .null, count: arena.width)
        }

        /// Adds the statement's current row.
        func read(_ statement: Statement) {
            let key = statement.column(0, as: types[0])
            var firstIsNew = ids.isEmpty
            for position in previous.indices {
                let (value, isSame) = statement.column(position + 1, as: types[position + 1], reusing: previous[position])
                if position == 0 && !isSame { firstIsNew = true }
                previous[position] = value
            }
            let id = arena.append(key: key, sortValues: previous)
            ids.append(id)
            switch section {
            case .none:
                // One section, named null.
                if ids.count == 1 { names.append(.null) }
                currentCount += 1
            case .firstSortValue:
                // Rows come sorted by section first: a new value starts a new section.
                if firstIsNew {
                    finishSection()
                    names.append(previous[0])
                }
                currentCount += 1
            case .key:
                names.append(key)
                counts[key] = 1
            }
        }

        /// Rows of the last section name in `names` whose count is not in `counts` yet.
        private var currentCount = 0

        /// Records the count of the section being read; call it after the last row.
        func finishSection() {
            guard currentCount > 0, let name = names.last else { return }
            counts[name] = currentCount
            currentCount = 0
        }
    }
}
