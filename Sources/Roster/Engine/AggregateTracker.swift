/// A live query's aggregates (``FetchRequest/aggregates``), per section and in total, kept
/// current from each commit's touched rows: O(touched rows), whatever the results hold.
///
/// It stands apart from the results engine and needs nothing of it: a touched row leaves
/// the group it was in (its section, by its row before, when that row matched the
/// predicate) and joins the group it is in now (likewise by its row after). So both live
/// queries, every commit path, windows and windows opened cold keep their aggregates the
/// same way; only a re-fetch (a new request, a resync) builds them again.
///
/// What the consumer last heard is noted group by group, the first time a change touches
/// a group, so that ``takeChange()`` reports each group whose values differ from what it
/// heard — over one commit or many coalesced, and across a rebuild.
struct AggregateTracker: Sendable {
    private(set) var query: BoundQuery
    private(set) var aggregates: BoundAggregates
    private var total: Group
    private var sections: [Value: Group] = [:]
    /// The values the consumer last heard of every group touched since then, with which of
    /// them overflowed; `heardTotal` nil: nothing touched.
    private var heardTotal: Heard?
    private var heardSections: [Value: Heard] = [:]

    private struct Group: Sendable {
        var objects = 0
        var sums: [AggregateSum]
    }

    private struct Heard: Sendable {
        var values: AggregateValues
        var overflowed: [Int]
    }

    /// Empty aggregates for the query's; nil when the query has none.
    init?(query: BoundQuery) {
        guard let aggregates = query.aggregates else { return nil }
        self.query = query
        self.aggregates = aggregates
        emptyGroup = Group(sums: Array(repeating: AggregateSum(), count: aggregates.terms.count))
        total = emptyGroup
    }

    /// The query's aggregates over `rows`, each a row of its results.
    init?(query: BoundQuery, rows: some Sequence<[Value]>) {
        self.init(query: query)
        for row in rows { include(row) }
    }

    /// Counts a row of the results in, while the aggregates are being built.
    mutating func include(_ row: [Value]) {
        accumulate(CollectionOfOne(row), in: query.sectionName(of: row), sign: 1)
    }

    // MARK: Reading

    /// The aggregates over the whole results.
    var totalValues: AggregateValues { values(of: total).values }

    /// The aggregates of the section with this name; nil when there is no such section.
    func values(ofSection name: Value) -> AggregateValues? {
        sections[name].map { values(of: $0).values }
    }

    /// An error for each aggregate that is out of range now, in total and section by
    /// section: what a consumer that starts with these aggregates is told.
    var overflows: [StoreError] {
        var errors = values(of: total).overflowed.map { overflow(of: $0, section: nil) }
        for name in orderedNames(Array(sections.keys)) {
            guard let group = sections[name] else { continue }
            errors += values(of: group).overflowed.map { overflow(of: $0, section: name) }
        }
        return errors
    }

    // MARK: Changing

    /// Takes a commit's touched rows (as the query sees them): each leaves the group its
    /// row before was in and joins the group its row now is in.
    mutating func apply(_ touched: [Value: TouchedRow]) {
        let width = query.entity.attributes.count
        // Rows leaving their groups, then rows joining theirs: a commit's rows of one section
        // (a renamed feed's) then come in runs, and each run finds its group once.
        var leaving: [[Value]] = []
        var joining: [[Value]] = []
        for row in touched.values where row.isChanged {
            // Rows as wide as the query's: the results and the aggregates are bound together
            // (``rebind(to:)``); any other cannot be placed.
            guard (row.before?.count ?? width) == width, (row.after?.count ?? width) == width else { continue }
            let before = row.before.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            let after = row.after.flatMap { query.predicate.evaluate($0) ? $0 : nil }
            if let before, let after, query.sectionName(of: before) == query.sectionName(of: after),
               !aggregates.referencedAttributes.contains(where: { before[$0] != after[$0] }) {
                continue
            }
            if let before { leaving.append(before) }
            if let after { joining.append(after) }
        }
        add(leaving, sign: -1)
        add(joining, sign: 1)
    }

    /// Keeps the groups for the same request bound again — to an entity that gained
    /// attributes, or key-path values laid out after them — so that the touched rows to
    /// come, read for the results as they are bound now, are placed by their attributes.
    mutating func rebind(to query: BoundQuery) {
        guard let aggregates = query.aggregates, aggregates.terms.count == self.aggregates.terms.count else { return }
        self.query = query
        self.aggregates = aggregates
    }

    /// Takes `rebuilt`'s groups (the same query's, or a new request's, read again), as a
    /// change from what the consumer last heard: every group of either differs or not.
    mutating func replace(with rebuilt: AggregateTracker) {
        noteHeard(section: nil)
        for name in sections.keys { noteHeard(section: name) }
        let heardTotal = heardTotal
        var heardSections = heardSections
        self = rebuilt
        for name in sections.keys where heardSections[name] == nil {
            // New to the consumer: it heard of no objects there.
            heardSections[name] = Heard(values: values(of: emptyGroup).values, overflowed: [])
        }
        self.heardTotal = heardTotal
        self.heardSections = heardSections
    }

