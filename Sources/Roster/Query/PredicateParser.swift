/// Parses a predicate's text by recursive descent: `OR` below `AND` below `NOT`.
///
///     predicate  := or END
///     or         := and (('OR' | '||') and)*
///     and        := unary (('AND' | '&&') unary)*
///     unary      := ('NOT' | '!') unary | '(' or ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
///     comparison := (name | '#' name | %K) operator ('[' 'c' ']')? operand
///     operand    := value | '{' (value (',' value)*)? '}'          (IN; BETWEEN takes two)
///     value      := string | number | YES | NO | TRUE | FALSE | nil | NULL | %@
struct PredicateParser {
    private var lexer: PredicateLexer
    private let arguments: [Value]
    private var argumentsUsed = 0
    private var token = PredicateToken(kind: .end, offset: 0, text: "")
    private var previous = PredicateToken(kind: .end, offset: 0, text: "")
    /// Levels of parentheses and `NOT` around the token being parsed.
    private var nesting = 0
    private var comparisons = 0
    private var values = 0

    init(format: String, arguments: [Value]) {
        self.lexer = PredicateLexer(format: format)
        self.arguments = arguments
    }

    /// Parses the whole text.
    mutating func parse() throws(QueryPredicateError) -> PredicateNode {
        let length = lexer.format.utf8.count
        guard length <= PredicateLimits.maxLength else {
            throw QueryPredicateError(format: String(lexer.format.prefix(80)) + "…", offset: 0,
                                 reason: "the predicate is \(length) bytes long; the limit is \(PredicateLimits.maxLength) bytes")
        }
        try advance()
        guard token.kind != .end else { throw error("expected a predicate, found an empty text") }
        let root = try parseOr()
        guard token.kind == .end else {
            throw error("expected AND, OR or the end of the predicate, found \(token.quoted)")
        }
        guard argumentsUsed == arguments.count else {
            throw error("\(Self.count(arguments.count, "argument")) given, but the predicate has \(Self.count(argumentsUsed, "placeholder"))")
        }
        return root
    }

    private mutating func advance() throws(QueryPredicateError) {
        previous = token
        token = try lexer.next()
    }

