/// A pattern for SQLite's `GLOB`, matched in Swift exactly as SQLite matches it.
///
/// `*` matches any run of Unicode scalars, `?` exactly one, `[…]` one from a set (`^`
/// first inverts it, `a-z` is a range, a `]` first is a member); every other scalar
/// matches itself. As in SQLite, a NUL ends both the pattern and the subject, and a set
/// that never closes matches nothing.
///
/// - Complexity: ``matches(_:)`` is O(*n*·*m*) for a subject of *n* scalars and a
///   pattern of *m* tokens, without recursion.
struct GlobPattern: Sendable, Hashable {
    /// The pattern text, as SQLite receives it.
    let text: String
    /// The compiled pattern; nil when a set never closes.
    private let tokens: [Token]?

    private enum Token: Sendable, Hashable {
        case anyRun
        case anyOne
        case scalar(Unicode.Scalar)
        case set(members: [ClosedRange<Unicode.Scalar>], inverted: Bool)

        func matches(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .anyRun, .anyOne: true
            case let .scalar(expected): scalar == expected
            case let .set(members, inverted): members.contains { $0.contains(scalar) } != inverted
            }
        }
    }

    /// Compiles a pattern, following SQLite's `patternCompare` for sets.
    init(_ text: String) {
        self.text = text
        let scalars = Array(text.unicodeScalars.prefix { $0 != "\0" })
        var tokens: [Token] = []
        var index = 0
        func next() -> Unicode.Scalar? {
            defer { index += 1 }
            return index < scalars.count ? scalars[index] : nil
        }
        while let scalar = next() {
            switch scalar {
            case "*": tokens.append(.anyRun)
            case "?": tokens.append(.anyOne)
            case "[":
                var members: [ClosedRange<Unicode.Scalar>] = []
                var inverted = false
                var prior: Unicode.Scalar?
                var member = next()
                if member == "^" { inverted = true; member = next() }
                if member == "]" { members.append("]"..."]"); member = next() }
                while let current = member, current != "]" {
                    if current == "-", let low = prior, index < scalars.count, scalars[index] != "]" {
                        let high = scalars[index]
                        index += 1
                        // SQLite tests `c >= low && c <= high`: an inverted range holds nothing.
                        if low <= high { members.append(low...high) }
                        prior = nil
                    } else {
                        members.append(current...current)
                        prior = current
                    }
                    member = next()
                }
                guard member == "]" else { self.tokens = nil; return }
                tokens.append(.set(members: members, inverted: inverted))
            default:
                tokens.append(.scalar(scalar))
            }
        }
        self.tokens = tokens
    }

    /// Whether `subject` matches the whole pattern, as SQLite's `subject GLOB pattern`.
    func matches(_ subject: String) -> Bool {
        guard let tokens else { return false }
        let scalars = subject.unicodeScalars
        var position = scalars.startIndex
        var token = 0
        // The last `*` seen, and where in the subject its current try of a run ends.
        var star: (token: Int, position: String.UnicodeScalarView.Index)?
        while position != scalars.endIndex, scalars[position] != "\0" {
            if token < tokens.count, tokens[token] == .anyRun {
                star = (token, position)
                token += 1
            } else if token < tokens.count, tokens[token].matches(scalars[position]) {
                token += 1
                position = scalars.index(after: position)
            } else if let last = star {
                // Let the last `*` take one more scalar, and match the rest again after it.
                let retry = scalars.index(after: last.position)
                star = (last.token, retry)
                token = last.token + 1
                position = retry
            } else {
                return false
            }
        }
        while token < tokens.count, tokens[token] == .anyRun { token += 1 }
        return token == tokens.count
    }
}

extension GlobPattern {
    /// The pattern for a string operator of a predicate, with the literal's own `*`, `?`
    /// and `[` made literal — except `LIKE`'s `*` and `?`, which are its wildcards — and,
    /// for `[c]`, each ASCII letter `x` written `[xX]`.
    init(operator op: ComparisonOperator, literal: String, caseInsensitive: Bool) {
        var body = ""
        for scalar in literal.unicodeScalars {
            switch scalar {
            case "*" where op == .like, "?" where op == .like:
                body.unicodeScalars.append(scalar)
            case "*", "?", "[":
                body += "[\(scalar)]"
            case "a"..."z" where caseInsensitive, "A"..."Z" where caseInsensitive:
                let lower = Unicode.Scalar(Value.foldASCII(UInt8(scalar.value)))
                body += "[\(lower)\(Character(lower).uppercased())]"
            default:
                body.unicodeScalars.append(scalar)
            }
        }
        switch op {
        case .beginsWith: self.init(body + "*")
        case .endsWith: self.init("*" + body)
        case .contains: self.init("*" + body + "*")
        default: self.init(body)
        }
    }
}
