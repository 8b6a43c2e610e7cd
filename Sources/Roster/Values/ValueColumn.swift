/// One attribute's values for many rows, indexed by row, stored as compactly as the values
/// allow: a column whose values are all integers keeps `Int64`s (8 bytes a row), all
/// doubles `Double`s (8), all bools `Bool`s (1), all valid strings `String`s (16, short
/// ones inline) — or, while few of them differ (a section's day, a company), a 4-byte
/// code per row into a table of the distinct strings. The first value of another kind — a
/// null, or text another writer stored in an integer column — turns it into a column of
/// `Value`s (24 bytes a row) for good, so every value reads back exactly as it was stored.
///
/// This is what a live query keeps of its million rows (keys and sort values), so its
/// bytes a row are most of the engine's memory; comparing two rows of a typed column
/// also skips the switch over both values' cases, and two rows with one code compare
/// equal without reading their strings.
///
/// A class, owned by one scan and then one arena (never shared, so not `Sendable`): read
/// at every comparison of a tree search, a struct of several arrays was copied — a
/// retain of each array — whenever the optimizer could not prove it unchanged.
final class ValueColumn {
    /// How the values are held: in which one of the arrays below.
    enum Storage: UInt8 {
        case integers, doubles, codedStrings, strings, bools, values
    }

    /// The most distinct strings a coded column keeps below one per ``codedRowsPerString``
    /// rows; past both it stores its strings row by row.
    static let codedStringsAlways = 256
    /// Rows per distinct string that coding needs to save memory (a code is 4 bytes, a
    /// distinct string costs its 16 bytes, its table entry and the lookup's).
    static let codedRowsPerString = 8

    private(set) var storage: Storage
    // Read at every comparison: no access overlaps another (one thread, and no method
    // holds one across a call that writes them), so the dynamic checks are off.
    @exclusivity(unchecked) private var integers: [Int64] = []
    @exclusivity(unchecked) private var doubles: [Double] = []
    @exclusivity(unchecked) private var strings: [String] = []
    /// Coded strings: each row's code, the strings by code, and the code of each string
    /// (by its bytes, as ``Value`` hashes). A code stays in the table when its last row
    /// goes: the table's size is bounded by the rule of ``codedRowsPerString``.
    @exclusivity(unchecked) private var codes: [UInt32] = []
    @exclusivity(unchecked) private var distinct: [String] = []
    private var codeOfString: [Value: UInt32] = [:]
    /// The string coded last and its code: the rows of one commit often share a string
    /// (a renamed section's new name), and comparing its bytes is cheaper than hashing them.
    private var lastCoded: (text: String, code: UInt32)?
    @exclusivity(unchecked) private var bools: [Bool] = []
    @exclusivity(unchecked) private var values: [Value] = []

    /// An empty column for an attribute of this type: typed until a value says otherwise.
    init(type: AttributeType) {
        switch type {
        case .integer: storage = .integers
        case .double: storage = .doubles
        case .string: storage = .codedStrings
        case .bool: storage = .bools
        }
    }

    /// How many rows the column holds.
    var count: Int {
        switch storage {
        case .integers: integers.count
        case .doubles: doubles.count
        case .codedStrings: codes.count
        case .strings: strings.count
        case .bools: bools.count
        case .values: values.count
        }
    }

    /// Row `index`'s value.
    subscript(index: Int) -> Value {
        @inline(__always) get {
            switch storage {
            case .integers: .integer(integers[index])
            case .doubles: .double(doubles[index])
            case .codedStrings: .string(distinct[Int(codes[index])])
            case .strings: .string(strings[index])
            case .bools: .bool(bools[index])
            case .values: values[index]
            }
        }
        set {
            if store(newValue, at: index) { return }
            becomeValues()
            values[index] = newValue
        }
    }

    func append(_ value: Value) {
        switch (storage, value) {
        case let (.integers, .integer(number)): integers.append(number)
        case let (.doubles, .double(number)): doubles.append(number)
        case let (.codedStrings, .string(text)):
            codes.append(code(of: text, value: value))
            keepCodingWorthwhile()
        case let (.strings, .string(text)): strings.append(text)
        case let (.bools, .bool(flag)): bools.append(flag)
        case (.values, _): values.append(value)
        default:
            becomeValues()
            values.append(value)
        }
    }