    private mutating func parseOr() throws(QueryPredicateError) -> PredicateNode {
        var terms = [try parseAnd()]
        while token.isKeyword("OR") || token.kind == .symbol("||") {
            try advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms.flatMap { if case let .or(inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseAnd() throws(QueryPredicateError) -> PredicateNode {
        var terms = [try parseUnary()]
        while token.isKeyword("AND") || token.kind == .symbol("&&") {
            try advance()
            terms.append(try parseUnary())
        }
        return terms.count == 1 ? terms[0] : .and(terms.flatMap { if case let .and(inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseUnary() throws(QueryPredicateError) -> PredicateNode {
        if token.isKeyword("NOT") || token.kind == .symbol("!") {
            try enterNesting()
            defer { nesting -= 1 }
            try advance()
            return .not(try parseUnary())
        }
        if token.kind == .symbol("(") {
            let open = token
            try enterNesting()
            defer { nesting -= 1 }
            try advance()
            let inner = try parseOr()
            guard token.kind == .symbol(")") else {
                throw error("expected ')' to close the '(' at offset \(open.offset), found \(token.quoted)")
            }
            try advance()
            return inner
        }
        if token.isKeyword("TRUEPREDICATE") || token.isKeyword("FALSEPREDICATE") {
            let value = token.isKeyword("TRUEPREDICATE")
            try advance()
            return .constant(value)
        }
        return .comparison(try parseComparison())
    }

    /// Counts one more level of parentheses or `NOT`, refusing one past the limit.
    private mutating func enterNesting() throws(QueryPredicateError) {
        guard nesting < PredicateLimits.maxNesting else {
            throw error("more than \(PredicateLimits.maxNesting) levels of parentheses and NOT: the limit keeps SQLite's parser and the evaluator within their stacks")
        }
        nesting += 1
    }

    private mutating func parseComparison() throws(QueryPredicateError) -> Comparison {
        comparisons += 1
        guard comparisons <= PredicateLimits.maxComparisons else {
            throw error("more than \(PredicateLimits.maxComparisons) comparisons: the limit keeps the SQL within SQLite's expression depth; use IN {…} for a list of values")
        }
        let attributeOffset = token.offset
        let attribute = try parseAttribute()
        let op = try parseOperator(after: attribute)
        var folding: TextFolding = []
        if case let .modifier(letters) = token.kind {
            guard let modifier = TextFolding(modifier: letters) else {
                throw error("unsupported modifier '[\(letters)]': only [c] (case-insensitive), [d] (diacritic-insensitive) and [cd] are supported")
            }
            folding = modifier
            try advance()
        }
        let (operand, offsets) = try parseOperand(of: op)
        return Comparison(attribute: attribute, op: op, folding: folding,
                          operand: operand, attributeOffset: attributeOffset, valueOffsets: offsets)
    }

    private mutating func parseAttribute() throws(QueryPredicateError) -> String {
        switch token.kind {
        case let .word(name) where !PredicateKeywords.isReserved(name):
            try advance()
            return name
        case let .escapedWord(name):
            try advance()
            return name
        case .keyPlaceholder:
            guard case let .string(name) = try takeArgument(), Identifier.isValid(name) else {
                throw error("%K needs an attribute name as a string argument")
            }
            try advance()
            return name
        case .end where previous.kind != .end:
            throw error("expected a predicate after \(previous.quoted)")
        case .string, .number, .valuePlaceholder:
            throw error("expected an attribute name, found \(token.quoted): the left side of a comparison is an attribute")
        default:
            throw error("expected an attribute name or '(', found \(token.quoted)")
        }
    }

    private mutating func parseOperator(after attribute: String) throws(QueryPredicateError) -> ComparisonOperator {
        let found = token
        let op: ComparisonOperator?
        switch found.kind {
        case let .symbol(symbol): op = PredicateKeywords.comparisonSymbols[symbol]
        case let .word(word): op = PredicateKeywords.operatorWords[word.uppercased()]
        default: op = nil
        }
        guard let op else {
            if case let .word(word) = found.kind, PredicateKeywords.unsupportedOperators.contains(word.uppercased()) {
                throw error("'\(word)' is not supported in Roster's predicates: SQLite and Swift share no regular expression engine, so they could not give the same answer; use LIKE with * and ?")
            }
            throw error("expected an operator after '\(attribute)', found \(found.quoted)")
        }
        try advance()
        return op
    }

    private mutating func parseOperand(of op: ComparisonOperator) throws(QueryPredicateError) -> (Operand, [Int]) {
        switch op {
        case .in, .between:
            let name = op.rawValue
            guard token.kind == .symbol("{") else {
                throw error("expected '{' after \(name), as in \(name) {1, 2}, found \(token.quoted)")
            }
            try advance()
            var values: [Value] = []
            var offsets: [Int] = []
            while token.kind != .symbol("}") {
                if !values.isEmpty {
                    guard token.kind == .symbol(",") else {
                        throw error("expected ',' or '}' in the list after \(name), found \(token.quoted)")
                    }
                    try advance()
                }
                offsets.append(token.offset)
                values.append(try parseValue())
            }
            if op == .between && values.count != 2 {
                throw error("BETWEEN needs exactly two values, as in BETWEEN {1, 5}; found \(values.count)")
            }
            try advance()
            return op == .between ? (.range(values[0], values[1]), offsets) : (.list(values), offsets)
        default:
            let offset = token.offset
            return (.value(try parseValue()), [offset])
        }
    }

    private mutating func parseValue() throws(QueryPredicateError) -> Value {
        values += 1
        guard values <= PredicateLimits.maxValues else {
            throw error("more than \(PredicateLimits.maxValues) values: the limit keeps the SQL within SQLite's number of parameters")
        }
        let value: Value
        switch token.kind {
        case let .string(text): value = .string(text)
        case let .number(number): value = number
        case .valuePlaceholder:
            let argument = try takeArgument()
            // SQLite stores NaN as NULL, so a NaN argument means nil.
            value = argument.isSQLNull ? .null : argument
        case let .word(word):
            guard let literal = PredicateKeywords.literals[word.uppercased()] else {
                let found = PredicateKeywords.isReserved(word) ? token.quoted
                    : "the attribute '\(word)': a comparison's right side is a value, not an attribute"
                throw error("expected a value after \(previous.quoted), found \(found)")
            }
            value = literal
        case .end:
            throw error("expected a value after \(previous.quoted)")
        default:
            throw error("expected a value after \(previous.quoted), found \(token.quoted)")
        }
        try advance()
        return value
    }

    private mutating func takeArgument() throws(QueryPredicateError) -> Value {
        guard argumentsUsed < arguments.count else {
            throw error("no argument left for \(token.text): only \(Self.count(arguments.count, "argument")) given")
        }
        argumentsUsed += 1
        return arguments[argumentsUsed - 1]
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    private func error(_ reason: String) -> QueryPredicateError {
        QueryPredicateError(format: lexer.format, offset: token.offset, reason: reason)
    }
}
