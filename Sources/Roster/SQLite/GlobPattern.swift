/// A pattern with the syntax and meaning of SQLite's `GLOB`, over the whole text: what a
/// predicate's string operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`) match.
///
/// `*` matches any run of characters, `?` exactly one, `[…]` one from a set (`^` first
/// inverts it, `a-z` is a range, a `]` first is a member); every other character matches
/// itself. As in SQLite, a set that never closes matches nothing. Unlike SQLite's `GLOB`,
/// which stops at the first NUL of the pattern and of the subject (`'x' GLOB 'x' || char(0)
/// || '*'` is true), a NUL is a character like any other: the whole texts are compared,
/// as `==` and the order compare them. SQL runs the same code (``GlobFunction``,
/// `roster_glob(pattern, subject)`), so SQLite and Swift give one answer.
///
/// "Characters" are what SQLite's lenient UTF-8 reader makes of the bytes
/// (``SQLiteUTF8/read(_:at:)``), on both sides: for valid UTF-8 they are its Unicode
/// scalars; text that is not valid UTF-8 (``Value/invalidUTF8(_:)``) is read byte for
/// byte the way SQLite reads it, so both give the same answer for every stored value.
///
/// - Complexity: ``matches(_:)`` reads the subject once: O(*n*·⌈*k*/64⌉) for a subject of
///   *n* characters and a pattern whose longest run without `*` has *k* tokens
///   (``GlobMatcher``).
struct GlobPattern: Sendable, Hashable {
    /// The pattern's bytes, as SQLite receives them.
    let bytes: [UInt8]
    /// The pattern compiled for matching in one pass (``GlobMatcher``); nil when a set never closes.
    private let matcher: GlobMatcher?

    /// A pattern's tokens are the matcher's.
    private typealias Token = GlobToken

    /// Compiles a pattern given as text.
    init(_ text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Compiles a pattern given as bytes, following SQLite's `patternCompare` for sets.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        var characters: [UInt32] = []
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                characters.append(SQLiteUTF8.read(buffer, at: &index))
            }
        }
        let (star, question, open, close, caret, dash): (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (42, 63, 91, 93, 94, 45)
        var tokens: [Token] = []
        var index = 0
        func next() -> UInt32? {
            defer { index += 1 }
            return index < characters.count ? characters[index] : nil
        }
        while let character = next() {
            switch character {
            case star: tokens.append(.anyRun)
            case question: tokens.append(.anyOne)
            case open:
                var members: [ClosedRange<UInt32>] = []
                var inverted = false
                var prior: UInt32?
                var member = next()
                if member == caret { inverted = true; member = next() }
                if member == close { members.append(close...close); member = next() }
                while let current = member, current != close {
                    if current == dash, let low = prior, index < characters.count, characters[index] != close {
                        let high = characters[index]
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
                guard member == close else { matcher = nil; return }
                tokens.append(.set(members: members, inverted: inverted))
            default:
                tokens.append(.character(character))
            }
        }
        matcher = GlobMatcher(tokens)
    }

    /// The pattern as the value bound to SQL: text, or the raw bytes when the pattern is
    /// not valid UTF-8 (it came from a ``Value/invalidUTF8(_:)`` argument).
    var value: Value { Value(textBytes: bytes) }

    /// Whether the whole of `subject` matches the whole pattern.
    func matches(_ subject: String) -> Bool {
        var subject = subject
        return subject.withUTF8 { matches(utf8: $0) }
    }

    /// Whether a text value (``Value/string(_:)`` or ``Value/invalidUTF8(_:)``) matches;
    /// false for every other value.
    func matches(_ subject: Value) -> Bool {
        subject.withTextBytes { matches(utf8: $0) } ?? false
    }

    /// Whether the text whose bytes these are matches the whole pattern.
    func matches(utf8 subject: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let matcher else { return false }
        // One pass over the subject, whatever the pattern (see GlobMatcher).
        var reader = SQLiteTextReader(bytes: subject)
        return matcher.matches(&reader)
    }
}

/// Reads text as SQLite's lenient UTF-8 reader does (``SQLiteUTF8/read(_:at:)``), to its
/// end: a NUL is a character.
private struct SQLiteTextReader: GlobSubject {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func next() -> UInt32? {
        guard position < bytes.count else { return nil }
        return SQLiteUTF8.read(bytes, at: &position)
    }
}
