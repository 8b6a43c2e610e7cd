import CSQLite

extension IncrementalResults {
    /// Reads an ordered fetch (``BoundQuery/orderSQL``: the key, then the other sort
    /// values) row by row into flat arrays for the arena, noting the sections as they go
    /// by. Row *i* becomes id *i*.
    ///
    /// This is the whole of `performFetch` at a million rows, so it stays close to
    /// SQLite's buffers and keeps its arrays in a local value (no class storage, no
    /// exclusivity checks in the loop): a sort value byte-for-byte equal to the previous
    /// row's (a section name, a day shared by thousands of rows) is kept rather than built
    /// again, a new section is seen without comparing names, and each key's hash is taken
    /// as it is read, for ``KeyIndex`` to be filled at once.
    struct OrderReader {
        /// The attribute types of the columns, in ``BoundQuery/orderColumns`` order.
        private let types: [AttributeType]
        private let section: SectionSource
        private(set) var keys: [Value] = []
        private(set) var keyHashes: [Int] = []
        private(set) var sortValues: [Value] = []
        /// The section names in order, and each one's row count.
        private(set) var names: [Value] = []
        private(set) var counts: [Value: Int] = [:]
        /// The sort values of the row read last.
        private var previous: [Value]
        /// Rows of the last name in `names` whose count is not in `counts` yet.
        private var currentCount = 0

        /// Where a row's section name is: nowhere (one section, named null), the first sort
        /// value held in the arena, or the key (a query sectioned by its key).
        private enum SectionSource { case none, firstSortValue, key }

        init(query: BoundQuery, slots: [Int?], width: Int) {
            types = query.orderColumns.map { query.entity.attributes[$0].type }
            if query.sectionIndex == nil {
                section = .none
            } else {
                section = slots.first.flatMap { $0 } == nil ? .key : .firstSortValue
            }
            previous = [Value](repeating: .null, count: width)
        }

        /// Adds the statement's current row.
        mutating func read(_ statement: Statement) {
            let (key, hash) = statement.columnWithHash(0, as: types[0])
            keys.append(key)
            keyHashes.append(hash)
            var firstIsNew = keys.count == 1
            for position in previous.indices {
                let (value, isSame) = statement.column(position + 1, as: types[position + 1], reusing: previous[position])
                if position == 0 && !isSame { firstIsNew = true }
                previous[position] = value
                sortValues.append(value)
            }
            switch section {
            case .none:
                if keys.count == 1 { names.append(.null) }
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

        /// Records the count of the section being read; call it after the last row.
        mutating func finishSection() {
            guard currentCount > 0, let name = names.last else { return }
            counts[name] = currentCount
            currentCount = 0
        }
    }
}
