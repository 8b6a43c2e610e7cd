/// One position of a compiled `GLOB` pattern.
enum GlobToken: Sendable, Hashable {
    /// `*`: any run of characters.
    case anyRun
    /// `?`: exactly one character.
    case anyOne
    /// One character, as SQLite's UTF-8 reader reads it.
    case character(UInt32)
    /// `[…]`: one character in (or, inverted, not in) the ranges.
    case set(members: [ClosedRange<UInt32>], inverted: Bool)
}

/// Reads a subject's characters one at a time for ``GlobMatcher``: nil at the end.
protocol GlobSubject {
    mutating func next() -> UInt32?
}

/// Matches a `GLOB` pattern in time linear in the subject for each fixed-length piece of
/// the pattern, so that no predicate within ``PredicateLimits`` takes long on a long value.
///
/// The pattern is cut at its `*`s into segments of fixed length (characters, `?` and
/// sets each match exactly one character). A subject matches when the first segment
/// matches at its start (unless the pattern starts with `*`), the last at its end (unless
/// it ends with `*`), and the segments in between one after the other. For segments of
/// fixed length, taking each middle segment at its leftmost match is always right: it
/// leaves the most room for the rest. Each segment is found with the bit-parallel
/// Shift-And algorithm: one pass over the subject, O(*n*·⌈*k*/64⌉) for a segment of *k*
/// positions, instead of the O(*n*·*k*) of backtracking.
struct GlobMatcher: Sendable, Hashable {
    /// One fixed-length piece of the pattern, ready for Shift-And.
    struct Segment: Sendable, Hashable {
        let tokens: [GlobToken]
        /// 64-bit words per state.
        let width: Int
        /// For each ASCII character, the positions that match it: `width` words each.
        let asciiMasks: [UInt64]
        /// The positions that match other characters, for those the pattern names.
        let otherMasks: [UInt32: [UInt64]]
        /// The positions of `?`, which match every character.
        let anyMask: [UInt64]
        /// Positions of sets other than a few single characters, tested one by one.
        let sets: [(position: Int, members: [ClosedRange<UInt32>], inverted: Bool)]

        init(_ tokens: [GlobToken]) {
            self.tokens = tokens
            let width = (tokens.count + 63) / 64
            self.width = width
            var ascii = [UInt64](repeating: 0, count: 128 * width)
            var other: [UInt32: [UInt64]] = [:]
            var any = [UInt64](repeating: 0, count: width)
            var sets: [(Int, [ClosedRange<UInt32>], Bool)] = []
            func mark(_ character: UInt32, _ position: Int) {
                let (word, bit) = (position / 64, UInt64(1) << UInt64(position % 64))
                if character < 128 {
                    ascii[Int(character) * width + word] |= bit
                } else {
                    other[character, default: [UInt64](repeating: 0, count: width)][word] |= bit
                }
            }
            for (position, token) in tokens.enumerated() {
                switch token {
                case .anyRun:
                    break  // never inside a segment
                case .anyOne:
                    any[position / 64] |= UInt64(1) << UInt64(position % 64)
                case let .character(character):
                    mark(character, position)
                case let .set(members, inverted):
                    // `[xX]` for [c] and `[*]` for a quoted wildcard: a few characters.
                    let size = members.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 }
                    if !inverted && size <= 8 {
                        for range in members { for character in range { mark(character, position) } }
                    } else {
                        sets.append((position, members, inverted))
                    }
                }
            }
            asciiMasks = ascii
            otherMasks = other
            anyMask = any
            self.sets = sets
        }

        /// Whether the token at `position` matches `character`.
        func matches(_ character: UInt32, at position: Int) -> Bool {
            switch tokens[position] {
            case .anyRun, .anyOne: true
            case let .character(expected): character == expected
            case let .set(members, inverted): members.contains { $0.contains(character) } != inverted
            }
        }

        /// The positions that match `character`, for a segment of one word.
        func mask(for character: UInt32) -> UInt64 {
            var mask = anyMask[0]
            if character < 128 {
                mask |= asciiMasks[Int(character)]
            } else if let masks = otherMasks[character] {
                mask |= masks[0]
            }
            for set in sets where set.members.contains(where: { $0.contains(character) }) != set.inverted {
                mask |= UInt64(1) << UInt64(set.position)
            }
            return mask
        }