    /// The change from what the consumer last heard to the aggregates now, or nil when no
    /// value differs; and an error for each aggregate that went out of range since. The
    /// consumer has heard the values now once this returns.
    mutating func takeChange() -> (change: AggregateChange?, overflows: [StoreError]) {
        guard let heardTotal else { return (nil, []) }
        defer {
            self.heardTotal = nil
            heardSections = [:]
        }
        var overflows: [StoreError] = []
        let totalNow = values(of: total)
        overflows += totalNow.overflowed.filter { !heardTotal.overflowed.contains($0) }.map { overflow(of: $0, section: nil) }
        var changed: [SectionAggregates] = []
        for name in orderedNames(Array(heardSections.keys)) {
            guard let heard = heardSections[name] else { continue }
            let now = values(of: sections[name] ?? emptyGroup)
            guard now.values != heard.values else { continue }
            overflows += now.overflowed.filter { !heard.overflowed.contains($0) }.map { overflow(of: $0, section: name) }
            changed.append(SectionAggregates(name: name, values: now.values))
        }
        guard totalNow.values != heardTotal.values || !changed.isEmpty else { return (nil, overflows) }
        return (AggregateChange(total: totalNow.values, sections: changed), overflows)
    }

    // MARK: Groups

    /// A group of no objects, copied (its sums shared until written) wherever a group starts.
    private let emptyGroup: Group

    /// Adds rows of the results to their sections and the total (`sign` 1), or takes them
    /// away (-1), a run of rows of one section at a time.
    private mutating func add(_ rows: [[Value]], sign: Int) {
        var start = 0
        while start < rows.count {
            let name = query.sectionName(of: rows[start])
            var end = start + 1
            while end < rows.count && query.sectionName(of: rows[end]) == name { end += 1 }
            noteHeard(section: name)
            accumulate(rows[start..<end], in: name, sign: sign)
            start = end
        }
    }

    /// Adds (or takes away) rows that are all of section `name`, finding its group once.
    private mutating func accumulate(_ rows: some Collection<[Value]>, in name: Value, sign: Int) {
        let terms = aggregates.terms
        // The section's group in place in the dictionary, and each term worked out once.
        Self.add(rows, sign: sign, terms: terms, to: &sections[name, default: emptyGroup], and: &total)
        if sections[name]?.objects == 0 { sections[name] = nil }
    }

    /// Term by term, then row by row: a term (and its predicate) is taken apart once per
    /// run of rows, not once per row.
    private static func add(_ rows: some Collection<[Value]>, sign: Int, terms: [BoundAggregates.Term], to group: inout Group, and total: inout Group) {
        group.objects += sign * rows.count
        total.objects += sign * rows.count
        for (index, term) in terms.enumerated() {
            switch term {
            case let .count(predicate):
                var counted = 0
                for row in rows where predicate.evaluate(row) { counted += 1 }
                guard counted > 0 else { continue }
                group.sums[index].addCount(sign * counted)
                total.sums[index].addCount(sign * counted)
            case let .sum(attribute, _):
                for row in rows {
                    group.sums[index].add(row[attribute], sign: sign)
                    total.sums[index].add(row[attribute], sign: sign)
                }
            }
        }
    }

    /// Notes what the consumer heard of a section (nil: the total) before a change touches it.
    private mutating func noteHeard(section name: Value?) {
        if heardTotal == nil {
            let now = values(of: total)
            heardTotal = Heard(values: now.values, overflowed: now.overflowed)
        }
        guard let name, heardSections[name] == nil else { return }
        let now = values(of: sections[name] ?? emptyGroup)
        heardSections[name] = Heard(values: now.values, overflowed: now.overflowed)
    }

    /// A group's values, and the indexes of the sums that are out of range (given as null).
    private func values(of group: Group) -> (values: AggregateValues, overflowed: [Int]) {
        var values: [Value] = []
        values.reserveCapacity(aggregates.terms.count)
        var overflowed: [Int] = []
        for (index, term) in aggregates.terms.enumerated() {
            switch term {
            case .count:
                values.append(.integer(Int64(group.sums[index].count)))
            case let .sum(_, isReal):
                if let value = group.sums[index].value(isReal: isReal) {
                    values.append(value)
                } else {
                    values.append(.null)
                    overflowed.append(index)
                }
            }
        }
        return (AggregateValues(numberOfObjects: group.objects, names: aggregates.names, values: values), overflowed)
    }

    /// Section names in the query's order of sections.
    private func orderedNames(_ names: [Value]) -> [Value] {
        let ascending = query.sort.ascending.first ?? true
        return names.sorted { ascending ? Value.compare($0, $1) < 0 : Value.compare($0, $1) > 0 }
    }

    private func overflow(of index: Int, section: Value?) -> StoreError {
        .aggregateOverflow(entity: query.entity.name, aggregate: aggregates.names[index], section: section)
    }
}
