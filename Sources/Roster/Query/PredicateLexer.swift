/// One token of a predicate's text, with where it starts.
struct PredicateToken {
    enum Kind: Equatable {
        /// A name: an attribute or a keyword (keywords are told apart by the parser).
        case word(String)
        /// `#name`: always an attribute, even when the name is a keyword.
        case escapedWord(String)
        case string(String)
        case number(Value)
        /// `%@`
        case valuePlaceholder
        /// `%K`
        case keyPlaceholder
        /// Punctuation and operators: `( ) { } , == = != <> < <= > >= =< => && || !`.
        case symbol(String)
        /// The letters of an operator modifier such as `[c]`.
        case modifier(String)
        case end
    }

    let kind: Kind
    /// Offset in Unicode scalars of the token's first character.
    let offset: Int
    /// The token's text as written.
    let text: String

    /// Whether the token is this keyword, ignoring case.
    func isKeyword(_ keyword: String) -> Bool {
        if case let .word(word) = kind { return word.uppercased() == keyword }
        return false
    }

    /// How an error message names the token.
    var quoted: String {
        switch kind {
        case .end: "the end"
        case .string: "the string \(text)"
        case .number: "the number \(text)"
        default: "'\(text)'"
        }
    }
}

/// Splits a predicate's text into tokens, one at a time.
struct PredicateLexer {
    let format: String
    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    /// The next token, or `.end` at the end of the text.
    mutating func next() throws(QueryPredicateError) -> PredicateToken {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        let start = position
        guard position < scalars.count else { return PredicateToken(kind: .end, offset: start, text: "") }
        let kind = try lexKind(first: scalars[position])
        return PredicateToken(kind: kind, offset: start, text: text(from: start))
    }

    private mutating func lexKind(first: Unicode.Scalar) throws(QueryPredicateError) -> PredicateToken.Kind {
        let start = position
        if Self.isWordStart(first) { return .word(readWord()) }
        if Self.isDigit(first) || ((first == "." || first == "-") && startsNumber(at: start)) {
            return try readNumber()
        }
        position += 1
        switch first {
        case "'", "\"": return .string(try readString(quote: first, start: start))
        case "(", ")", "{", "}", ",": return .symbol(String(first))
        case "=": return .symbol("=" + take(oneOf: "=<>"))
        case "!": return .symbol("!" + take(oneOf: "="))
        case "<": return .symbol("<" + take(oneOf: "=>"))
        case ">": return .symbol(">" + take(oneOf: "="))
        case "&", "|":
            guard peek == first else { throw error(at: start, "expected '\(first)\(first)', found a single '\(first)'") }
            position += 1
            return .symbol(String(first) + String(first))
        case "[": return .modifier(try readModifier(start: start))
        case "#":
            guard let scalar = peek, Self.isWordStart(scalar) else {
                throw error(at: start, "expected an attribute name after '#'")
            }
            return .escapedWord(readWord())
        case "%":
            switch peek {
            case "@": position += 1; return .valuePlaceholder
            case "K": position += 1; return .keyPlaceholder
            default:
                let specifier = peek.map { "%\($0)" } ?? "%"
                throw error(at: start, "unsupported format specifier '\(specifier)': use %@ for a value and %K for an attribute name")
            }
        default:
            throw error(at: start, "unexpected character '\(first)'")
        }
    }

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    /// Consumes the next character when it is one of `choices`, and returns it (or "").
    private mutating func take(oneOf choices: String) -> String {
        guard let scalar = peek, choices.unicodeScalars.contains(scalar) else { return "" }
        position += 1
        return String(scalar)
    }

    private func text(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<position])
        return String(view)
    }

    /// A word, or a key path of words joined by dots (`feed.title`).
    private mutating func readWord() -> String {
        let start = position
        while true {
            while let scalar = peek, Self.isWordStart(scalar) || Self.isDigit(scalar) { position += 1 }
            guard peek == ".", position + 1 < scalars.count, Self.isWordStart(scalars[position + 1]) else { break }
            position += 1
        }
        return text(from: start)
    }

    private mutating func readString(quote: Unicode.Scalar, start: Int) throws(QueryPredicateError) -> String {
        var view = String.UnicodeScalarView()
        while let scalar = peek {
            position += 1
            if scalar == quote { return String(view) }
            guard scalar == "\\" else { view.append(scalar); continue }
            guard let escaped = peek else { break }
            position += 1
            switch escaped {
            case "\\", "'", "\"": view.append(escaped)
            case "n": view.append("\n")
            case "t": view.append("\t")
            case "r": view.append("\r")
            default:
                throw error(at: position - 2, "unknown escape '\\\(escaped)' in a string: use \\\\, \\', \\\", \\n, \\t or \\r")
            }
        }
        throw error(at: start, "unterminated string: no closing \(quote)")
    }

    private mutating func readModifier(start: Int) throws(QueryPredicateError) -> String {
        let lettersStart = position
        while let scalar = peek, scalar.properties.isAlphabetic { position += 1 }
        let letters = text(from: lettersStart)
        guard peek == "]" else { throw error(at: start, "expected a modifier such as [c] with a closing ']'") }
        position += 1
        return letters
    }

    /// Whether a number starts here: digits, or `-`/`.` followed by one.
    private func startsNumber(at index: Int) -> Bool {
        var index = index
        if scalars[index] == "-" { index += 1 }
        if index < scalars.count, scalars[index] == "." { index += 1 }
        return index < scalars.count && Self.isDigit(scalars[index])
    }

    /// `-?` digits (`.` digits?)? exponent? — an integer when it has neither a point nor an
    /// exponent and fits in Int64, a double otherwise.
    private mutating func readNumber() throws(QueryPredicateError) -> PredicateToken.Kind {
        let start = position
        var isInteger = true
        if peek == "-" { position += 1 }
        skipDigits()
        if peek == "." {
            isInteger = false
            position += 1
            skipDigits()
        }
        if peek == "e" || peek == "E" {
            isInteger = false
            position += 1
            if peek == "+" || peek == "-" { position += 1 }
            guard let scalar = peek, Self.isDigit(scalar) else {
                throw error(at: start, "malformed number '\(text(from: start))': expected digits after the exponent")
            }
            skipDigits()
        }
        if let scalar = peek, Self.isWordStart(scalar) || scalar == "." {
            while let scalar = peek, Self.isWordStart(scalar) || Self.isDigit(scalar) || scalar == "." { position += 1 }
            throw error(at: start, "malformed number '\(text(from: start))'")
        }
        let literal = text(from: start)
        if isInteger, let integer = Int64(literal) { return .number(.integer(integer)) }
        guard let double = Double(literal) else { throw error(at: start, "malformed number '\(literal)'") }
        return .number(.double(double))
    }

    private mutating func skipDigits() {
        while let scalar = peek, Self.isDigit(scalar) { position += 1 }
    }

    private func error(at offset: Int, _ reason: String) -> QueryPredicateError {
        QueryPredicateError(format: format, offset: offset, reason: reason)
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

    static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
    }
}
