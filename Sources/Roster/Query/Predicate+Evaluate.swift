extension BoundPredicate {
    /// Whether a row of the entity (values in attribute order) satisfies the predicate.
    ///
    /// Gives the same answer as SQLite gives for ``sql`` on the stored row.
    ///
    /// - Complexity: O(*n*) in the size of the predicate, except that a string operator
    ///   takes O(*s*·*p*) for a string of *s* scalars and a pattern of *p*.
    package func evaluate(_ row: [Value]) -> Bool {
        Self.evaluate(root, row)
    }

    private static func evaluate(_ node: BoundNode, _ row: [Value]) -> Bool {
        switch node {
        case let .constant(value): value
        case let .not(operand): !evaluate(operand, row)
        case let .and(terms): terms.allSatisfy { evaluate($0, row) }
        case let .or(terms): terms.contains { evaluate($0, row) }
        case let .test(test): test.evaluate(row[test.attribute])
        }
    }
}

extension BoundTest {
    /// The test's answer for one value of its attribute.
    func evaluate(_ value: Value) -> Bool {
        // The test's own values are folded already (PredicateBinder).
        let value = folding.isEmpty ? value : folding.fold(value)
        func compare(_ other: Value) -> Int { Value.compare(value, other) }
        switch kind {
        // `compare` ranks null (and NaN) below everything and equal to itself: `IS`.
        case let .same(other): return compare(other) == 0
        case let .different(other): return compare(other) != 0
        default: break
        }
        guard !value.isSQLNull else { return false }
        switch kind {
        case .same, .different:
            return false  // handled above
        case let .order(op, other):
            let order = compare(other)
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case let .among(members):
            return members.contains { compare($0) == 0 }
        case let .between(low, high):
            return compare(low) >= 0 && compare(high) <= 0
        case let .glob(pattern):
            // Attributes of string operators are string attributes, whose rows hold text:
            // matched on its bytes, valid UTF-8 or not, as SQLite reads them.
            return pattern.matches(value)
        }
    }
}
