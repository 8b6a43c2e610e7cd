/// A filter on the objects of an entity, written in NSPredicate's format syntax.
///
/// ```swift
/// let recent = try QueryPredicate("rank > %@ AND title BEGINSWITH[c] %@", 2, "a")
/// print(recent)   // rank > 2 AND title BEGINSWITH[c] 'a'
/// ```
///
/// The subset understood: comparisons `== = != <> < <= > >= =< =>`; `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS` and `LIKE` (`*` and `?` wildcards); `IN {a, b}`;
/// `BETWEEN {lo, hi}`; each operator with an optional `[c]` (Unicode case folding), `[d]`
/// (diacritics dropped) or `[cd]` for strings; `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE` and
/// `FALSEPREDICATE`. Values are quoted strings, numbers, `YES`/`NO`/`TRUE`/`FALSE`,
/// `nil`/`NULL`, or `%@` taking the next argument; `%K` takes an attribute name. An
/// attribute named like a keyword is written `#name`. Keywords are case-insensitive.
///
/// A predicate is only text made structure; a ``FetchRequest`` checks it against its
/// entity when a live query or a fetch runs it. Two predicates are equal when they test the same thing, however
/// they were written: their ``description``s are then the same too.
public struct QueryPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The text this predicate was parsed from, used by error messages.
    public let format: String
    /// The parsed structure.
    let root: PredicateNode

    init(root: PredicateNode, format: String) {
        self.root = root
        self.format = format
    }

    /// Parses a predicate, replacing each `%@` and `%K` with the next argument.
    ///
    /// - Parameters:
    ///   - format: the predicate text.
    ///   - arguments: one value for each `%@`, and the attribute name as `.string` for each `%K`.
    /// - Throws: ``QueryPredicateError`` with the offset of the problem.
    public init(_ format: String, _ arguments: Value...) throws {
        try self.init(format: format, arguments: arguments)
    }

    /// Parses a predicate, replacing each `%@` and `%K` with the next argument.
    ///
    /// - Throws: ``QueryPredicateError`` with the offset of the problem, also when there are
    ///   fewer or more arguments than placeholders.
    public init(format: String, arguments: [Value]) throws {
        try self.init(parsing: format, arguments: arguments)
    }

    /// ``init(format:arguments:)``, for Roster's own code, which throws
    /// ``QueryPredicateError`` alone (the public API throws `any Error`: see ``StoreError``).
    init(parsing format: String, arguments: [Value]) throws(QueryPredicateError) {
        var parser = PredicateParser(format: format, arguments: arguments)
        self.init(root: try parser.parse(), format: format)
    }

    /// The predicate that every object satisfies: `TRUEPREDICATE`.
    public static let all = QueryPredicate(root: .constant(true), format: "TRUEPREDICATE")

    /// Whether two predicates test the same thing; their ``format``s may differ.
    public static func == (lhs: QueryPredicate, rhs: QueryPredicate) -> Bool { lhs.root == rhs.root }

    /// Hashes what the predicate tests, not how it was written.
    public func hash(into hasher: inout Hasher) { hasher.combine(root) }
}

/// A node of a parsed predicate. `and` and `or` never hold a node of their own kind.
indirect enum PredicateNode: Sendable, Hashable {
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case comparison(Comparison)
}

/// One test of one attribute against a value, a list or a range.
struct Comparison: Sendable, Hashable {
    var attribute: String
    var op: ComparisonOperator
    /// What `[c]`, `[d]` or `[cd]` folds before comparing; empty without a modifier.
    var folding: TextFolding
    var operand: Operand
    /// Where the attribute name starts in the format.
    var attributeOffset: Int
    /// Where each value of the operand starts in the format, in operand order.
    var valueOffsets: [Int]

    /// Equal when they test the same thing; where they were written does not count.
    static func == (lhs: Comparison, rhs: Comparison) -> Bool {
        lhs.attribute == rhs.attribute && lhs.op == rhs.op
            && lhs.folding == rhs.folding && lhs.operand == rhs.operand
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(attribute)
        hasher.combine(op)
        hasher.combine(folding)
        hasher.combine(operand)
    }
}

/// The operator of a comparison; its raw value is how the description writes it.
enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Whether the operator matches strings against a pattern.
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like: true
        default: false
        }
    }
}

/// The right side of a comparison.
enum Operand: Sendable, Hashable {
    /// One value, for every operator but `IN` and `BETWEEN`.
    case value(Value)
    /// The members of `IN {…}`.
    case list([Value])
    /// The bounds of `BETWEEN {lo, hi}`.
    case range(Value, Value)

    /// The values in the order they were written.
    var values: [Value] {
        switch self {
        case let .value(value): [value]
        case let .list(values): values
        case let .range(low, high): [low, high]
        }
    }

    /// The same operand with `transform` applied to each value.
    func mapValues(_ transform: (Value) -> Value) -> Operand {
        switch self {
        case let .value(value): .value(transform(value))
        case let .list(values): .list(values.map(transform))
        case let .range(low, high): .range(transform(low), transform(high))
        }
    }
}

extension QueryPredicate {
    /// The same predicate with `prefix` before every attribute name: the predicate of a
    /// related object read through a key path (`muted == NO` → `feed.muted == NO`).
    func prefixingAttributes(with prefix: String) -> QueryPredicate {
        func map(_ node: PredicateNode) -> PredicateNode {
            switch node {
            case .constant: return node
            case let .not(operand): return .not(map(operand))
            case let .and(terms): return .and(terms.map(map))
            case let .or(terms): return .or(terms.map(map))
            case var .comparison(comparison):
                comparison.attribute = prefix + comparison.attribute
                return .comparison(comparison)
            }
        }
        let root = map(self.root)
        return QueryPredicate(root: root, format: PredicatePrinter.text(of: root, inside: .or))
    }

    /// The attribute names and key paths the predicate tests, in the order written.
    var attributeNames: [String] {
        var names: [String] = []
        func collect(_ node: PredicateNode) {
            switch node {
            case .constant: break
            case let .not(operand): collect(operand)
            case let .and(terms), let .or(terms): terms.forEach(collect)
            case let .comparison(comparison): names.append(comparison.attribute)
            }
        }
        collect(root)
        return names
    }
}
