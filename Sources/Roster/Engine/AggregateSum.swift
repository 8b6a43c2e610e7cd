/// A running sum that values can be added to and taken away from in any order and still
/// give the sum of the values it holds: exact for integers, compensated for doubles.
///
/// Integers (and bools, as 0 and 1) add into a 128-bit integer, so a sum that leaves
/// Int64's range on the way and comes back is exact again; only a final value outside it
/// cannot be given (``value(isReal:)`` returns nil). Doubles add with Neumaier's
/// compensation (Kahan–Babuška), so taking a value away undoes its rounding error as far
/// as a second double can hold it: after any sequence of additions and removals, the sum
/// stays within a few units in the last place of the exact sum of what it holds (the
/// Kahan–Babuška–Neumaier sum SQLite's own `SUM` uses since 3.43). Infinities are counted
/// apart, so that removing one gives back a finite sum.
struct AggregateSum: Sendable, Hashable {
    private var integer: Int128 = 0
    private var real: Double = 0
    private var compensation: Double = 0
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
                addReal(Double(sign) * number)
                reals += sign
                // Every double gone: exactly zero again, whatever rounding was left.
                if reals == 0 { (real, compensation) = (0, 0) }
            }
        case .null, .string, .invalidUTF8:
            break
        }
    }

    /// Adds `objects` to a count (negative: takes them away).
    mutating func addCount(_ objects: Int) {
        integer &+= Int128(objects)
    }

    private mutating func addReal(_ number: Double) {
        let sum = real + number
        // Neumaier: the low-order bits of whichever operand was smaller in magnitude.
        if abs(real) >= abs(number) {
            compensation += (real - sum) + number
        } else {
            compensation += (number - sum) + real
        }
        real = sum
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
            var total = self
            total.addReal(Double(integer))
            return .double(total.real + total.compensation)
        }
        return Int64(exactly: integer).map(Value.integer)
    }

    /// The sum as a count.
    var count: Int { Int(truncatingIfNeeded: integer) }
}