        /// The positions that match `character`, into `mask` (`width` words).
        func mask(for character: UInt32, into mask: inout [UInt64]) {
            for word in 0..<width { mask[word] = anyMask[word] }
            if character < 128 {
                let base = Int(character) * width
                for word in 0..<width { mask[word] |= asciiMasks[base + word] }
            } else if let masks = otherMasks[character] {
                for word in 0..<width { mask[word] |= masks[word] }
            }
            for set in sets where set.members.contains(where: { $0.contains(character) }) != set.inverted {
                mask[set.position / 64] |= UInt64(1) << UInt64(set.position % 64)
            }
        }

        static func == (lhs: Segment, rhs: Segment) -> Bool { lhs.tokens == rhs.tokens }
        func hash(into hasher: inout Hasher) { hasher.combine(tokens) }
    }

    /// The segments, in order; empty for a pattern of only `*`s.
    let segments: [Segment]
    /// Whether the pattern starts with `*` (the first segment may match anywhere).
    let startsWithRun: Bool
    /// Whether the pattern ends with `*` (the last segment may match anywhere).
    let endsWithRun: Bool

    init(_ tokens: [GlobToken]) {
        var segments: [[GlobToken]] = [[]]
        for token in tokens {
            if token == .anyRun {
                if !(segments.last?.isEmpty ?? true) { segments.append([]) }
            } else {
                segments[segments.count - 1].append(token)
            }
        }
        if segments.last?.isEmpty == true { segments.removeLast() }
        self.segments = segments.map(Segment.init)
        startsWithRun = tokens.first == .anyRun
        endsWithRun = tokens.last == .anyRun
    }

    /// Whether the characters of `subject` match the whole pattern; each is read once.
    func matches<Subject: GlobSubject>(_ subject: inout Subject) -> Bool {
        var remaining = segments[...]
        // The first segment, anchored at the start: compared position by position.
        if !startsWithRun, let first = remaining.first {
            for position in first.tokens.indices {
                guard let character = subject.next(), first.matches(character, at: position) else { return false }
            }
            remaining = remaining.dropFirst()
            if remaining.isEmpty { return endsWithRun || subject.next() == nil }
        }
        guard let last = remaining.last else {
            // Only `*`s after the first segment (or none at all): any rest matches, but a
            // pattern without `*` must have ended with the subject.
            return endsWithRun || startsWithRun || subject.next() == nil
        }
        // Middle segments: each at its leftmost match after the previous one.
        let middle = endsWithRun ? remaining[...] : remaining.dropLast()
        for segment in middle {
            guard Self.findLeftmost(segment, &subject) else { return false }
        }
        if endsWithRun { return true }
        // The last segment, anchored at the end: does a match end with the subject's last character?
        return Self.endsWithMatch(last, &subject)
    }

    /// Reads characters until `segment` has matched; false when the subject ends first.
    private static func findLeftmost<Subject: GlobSubject>(_ segment: Segment, _ subject: inout Subject) -> Bool {
        let accept = segment.tokens.count - 1
        if segment.width == 1 {
            let acceptBit = UInt64(1) << UInt64(accept)
            var state: UInt64 = 0
            while let character = subject.next() {
                state = ((state << 1) | 1) & segment.mask(for: character)
                if state & acceptBit != 0 { return true }
            }
            return false
        }
        var state = [UInt64](repeating: 0, count: segment.width)
        var mask = state
        while let character = subject.next() {
            segment.mask(for: character, into: &mask)
            shift(&state, and: mask)
            if state[accept / 64] & (UInt64(1) << UInt64(accept % 64)) != 0 { return true }
        }
        return false
    }

    /// Reads the rest of the subject; whether `segment` matches its very end.
    private static func endsWithMatch<Subject: GlobSubject>(_ segment: Segment, _ subject: inout Subject) -> Bool {
        let accept = segment.tokens.count - 1
        if segment.width == 1 {
            var state: UInt64 = 0
            while let character = subject.next() {
                state = ((state << 1) | 1) & segment.mask(for: character)
            }
            return state & (UInt64(1) << UInt64(accept)) != 0
        }
        var state = [UInt64](repeating: 0, count: segment.width)
        var mask = state
        var isMatched = false
        while let character = subject.next() {
            segment.mask(for: character, into: &mask)
            shift(&state, and: mask)
            isMatched = state[accept / 64] & (UInt64(1) << UInt64(accept % 64)) != 0
        }
        return isMatched
    }

    /// `state = ((state << 1) | 1) & mask`, over several words.
    private static func shift(_ state: inout [UInt64], and mask: [UInt64]) {
        var carry: UInt64 = 1
        for word in state.indices {
            let next = state[word] >> 63
            state[word] = ((state[word] << 1) | carry) & mask[word]
            carry = next
        }
    }
}
