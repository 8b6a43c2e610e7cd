/// Compiles a bound predicate to a two-valued SQL expression.
///
/// SQL's comparisons are three-valued (a null side gives NULL, and `NOT NULL` is NULL),
/// while a predicate's are two-valued. So `==` and `!=` become the null-safe `IS` and
/// `IS NOT`, and every other test is guarded by `IS NOT NULL`: no part of the
/// expression is ever NULL, and `NOT` inverts exactly. Values are always `?` parameters.
enum PredicateSQL {
    /// The expression and the values of its parameters, in order.
    static func compile(_ node: BoundNode) -> (sql: String, arguments: [Value]) {
        var arguments: [Value] = []
        let sql = text(of: node, arguments: &arguments)
        return (sql, arguments)
    }

    private static func text(of node: BoundNode, arguments: inout [Value]) -> String {
        switch node {
        case let .constant(value):
            return value ? "1" : "0"
        case let .not(operand):
            return "NOT (\(text(of: operand, arguments: &arguments)))"
        case let .and(terms):
            return "(" + terms.map { text(of: $0, arguments: &arguments) }.joined(separator: " AND ") + ")"
        case let .or(terms):
            return "(" + terms.map { text(of: $0, arguments: &arguments) }.joined(separator: " OR ") + ")"
        case let .test(test):
            return text(of: test, arguments: &arguments)
        }
    }

    private static func text(of test: BoundTest, arguments: inout [Value]) -> String {
        let column = Identifier.quoted(test.name)
        // A text comparison always names its collation: a column that another process rebuilt
        // with its own (`COLLATE NOCASE`) must not change what it means (Swift compares bytes).
        // Numbers ignore collations. A folded column is a function's result, which has none.
        let collated = !test.isText ? column : (test.folding.isEmpty ? column + " COLLATE BINARY" : test.folding.sql(column))
        func parameter(_ value: Value) -> String {
            arguments.append(value)
            return "?"
        }
        func guarded(_ condition: String) -> String { "(\(column) IS NOT NULL AND \(condition))" }
        switch test.kind {
        case let .same(value):
            return value.isSQLNull ? "\(column) IS NULL" : "\(collated) IS \(parameter(value))"
        case let .different(value):
            return value.isSQLNull ? "\(column) IS NOT NULL" : "\(collated) IS NOT \(parameter(value))"
        case let .order(op, value):
            return guarded("\(collated) \(op.rawValue) \(parameter(value))")
        case let .among(members):
            return guarded("\(collated) IN (\(members.map(parameter).joined(separator: ", ")))")
        case let .between(low, high):
            return guarded("\(collated) BETWEEN \(parameter(low)) AND \(parameter(high))")
        case let .glob(pattern):
            // The whole text, NULs included, by the matcher Swift evaluates (GlobFunction).
            let subject = test.folding.isEmpty ? column : test.folding.sql(column)
            return guarded("\(GlobFunction.name)(\(parameter(pattern.value)), \(subject))")
        }
    }
}