    /// Appends the last row's value again: what a scan in order does row after row (a
    /// section's day), without looking the value up.
    func appendRepeatingLast() {
        guard count > 0 else { return }
        switch storage {
        case .integers: integers.append(integers[integers.count - 1])
        case .doubles: doubles.append(doubles[doubles.count - 1])
        case .codedStrings: codes.append(codes[codes.count - 1])
        case .strings: strings.append(strings[strings.count - 1])
        case .bools: bools.append(bools[bools.count - 1])
        case .values: values.append(values[values.count - 1])
        }
    }

    /// Makes room for `count` rows in all, so that filling the column never reallocates.
    func reserveCapacity(_ count: Int) {
        switch storage {
        case .integers: integers.reserveCapacity(count)
        case .doubles: doubles.reserveCapacity(count)
        case .codedStrings: codes.reserveCapacity(count)
        case .strings: strings.reserveCapacity(count)
        case .bools: bools.reserveCapacity(count)
        case .values: values.reserveCapacity(count)
        }
    }

    /// Drops row `index`'s value (a string's storage, say) and keeps its place, so that
    /// the row can be reused: a free row holds the cheapest value of the column's kind.
    func clear(at index: Int) {
        switch storage {
        case .integers: integers[index] = 0
        case .doubles: doubles[index] = 0
        case .codedStrings: break  // its string stays in the table anyway
        case .strings: strings[index] = ""
        case .bools: bools[index] = false
        case .values: values[index] = .null
        }
    }

    /// Compares rows `a` and `b` as ``Value/compare(_:_:)`` compares their values.
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        switch storage {
        case .integers:
            let (x, y) = (integers[a], integers[b])
            return x < y ? -1 : (x > y ? 1 : 0)
        case .codedStrings:
            let (x, y) = (codes[a], codes[b])
            return x == y ? 0 : Value.compareStrings(distinct[Int(x)], distinct[Int(y)])
        case .strings:
            return Value.compareStrings(strings[a], strings[b])
        case .doubles, .bools, .values:
            return Value.compare(self[a], self[b])
        }
    }

    /// Whether row `index` holds `value` (by ``Value``'s `==`).
    @inline(__always)
    func holds(_ value: Value, at index: Int) -> Bool {
        switch (storage, value) {
        case let (.integers, .integer(number)): integers[index] == number
        default: self[index] == value
        }
    }

    /// Stores `value` at `index` if the column's kind holds it; false if it does not.
    private func store(_ value: Value, at index: Int) -> Bool {
        switch (storage, value) {
        case let (.integers, .integer(number)): integers[index] = number
        case let (.doubles, .double(number)): doubles[index] = number
        case let (.codedStrings, .string(text)):
            // Most rewrites keep the string (a row that moves within its day).
            if Value.compareStrings(distinct[Int(codes[index])], text) == 0 { return true }
            codes[index] = code(of: text, value: value)
            keepCodingWorthwhile()
        case let (.strings, .string(text)): strings[index] = text
        case let (.bools, .bool(flag)): bools[index] = flag
        case (.values, _): values[index] = value
        default: return false
        }
        return true
    }

    /// The code of a string (`value` is `.string(text)`), added to the table if new.
    private func code(of text: String, value: Value) -> UInt32 {
        if let lastCoded, Value.compareStrings(lastCoded.text, text) == 0 { return lastCoded.code }
        let code: UInt32
        if let known = codeOfString[value] {
            code = known
        } else {
            code = UInt32(distinct.count)
            distinct.append(text)
            codeOfString[value] = code
        }
        lastCoded = (text, code)
        return code
    }

    /// Stores strings row by row once so many differ that codes would cost more.
    private func keepCodingWorthwhile() {
        guard distinct.count > Self.codedStringsAlways, distinct.count * Self.codedRowsPerString > codes.count else { return }
        strings = codes.map { distinct[Int($0)] }
        dropCodes()
        storage = .strings
    }

    private func dropCodes() {
        codes = []
        distinct = []
        codeOfString = [:]
        lastCoded = nil
    }

    /// Moves every value into ``values``, where any value fits.
    private func becomeValues() {
        guard storage != .values else { return }
        var all: [Value] = []
        all.reserveCapacity(count)
        for index in 0..<count { all.append(self[index]) }
        integers = []
        doubles = []
        strings = []
        dropCodes()
        bools = []
        values = all
        storage = .values
    }
}
