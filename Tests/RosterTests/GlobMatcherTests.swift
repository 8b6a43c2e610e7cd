import Testing
import RosterTestSupport
@testable import Roster

/// `GlobMatcher` against a brute-force reference on random patterns and subjects, and its
/// cost: every subject character is read at most once, whatever the pattern.
@Suite("GLOB matcher")
struct GlobMatcherTests {
    /// Whether `subject` matches `tokens`, by trying every split at every `*`: deliberately
    /// not the algorithm under test.
    static func reference(_ tokens: ArraySlice<GlobToken>, _ subject: ArraySlice<UInt32>) -> Bool {
        guard let token = tokens.first else { return subject.isEmpty }
        switch token {
        case .anyRun:
            return (0...subject.count).contains { reference(tokens.dropFirst(), subject.dropFirst($0)) }
        case .anyOne:
            return !subject.isEmpty && reference(tokens.dropFirst(), subject.dropFirst())
        case let .character(character):
            return subject.first == character && reference(tokens.dropFirst(), subject.dropFirst())
        case let .set(members, inverted):
            guard let first = subject.first, members.contains(where: { $0.contains(first) }) != inverted else { return false }
            return reference(tokens.dropFirst(), subject.dropFirst())
        }
    }

    /// Characters from an array, counting the reads.
    struct Counting: GlobSubject {
        let characters: [UInt32]
        var reads = 0
        mutating func next() -> UInt32? {
            defer { reads += 1 }
            return reads < characters.count ? characters[reads] : nil
        }
    }

    static func matches(_ matcher: GlobMatcher, _ subject: [UInt32]) -> (matches: Bool, reads: Int) {
        var reader = Counting(characters: subject)
        let result = matcher.matches(&reader)
        return (result, reader.reads)
    }

    @Test(arguments: 0..<4)
    func agreesWithBruteForce(slice: UInt64) {
        var random = SplitMix64(seed: 900 + slice)
        let alphabet: [UInt32] = [97, 98, 65, 0xE9, 0x65E5]
        var failures = 0
        for _ in 0..<2_500 {
            let tokens: [GlobToken] = (0..<Int.random(in: 0...7, using: &random)).map { _ in
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1: .anyRun
                case 2: .anyOne
                case 3: .set(members: [97...98], inverted: Bool.random(using: &random))
                case 4: .set(members: [65...65, 97...97], inverted: false)
                default: .character(alphabet.randomElement(using: &random)!)
                }
            }
            let subject = (0..<Int.random(in: 0...9, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let expected = Self.reference(tokens[...], subject[...])
            let (got, reads) = Self.matches(GlobMatcher(tokens), subject)
            if got != expected || reads > subject.count + 1 {
                failures += 1
                Issue.record("\(tokens) on \(subject): got \(got) reading \(reads), expected \(expected)")
                if failures > 3 { return }
            }
        }
    }

    @Test func longSegmentsSpanSeveralWords() {
        // 150 positions: three 64-bit words per state.
        let segment: [GlobToken] = (0..<150).map { $0 % 7 == 0 ? .anyOne : .character(97) }
        let subject = [UInt32](repeating: 97, count: 400) + [98]
        #expect(Self.matches(GlobMatcher([.anyRun] + segment + [.anyRun]), subject).matches)
        #expect(Self.matches(GlobMatcher([.anyRun] + segment + [.character(98)]), subject).matches)
        #expect(!Self.matches(GlobMatcher([.anyRun] + segment + [.character(99)]), subject).matches)
        #expect(!Self.matches(GlobMatcher([.anyRun] + segment + [.anyRun]), [UInt32](repeating: 97, count: 149)).matches)
    }

    @Test func theWorstCaseForBacktrackingReadsEachCharacterOnce() {
        // `*aaaa…ab` on "aaaa…a": backtracking compares about n·k characters.
        let pattern: [GlobToken] = [.anyRun] + [GlobToken](repeating: .character(97), count: 5_000) + [.character(98), .anyRun]
        let subject = [UInt32](repeating: 97, count: 65_536)
        let (matches, reads) = Self.matches(GlobMatcher(pattern), subject)
        #expect(!matches)
        #expect(reads <= subject.count + 1)
    }
}
