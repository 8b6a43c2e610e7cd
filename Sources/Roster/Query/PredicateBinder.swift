/// Resolves a parsed predicate's attributes and checks its values' types.
struct PredicateBinder {
    let format: String
    let entity: Entity
    private(set) var referencedAttributes: Set<Int> = []
    /// String operators bound so far, and the bytes of their patterns together.
    private var stringComparisons = 0
    private var patternBytes = 0

    init(format: String, entity: Entity) {
        self.format = format
        self.entity = entity
    }

    mutating func bind(_ node: PredicateNode) throws(QueryPredicateError) -> BoundNode {
        switch node {
        case let .constant(value): return .constant(value)
        case let .not(operand): return .not(try bind(operand))
        case let .and(terms): return .and(try bindAll(terms))
        case let .or(terms): return .or(try bindAll(terms))
        case let .comparison(comparison): return try bind(comparison)
        }
    }

    private mutating func bindAll(_ nodes: [PredicateNode]) throws(QueryPredicateError) -> [BoundNode] {
        var bound: [BoundNode] = []
        for node in nodes { bound.append(try bind(node)) }
        return bound
    }

    private mutating func bind(_ comparison: Comparison) throws(QueryPredicateError) -> BoundNode {
        guard let index = entity.index(of: comparison.attribute) else {
            throw QueryPredicateError(format: format, offset: comparison.attributeOffset,
                                 reason: "entity '\(entity.name)' has no attribute '\(comparison.attribute)'")
        }
        let attribute = entity.attributes[index]
        let op = comparison.op
        if op.isStringOperator && attribute.type != .string {
            throw QueryPredicateError(format: format, offset: comparison.attributeOffset,
                                 reason: "\(op.rawValue) needs a string attribute, but '\(attribute.name)' of entity '\(entity.name)' is \(attribute.type.rawValue)")
        }
        for (value, offset) in zip(comparison.operand.values, comparison.valueOffsets) {
            try check(value, at: offset, against: attribute)
        }
        let folding = attribute.type == .string ? comparison.folding : []
        guard let kind = Self.kind(of: comparison, folding: folding) else { return .constant(false) }
        if case let .glob(pattern) = kind {
            let offset = comparison.valueOffsets.first ?? comparison.attributeOffset
            stringComparisons += 1
            patternBytes += pattern.bytes.count
            // Bounds on the work of evaluating the predicate in Swift on a long value.
            guard stringComparisons <= PredicateLimits.maxStringComparisons else {
                throw QueryPredicateError(format: format, offset: comparison.attributeOffset,
                                     reason: "more than \(PredicateLimits.maxStringComparisons) string operators (BEGINSWITH, ENDSWITH, CONTAINS, LIKE): each reads the whole value")
            }
            guard patternBytes <= PredicateLimits.maxPatternTotal else {
                throw QueryPredicateError(format: format, offset: offset,
                                     reason: "the patterns of the string operators are \(patternBytes) bytes together (folded for [c] and [d], wildcards quoted); the limit is \(PredicateLimits.maxPatternTotal) bytes")
            }
        }
        referencedAttributes.insert(index)
        return .test(BoundTest(attribute: index, name: attribute.name, isText: attribute.type == .string, folding: folding, kind: kind))
    }

    /// The test a comparison makes, with its values folded as `folding` asks, or nil when a
    /// null operand makes it always false.
    private static func kind(of comparison: Comparison, folding: TextFolding) -> BoundTest.Kind? {
        let operand = comparison.operand.mapValues { folding.fold($0) }
        switch (comparison.op, operand) {
        case let (.equal, .value(value)): return .same(value)
        case let (.notEqual, .value(value)): return .different(value)
        case let (.in, .list(members)):
            let members = members.filter { !$0.isSQLNull }
            return members.isEmpty ? nil : .among(members)
        case let (.between, .range(low, high)):
            return low.isSQLNull || high.isSQLNull ? nil : .between(low, high)
        case let (op, .value(value)) where op.isStringOperator:
            // Text that is not valid UTF-8 makes a pattern of its bytes, read as SQLite reads them.
            guard let bytes = value.textBytes else { return nil }
            return .glob(GlobPattern(operator: op, literal: bytes))
        case let (op, .value(value)):
            return value.isSQLNull ? nil : .order(op, value)
        default:
            preconditionFailure("the parser pairs IN with a list and BETWEEN with a range")
        }
    }

    /// Throws unless `value` can be compared with `attribute`.
    private func check(_ value: Value, at offset: Int, against attribute: Attribute) throws(QueryPredicateError) {
        let fits = switch (attribute.type, value) {
        case (_, .null), (.string, .string), (.string, .invalidUTF8): true
        case (.integer, .integer), (.integer, .double), (.integer, .bool): true
        case (.double, .integer), (.double, .double), (.double, .bool): true
        case (.bool, .integer), (.bool, .double), (.bool, .bool): true
        default: false
        }
        guard !fits else { return }
        let hint = switch attribute.type {
        case .string: "use a quoted string"
        case .integer, .double: "use a number"
        case .bool: "use YES or NO"
        }
        throw QueryPredicateError(format: format, offset: offset,
                             reason: "attribute '\(attribute.name)' of entity '\(entity.name)' is \(attribute.type.rawValue) and cannot be compared with \(PredicatePrinter.literal(value)): \(hint)")
    }
}
