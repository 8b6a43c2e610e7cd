extension QueryPredicate {
    /// The predicate in canonical form: one spelling per operator, values written out
    /// (no placeholders), and only the parentheses that precedence needs. Parsing the
    /// description gives an equal predicate — unless an argument was text that is not
    /// valid UTF-8 (``Value/invalidUTF8(_:)``), which no literal can spell: it is written
    /// as its ``Value/description`` (`<invalid UTF-8 c3>`), which does not parse.
    public var description: String { PredicatePrinter.text(of: root, inside: .or) }
}

/// Writes a parsed predicate back as text.
enum PredicatePrinter {
    /// How tightly the surrounding text binds, loosest first.
    enum Context: Int, Comparable {
        case or, and, not
        static func < (lhs: Context, rhs: Context) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    static func text(of node: PredicateNode, inside context: Context) -> String {
        switch node {
        case let .constant(value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case let .not(operand):
            return "NOT " + text(of: operand, inside: .not)
        case let .and(terms):
            let joined = terms.map { text(of: $0, inside: .and) }.joined(separator: " AND ")
            return context > .and ? "(\(joined))" : joined
        case let .or(terms):
            let joined = terms.map { text(of: $0, inside: .or) }.joined(separator: " OR ")
            return context > .or ? "(\(joined))" : joined
        case let .comparison(comparison):
            return text(of: comparison)
        }
    }

    static func text(of comparison: Comparison) -> String {
        let name = PredicateKeywords.isReserved(comparison.attribute) ? "#" + comparison.attribute : comparison.attribute
        let op = comparison.op.rawValue + comparison.folding.modifier
        let operand = switch comparison.operand {
        case let .value(value): literal(value)
        case let .list(values): "{" + values.map(literal).joined(separator: ", ") + "}"
        case let .range(low, high): "{\(literal(low)), \(literal(high))}"
        }
        return "\(name) \(op) \(operand)"
    }

    /// A value as the parser reads it back.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "nil"
        case let .bool(flag): return flag ? "YES" : "NO"
        case let .integer(number): return String(number)
        case let .double(number):
            if number.isNaN { return "nil" }
            // Out of range of every double, so it reads back as the infinity it is.
            if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
            return String(number)
        case let .string(text):
            var escaped = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": escaped += "\\\\"
                case "'": escaped += "\\'"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                case "\r": escaped += "\\r"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return "'\(escaped)'"
        case .invalidUTF8:
            return value.description
        }
    }
}
