/// The words and symbols of the predicate syntax, shared by the parser and the printer.
enum PredicateKeywords {
    /// Operators written as symbols, by their spelling.
    static let comparisonSymbols: [String: ComparisonOperator] = [
        "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual,
        "<": .less, "<=": .lessOrEqual, "=<": .lessOrEqual,
        ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual,
    ]

    /// Operators written as words, by their upper-case spelling.
    static let operatorWords: [String: ComparisonOperator] = [
        "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains,
        "LIKE": .like, "IN": .in, "BETWEEN": .between,
    ]

    /// Value keywords, by their upper-case spelling.
    static let literals: [String: Value] = [
        "YES": .bool(true), "TRUE": .bool(true), "NO": .bool(false), "FALSE": .bool(false),
        "NIL": .null, "NULL": .null,
    ]

    /// NSPredicate operators that Roster does not support, named as such in errors.
    static let unsupportedOperators: Set<String> = ["MATCHES"]

    /// Every word that cannot name an attribute without a `#`, in upper case.
    static let reserved: Set<String> = Set(operatorWords.keys).union(literals.keys)
        .union(["AND", "OR", "NOT", "TRUEPREDICATE", "FALSEPREDICATE"])

    /// Whether `word` is a keyword, ignoring case.
    static func isReserved(_ word: String) -> Bool { reserved.contains(word.uppercased()) }
}
