/// SQLite's lenient UTF-8 reader, `sqlite3Utf8Read` in SQLite's `utf.c`: how `GLOB` (and
/// so every string operator of a predicate) reads the characters of text, whether or not
/// the text is valid UTF-8.
///
/// Swift reads the pattern and the subject of a ``GlobPattern`` with it too, so that both
/// sides agree on every stored value, ``Value/invalidUTF8(_:)`` included. Its rules:
///
/// - A byte below `0xC0` is a character of its own, with the byte's value. So every ASCII
///   byte is always its own character, and a stray continuation byte (`0x80`–`0xBF`) reads
///   as U+0080–U+00BF.
/// - A byte from `0xC0` up starts a character: its low bits (5 for `0xC0`–`0xDF`, 4 for
///   `0xE0`–`0xEF`, 3 for `0xF0`–`0xF7`, 2 for `0xF8`–`0xFB`, 1 for `0xFC`–`0xFD`, none
///   for `0xFE`–`0xFF`), then 6 bits from each continuation byte that follows, however
///   many there are (32-bit arithmetic that wraps).
/// - Such a character below `0x80` (an overlong ASCII), a UTF-16 surrogate
///   (`0xD800`–`0xDFFF`) and — in the SQLite versions that do so, such as 3.40 —
///   `0xFFFE` and `0xFFFF` read as U+FFFD. Other overlong forms and values above
///   U+10FFFF are kept as they are.
/// - A NUL byte is the character 0. (SQLite's `GLOB` stops there; ``GlobPattern`` reads on.)
///
/// For valid UTF-8 the characters are its Unicode scalars, but for U+FFFE and U+FFFF in
/// the versions that replace them.
enum SQLiteUTF8 {
    /// Reads the character at `index`, which must be in `bytes`, and moves `index` past it.
    ///
    /// A result of 0 is a NUL byte.
    @inline(__always)
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32 {
        var character = UInt32(bytes[index])
        index += 1
        guard character >= 0xC0 else { return character }
        character = leadBits(character)
        while index < bytes.count, bytes[index] & 0xC0 == 0x80 {
            character = (character &<< 6) &+ UInt32(bytes[index] & 0x3F)
            index += 1
        }
        if character < 0x80 || character & 0xFFFF_F800 == 0xD800
            || (replacesNoncharacters && character & 0xFFFF_FFFE == 0xFFFE) {
            character = 0xFFFD
        }
        return character
    }

    /// The bits a lead byte (`0xC0` or more) contributes: SQLite's `sqlite3Utf8Trans1`.
    @inline(__always)
    private static func leadBits(_ lead: UInt32) -> UInt32 {
        switch lead {
        case 0xC0...0xDF: lead & 0x1F
        case 0xE0...0xEF: lead & 0x0F
        case 0xF0...0xF7: lead & 0x07
        case 0xF8...0xFB: lead & 0x03
        case 0xFC...0xFD: lead & 0x01
        default: 0
        }
    }

    /// Whether the SQLite library in use reads U+FFFE and U+FFFF as U+FFFD, as 3.40 does
    /// and later versions do not: asked of SQLite itself, once, on a memory database.
    /// When it cannot be asked, the answer is that of the version Roster is built and
    /// tested with (3.40: yes).
    static let replacesNoncharacters: Bool = {
        do {
            let connection = try Connection(path: ":memory:")
            let statement = try connection.prepare("SELECT char(65534) GLOB char(65533)")
            guard try statement.step() else { return true }
            return statement.column(0) == .integer(1)
        } catch {
            return true
        }
    }()
}
