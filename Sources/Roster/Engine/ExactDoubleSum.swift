/// The exact sum of finite doubles (and integers), rounded once when read.
///
/// Every finite double is an integer multiple of 2⁻¹⁰⁷⁴, the smallest subnormal, so the sum
/// of any number of them is too: it is kept as a two's complement integer in units of
/// 2⁻¹⁰⁷⁴, 34 words wide (doubles span 2,098 bits, and 64 more hold the carries of 2⁶³
/// additions). Adding and taking away are then exact and undo each other exactly, in any
/// order: a sum that overflowed the double range on the way (1e308 + 1e308) reads as
/// infinite while it does, and as the exact sum again once values are taken away. A
/// compensated double sum (Neumaier's) cannot: its error grows with every value it ever
/// held, and an infinity, once reached, stays.
///
/// ``rounded()`` gives the exact sum rounded to the nearest double (ties to even), ±∞
/// beyond the double range. Written here rather than taken from a library: no package this
/// project may use has an exact accumulator, and aggregates are the product's own.
struct ExactDoubleSum: Sendable {
    /// The words, least significant first; empty while nothing was added.
    private var words: [UInt64] = []
    private static let wordCount = 34
    /// The bit of `words` that stands for 2⁰.
    private static let unitBit = 1074

    /// Adds a finite double (`sign` 1) or takes it away (`sign` -1).
    mutating func add(_ number: Double, sign: Int) {
        guard number.isFinite, number != 0 else { return }
        let exponentBits = Int(number.exponentBitPattern)
        // m × 2^(e − 1075) for a normal number (m with its hidden bit), m × 2⁻¹⁰⁷⁴ for a subnormal.
        let significand = exponentBits == 0 ? number.significandBitPattern : number.significandBitPattern | (1 << 52)
        let negative = (number.sign == .minus) != (sign < 0)
        add(magnitude: UInt128(significand), shiftedBy: exponentBits == 0 ? 0 : exponentBits - 1, negative: negative)
    }

    /// Adds an integer, exactly.
    mutating func add(_ integer: Int128) {
        guard integer != 0 else { return }
        add(magnitude: integer.magnitude, shiftedBy: Self.unitBit, negative: integer < 0)
    }

    /// The sum rounded to the nearest double, ties to even; ±∞ when it is beyond the range.
    func rounded() -> Double {
        guard !words.isEmpty else { return 0 }
        let negative = words[Self.wordCount - 1] >> 63 == 1
        var magnitude = words
        if negative { Self.negate(&magnitude) }
        guard let top = magnitude.lastIndex(where: { $0 != 0 }) else { return 0 }
        let highestBit = top * 64 + (63 - magnitude[top].leadingZeroBitCount)
        // The 64 bits from the highest down, the highest at bit 63, and a sticky bit for any
        // below them: UInt64 → Double then rounds as the whole number would (the rounding
        // position, bit 10, is above the sticky bit).
        var head: UInt64
        if highestBit < 64 {
            head = magnitude[0] << (63 - highestBit)
        } else {
            let low = highestBit - 63
            let (index, shift) = (low / 64, low % 64)
            head = shift == 0 ? magnitude[index] : (magnitude[index] >> shift) | (magnitude[index + 1] << (64 - shift))
            let droppedBelow = shift == 0 ? 0 : magnitude[index] << (64 - shift)
            if droppedBelow != 0 || magnitude[..<index].contains(where: { $0 != 0 }) { head |= 1 }
        }
        if highestBit < 52 {
            // Below the normal range: a subnormal, exactly (a multiple of 2⁻¹⁰⁷⁴ under 2⁻¹⁰²²).
            let value = Double(sign: .plus, exponent: -Self.unitBit, significand: Double(magnitude[0]))
            return negative ? -value : value
        }
        let value = Double(sign: .plus, exponent: highestBit - 63 - Self.unitBit, significand: Double(head))
        return negative ? -value : value
    }

    /// Adds or takes away `magnitude` × 2^`offset` units.
    private mutating func add(magnitude: UInt128, shiftedBy offset: Int, negative: Bool) {
        if words.isEmpty { words = Array(repeating: 0, count: Self.wordCount) }
        let (index, shift) = (offset / 64, offset % 64)
        let low = magnitude << shift
        let high = shift == 0 ? 0 : UInt64(truncatingIfNeeded: magnitude >> (128 - shift))
        var carry = false
        step(index, UInt64(truncatingIfNeeded: low), negative, &carry)
        step(index + 1, UInt64(truncatingIfNeeded: low >> 64), negative, &carry)
        step(index + 2, high, negative, &carry)
        var position = index + 3
        while carry && position < Self.wordCount {
            step(position, 0, negative, &carry)
            position += 1
        }
    }

    /// Adds or takes away `part` and the carry (borrow) at word `position`.
    private mutating func step(_ position: Int, _ part: UInt64, _ negative: Bool, _ carry: inout Bool) {
        guard position < Self.wordCount else { return }
        if negative {
            let (difference, borrowed) = words[position].subtractingReportingOverflow(part)
            let (result, borrowedAgain) = difference.subtractingReportingOverflow(carry ? 1 : 0)
            words[position] = result
            carry = borrowed || borrowedAgain
        } else {
            let (sum, overflowed) = words[position].addingReportingOverflow(part)
            let (result, overflowedAgain) = sum.addingReportingOverflow(carry ? 1 : 0)
            words[position] = result
            carry = overflowed || overflowedAgain
        }
    }

    /// Two's complement negation in place.
    private static func negate(_ words: inout [UInt64]) {
        var carry = true
        for index in words.indices {
            let (sum, overflowed) = (~words[index]).addingReportingOverflow(carry ? 1 : 0)
            words[index] = sum
            carry = overflowed
        }
    }
}
