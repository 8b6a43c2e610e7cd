import CRosterText

/// What a predicate's modifier folds before two strings compare: `[c]` the case of every
/// letter (Unicode's full case folding: `ß` matches `ss`, `Σ`, `σ` and `ς` match), `[d]`
/// diacritics (canonical decomposition, then every nonspacing mark dropped: `é` matches
/// `e`), `[cd]` both (diacritics, case, then diacritics again).
///
/// One implementation folds for both sides of a predicate: Swift's evaluator calls it
/// directly, and SQLite through the SQL function `roster_fold(value, mode)` that every
/// connection of the store registers (`Connection`), so the two give the same
/// answer for every stored value. Text that is not valid UTF-8 keeps its invalid bytes and
/// folds the rest; values that are not text are not folded.
struct TextFolding: OptionSet, Sendable, Hashable {
    let rawValue: Int32

    /// `[c]`: Unicode full case folding (CaseFolding.txt, statuses C and F).
    static let caseInsensitive = TextFolding(rawValue: Int32(ROSTER_FOLD_CASE))
    /// `[d]`: canonical decomposition, then nonspacing marks (general category Mn) dropped.
    static let diacriticInsensitive = TextFolding(rawValue: Int32(ROSTER_FOLD_DIACRITICS))

    /// The Unicode version of the folding tables.
    static var unicodeVersion: String { String(cString: roster_fold_unicode_version()) }

    /// The modifier as a predicate writes it: `[c]`, `[d]`, `[cd]`, or nothing.
    var modifier: String {
        isEmpty ? "" : "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }

    /// The folding a modifier's letters ask for (`c`, `d`, in either order, in any case),
    /// or nil for any other letters.
    init?(modifier letters: String) {
        var folding: TextFolding = []
        for letter in letters.lowercased() {
            let option: TextFolding
            switch letter {
            case "c": option = .caseInsensitive
            case "d": option = .diacriticInsensitive
            default: return nil
            }
            guard !folding.contains(option) else { return nil }
            folding.insert(option)
        }
        guard !folding.isEmpty else { return nil }
        self = folding
    }

    init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The folded text of these bytes, or nil when folding leaves them as they are.
    func fold(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !isEmpty, let base = bytes.baseAddress else { return nil }
        var changes: Int32 = 0
        let length = roster_fold_measure(base, bytes.count, rawValue, &changes)
        guard changes != 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            count = buffer.baseAddress.map { roster_fold(base, bytes.count, rawValue, $0) } ?? 0
        }
    }

    /// The value with its text folded; a value that is not text, and text that folding
    /// leaves as it is, come back unchanged.
    func fold(_ value: Value) -> Value {
        guard let folded = value.withTextBytes({ fold($0) }), let folded else { return value }
        return Value(textBytes: folded)
    }

    /// The SQL that folds an expression as ``fold(_:)-(Value)`` folds a value.
    func sql(_ expression: String) -> String {
        "roster_fold(\(expression), \(rawValue))"
    }
}
