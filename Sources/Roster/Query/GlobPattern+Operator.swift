extension GlobPattern {
    /// The pattern for a string operator of a predicate, with the literal's own `*`, `?`
    /// and `[` made literal — except `LIKE`'s `*` and `?`, which are its wildcards. A
    /// folding modifier's literal comes folded, and the subject is folded the same way.
    ///
    /// It works on the literal's bytes: an ASCII byte is always a character of its own to
    /// SQLite's reader, so quoting them never changes how the other bytes read.
    init(operator op: ComparisonOperator, literal: some Sequence<UInt8>) {
        let (star, question, open, close): (UInt8, UInt8, UInt8, UInt8) = (42, 63, 91, 93)
        var body: [UInt8] = []
        for byte in literal {
            switch byte {
            case star where op == .like, question where op == .like:
                body.append(byte)
            case star, question, open:
                body += [open, byte, close]
            default:
                body.append(byte)
            }
        }
        switch op {
        case .beginsWith: self.init(bytes: body + [star])
        case .endsWith: self.init(bytes: [star] + body)
        case .contains: self.init(bytes: [star] + body + [star])
        default: self.init(bytes: body)
        }
    }
}
