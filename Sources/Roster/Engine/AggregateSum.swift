/// A running sum that values can be added to and taken away from in any order and still
/// give the sum of the values it holds.
///
/// Integers (and bools, as 0 and 1) add into a 128-bit integer, so a sum that leaves
/// Int64's range on the way and comes back is exact again; only a final value outside it
/// cannot be given (``value(isReal:)`` returns nil). Finite doubles add into an exact sum
/// (``ExactDoubleSum``), rounded once when read: after any sequence of additions and
/// removals it is the exact sum of what it holds, rounded to the nearest double — infinite
/// while that is beyond the double range, finite again once it is back. Infinities are
/// counted apart, so that removing one gives back the finite sum.
struct AggregateSum: Sendable {
    private var integer: Int128 = 0
    private var exact = ExactDoubleSum()
    /// How many finite doubles it holds (a sum of an integer attribute that meets one, from
    /// a table another writer made, is a double from then on).
    private var reals = 0
    private var positiveInfinities = 0
    private var negativeInfinities = 0

    /// Adds `value` (`sign` 1) or takes it away (`sign` -1). Nulls and text add nothing.
    mutating func add(_ value: Value, sign: Int) {
        switch value {
        case let .integer(number):
            // Wrapping: 2^64 values of Int64.max would be needed to reach the end of 128 bits.
            integer &+= Int128(sign) &* Int128(number)
        case let .bool(flag):
            if flag { integer &+= Int128(sign) }
        case let .double(number):
            if number.isInfinite {
                if number > 0 { positiveInfinities += sign } else { negativeInfinities += sign }
            } else if !number.isNaN {
                exact.add(number, sign: sign)
                reals += sign
            }
        case .null, .string, .invalidUTF8:
            break
        }
    }

    /// Adds `objects` to a count (negative: takes them away).
    mutating func addCount(_ objects: Int) {
        integer &+= Int128(objects)
    }

    /// The sum: a double for a double attribute (`isReal`) or once a double was added,
    /// else an integer; null when it holds both infinities; nil when an integer sum is
    /// outside Int64's range.
    func value(isReal: Bool) -> Value? {
        if positiveInfinities > 0 || negativeInfinities > 0 {
            if positiveInfinities > 0 && negativeInfinities > 0 { return .null }
            return .double(positiveInfinities > 0 ? .infinity : -.infinity)
        }
        if isReal || reals != 0 {
            var total = exact
            total.add(integer)
            return .double(total.rounded())
        }
        return Int64(exactly: integer).map(Value.integer)
    }

    /// The sum as a count.
    var count: Int { Int(truncatingIfNeeded: integer) }
}
