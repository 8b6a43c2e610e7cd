/// A ``BoundQuery`` in PostgreSQL's SQL: what the PostgreSQL backend runs for a live
/// query's reads. (The query floor's own SQL is SQLite's.)
///
/// The order is the contract's: text by bytes (`COLLATE "C"`), nulls first ascending and
/// last descending, ties by key. A predicate becomes a two-valued SQL condition as on
/// SQLite (every test guarded by `IS NOT NULL`), with `$n` parameters cast to their
/// value's type. Tests that fold text (`[c]`, `[d]`) or match patterns (`LIKE`,
/// `BEGINSWITH`…) have no PostgreSQL function that gives Swift's answer byte for byte, so a
/// predicate holding one is not sent: the rows are read unfiltered and the predicate is
/// evaluated in Swift (``isFilteredInSwift``), the same evaluation the engine uses.
struct ServerQuery {
    let query: BoundQuery
    /// `WHERE …` (or `TRUE`), with its parameters.
    let condition: String
    let arguments: [Value]
    /// Whether the predicate is evaluated in Swift on rows read without it.
    let isFilteredInSwift: Bool

    init(_ query: BoundQuery) {
        self.query = query
        var arguments: [Value] = []
        if let condition = Self.condition(query.predicate.root, entity: query.entity, arguments: &arguments) {
            self.condition = condition
            self.arguments = arguments
            isFilteredInSwift = false
        } else {
            condition = "TRUE"
            self.arguments = []
            isFilteredInSwift = true
        }
    }

    /// The entity's rows (every attribute) the predicate selects, in order; `limit` adds
    /// `LIMIT`/`OFFSET` parameters after the predicate's.
    func select(window: Bool = false) -> String {
        let columns = query.entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        return "SELECT \(columns) FROM \(query.entity.readSource) WHERE \(condition) ORDER BY \(Self.orderBy(query.sort, entity: query.entity))"
            + (window ? " LIMIT $\(arguments.count + 1) OFFSET $\(arguments.count + 2)" : "")
    }

    /// The terms of an `ORDER BY` in the contract's order.
    static func orderBy(_ sort: BoundSort, entity: Entity) -> String {
        zip(sort.attributeIndexes, sort.ascending).map { index, ascending in
            "\(expression(entity.attributes[index])) \(ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
        }.joined(separator: ", ")
    }

    /// An attribute's column as Roster compares it: text by bytes, and a double's NaN
    /// (which another client may store; PostgreSQL orders it above every number) as null,
    /// as SQLite stores it and as ``Value/compare(_:_:)`` ranks it.
    static func expression(_ attribute: Attribute) -> String {
        let column = Identifier.quoted(attribute.name)
        switch attribute.type {
        case .string: return "\(column) COLLATE \"C\""
        case .double: return "NULLIF(\(column), 'NaN')"
        case .integer, .bool: return column
        }
    }

    /// The condition of a node, or nil when some test in it cannot be sent.
    private static func condition(_ node: BoundNode, entity: Entity, arguments: inout [Value]) -> String? {
        switch node {
        case let .constant(value):
            return value ? "TRUE" : "FALSE"
        case let .not(operand):
            return condition(operand, entity: entity, arguments: &arguments).map { "NOT (\($0))" }
        case let .and(terms), let .or(terms):
            var parts: [String] = []
            for term in terms {
                guard let part = condition(term, entity: entity, arguments: &arguments) else { return nil }
                parts.append(part)
            }
            guard !parts.isEmpty else { if case .and = node { return "TRUE" } else { return "FALSE" } }
            if case .and = node { return "(" + parts.joined(separator: " AND ") + ")" }
            return "(" + parts.joined(separator: " OR ") + ")"
        case let .test(test):
            return condition(test, type: entity.attributes[test.attribute].type, arguments: &arguments)
        }
    }

    private static func condition(_ test: BoundTest, type: AttributeType, arguments: inout [Value]) -> String? {
        guard test.folding.isEmpty, test.values.allSatisfy({ Self.isComparable($0, with: type) }) else { return nil }
        let column = expression(Attribute(test.name, type))
        func parameter(_ value: Value) -> String {
            arguments.append(value)
            return "$\(arguments.count)::\(Self.castType(of: value))"
        }
        func guarded(_ condition: String) -> String { "(\(column) IS NOT NULL AND \(condition))" }
        switch test.kind {
        case let .same(value):
            return value.isSQLNull ? "\(column) IS NULL" : guarded("\(column) = \(parameter(value))")
        case let .different(value):
            return value.isSQLNull ? "\(column) IS NOT NULL"
                : "(\(column) IS NULL OR \(column) <> \(parameter(value)))"
        case let .order(op, value):
            guard !value.isSQLNull else { return "FALSE" }
            return guarded("\(column) \(op.rawValue) \(parameter(value))")
        case let .among(members):
            let present = members.filter { !$0.isSQLNull }
            guard !present.isEmpty else { return "FALSE" }
            return guarded("\(column) IN (\(present.map(parameter).joined(separator: ", ")))")
        case let .between(low, high):
            guard !low.isSQLNull, !high.isSQLNull else { return "FALSE" }
            return guarded("\(column) BETWEEN \(parameter(low)) AND \(parameter(high))")
        case .glob:
            return nil
        }
    }

    /// Whether PostgreSQL compares a value with a column of `type` as SQLite does: text with
    /// text, numbers with numbers, Booleans with Booleans (SQLite ranks numbers below text,
    /// and stores Booleans as 0 and 1; PostgreSQL refuses to compare across those).
    ///
    /// An integer and a double compare on the server as doubles, which is exact only below
    /// 2^53; beyond it Swift (exact) decides. Text with a NUL is Swift's too: the server
    /// cannot take it, and Swift gives SQLite's answer (no stored text has one there).
    private static func isComparable(_ value: Value, with type: AttributeType) -> Bool {
        let exact = 9_007_199_254_740_992.0  // 2^53
        switch (value, type) {
        // PostgreSQL text holds no NUL, and refuses a parameter with one: Swift compares it.
        case let (.string(text), .string): return !text.utf8.contains(0)
        case (.null, _), (.integer, .integer), (.double, .double), (.bool, .bool): return true
        case let (.integer(number), .double): return Double(number.magnitude) < exact
        case let (.double(number), .integer): return number.magnitude < exact
        default: return false
        }
    }

    /// The SQL type a parameter is cast to: its value's, so that the server never guesses.
    static func castType(of value: Value) -> String {
        switch value {
        case .integer: "bigint"
        case .double: "double precision"
        case .bool: "boolean"
        case .null, .string, .invalidUTF8: "text"
        }
    }
}

extension BoundTest {
    /// The values the test compares with.
    fileprivate var values: [Value] {
        switch kind {
        case let .same(value), let .different(value), let .order(_, value): [value]
        case let .among(members): members
        case let .between(low, high): [low, high]
        case .glob: []
        }
    }
}
