/// A predicate checked against an entity, ready to run in SQLite (``sql`` and
/// ``arguments``) or in Swift (``evaluate(_:)``), with the same answer either way.
///
/// ```swift
/// let filter = try BoundPredicate(QueryPredicate("rank > %@", 2), entity: post)
/// let statement = try connection.prepare("SELECT id FROM Post WHERE \(filter.sql)")
/// try statement.bind(filter.arguments)
/// filter.evaluate(row)   // the same answer for every row
/// ```
///
/// Binding resolves attribute names and checks each value against its attribute's
/// type: a `string` attribute takes strings; `integer` and `double` take numbers and
/// `YES`/`NO` (as 1 and 0); `bool` takes `YES`/`NO`/`TRUE`/`FALSE` and numbers (compared
/// with 0 and 1). `BEGINSWITH`, `ENDSWITH`, `CONTAINS` and `LIKE` need a string attribute
/// and a string. `nil` fits everywhere.
package struct BoundPredicate: Sendable {
    /// The predicate as parsed.
    package let predicate: QueryPredicate
    /// The entity whose rows the predicate tests.
    package let entity: Entity
    /// A `WHERE` expression with every value a `?` parameter; it is parenthesized where
    /// needed, so it can stand as an operand of `AND`, `OR` or `NOT`.
    package let sql: String
    /// The values for the `?` parameters of ``sql``, in order.
    package let arguments: [Value]
    /// The indexes in the entity's attributes of the attributes the predicate reads: a row
    /// whose other attributes change keeps its answer. A test that is false whatever the
    /// row holds (`rank < nil`, `rank IN {nil}`) reads nothing.
    package let referencedAttributes: Set<Int>
    /// The checked structure.
    let root: BoundNode

    /// Checks `predicate` against `entity`.
    ///
    /// - Throws: ``QueryPredicateError`` at the offset of an attribute the entity does not
    ///   have, or of a value that does not fit its attribute's type.
    package init(_ predicate: QueryPredicate, entity: Entity) throws(QueryPredicateError) {
        var binder = PredicateBinder(format: predicate.format, entity: entity)
        root = try binder.bind(predicate.root)
        self.predicate = predicate
        self.entity = entity
        referencedAttributes = binder.referencedAttributes
        (sql, arguments) = PredicateSQL.compile(root)
    }
}

/// A node of a bound predicate. Tests that can never be true are `.constant(false)`.
indirect enum BoundNode: Sendable {
    case constant(Bool)
    case not(BoundNode)
    case and([BoundNode])
    case or([BoundNode])
    case test(BoundTest)
}

/// One test of one attribute.
struct BoundTest: Sendable {
    /// The attribute's index in the entity, which is its index in a row.
    let attribute: Int
    /// The attribute's name.
    let name: String
    /// Whether the attribute holds text, which compares byte for byte (SQLite's BINARY).
    let isText: Bool
    /// What the test folds before comparing: `[c]`, `[d]` or `[cd]` on a string attribute,
    /// nothing otherwise. The test's values are folded already.
    let folding: TextFolding
    let kind: Kind

    enum Kind: Sendable {
        /// `==`: null-safe equality; the value may be null.
        case same(Value)
        /// `!=`: null-safe inequality; the value may be null.
        case different(Value)
        /// `<`, `<=`, `>` or `>=` with a value that is not null.
        case order(ComparisonOperator, Value)
        /// `IN` with at least one member, none null.
        case among([Value])
        /// `BETWEEN` with bounds that are not null.
        case between(Value, Value)
        /// A string operator, as a `GLOB` pattern.
        case glob(GlobPattern)
    }
}
