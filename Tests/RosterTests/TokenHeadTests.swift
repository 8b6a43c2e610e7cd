import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// A token's head is read by Roster's JSON parser, and by Foundation's when the parser finds
/// anything but strings and arrays of them: whatever the text, Roster's reading is
/// Foundation's or none.
@Suite("Token head")
struct TokenHeadTests {
    /// Text drawn from what a head holds (a request's predicate can hold anything):
    /// quotes, backslashes, slashes, control characters, accents, emoji.
    private static func text(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "ß", "😀", "\u{FFFF}", "|", "==", "{", "]"]
        return (0..<Int(random.next() % 12)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    private static func member(_ random: inout SplitMix64, depth: Int = 0) -> Any {
        if depth < 2, random.next() % 3 == 0 {
            return (0..<Int(random.next() % 4)).map { _ in member(&random, depth: depth + 1) }
        }
        return text(&random)
    }

    /// `[String: Any]` of strings and arrays, as comparable text.
    private static func normalized(_ value: Any) -> String? {
        if let text = value as? String { return "s" + text.debugDescription }
        if let list = value as? [Any] {
            let items = list.compactMap(normalized)
            return items.count == list.count ? "[" + items.joined(separator: ",") + "]" : nil
        }
        if let members = value as? [String: Any] {
            let items = members.sorted { $0.key < $1.key }.compactMap { key, value in normalized(value).map { key.debugDescription + ":" + $0 } }
            return items.count == members.count ? "{" + items.joined(separator: ",") + "}" : nil
        }
        return nil
    }

    @Test(arguments: 0..<10)
    func headsReadAsFoundationReadsThem(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 91)
        for _ in 0..<60 {
            var members: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 6) { members[Self.text(&random)] = Self.member(&random) }
            let data = try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
            let read = try #require(ResumeToken.parsedHead(Array(data)), "\(String(decoding: data, as: UTF8.self))")
            #expect(Self.normalized(read) == Self.normalized(members))
            #expect(Self.normalized(read) == Self.normalized(try JSONSerialization.jsonObject(with: data)))
        }
    }

    @Test(arguments: 0..<10)
    func damagedHeadsAreFoundationsOrNone(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 7_001)
        var readFast = 0
        var refused = 0
        for _ in 0..<200 {
            var members: [String: Any] = [:]
            for _ in 0..<Int(1 + random.next() % 4) { members[Self.text(&random)] = Self.member(&random) }
            var bytes = Array(try JSONSerialization.data(withJSONObject: members, options: []))
            // One to three bytes replaced, inserted or dropped: JSON's own characters often.
            let alphabet = Array("{}[],:\"\\ u0aé1-tn".utf8)
            for _ in 0..<Int(1 + random.next() % 3) where !bytes.isEmpty {
                let place = Int(random.next() % UInt64(bytes.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes[place] = byte
                case 1: bytes.insert(byte, at: place)
                default: bytes.remove(at: place)
                }
            }
            let foundation = try? JSONSerialization.jsonObject(with: Data(bytes))
            if let fast = ResumeToken.parsedHead(bytes) {
                readFast += 1
                let expected = try #require(foundation.flatMap(Self.normalized), "Foundation refuses \(String(decoding: bytes, as: UTF8.self)), read as \(fast)")
                #expect(Self.normalized(fast) == expected)
            } else {
                refused += 1
            }
        }
        // Both kinds happen: the check is not vacuous.
        #expect(readFast > 0 && refused > 0)
    }

    @Test(arguments: ["\\ud834 \\udd1e", "\\ud834\n\\udd1e", "\\ud834", "\\udd1e", "\\ud834\\u0041", "a\tb", "\\x"])
    func aStringJSONRefusesIsNotRead(_ text: String) throws {
        // Space between a surrogate's halves, half a pair, a raw tab, an unknown escape.
        let bytes = Array("{\"store\":\"\(text)\"}".utf8)
        #expect(ResumeToken.parsedHead(bytes) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) == nil)
    }

    @Test
    func aTokenReadsTheSameEitherWay() throws {
        // A token with an anchored window (arrays two deep) and a predicate with quotes.
        let token = ResumeToken(store: "s", request: "Post|title == \"a/\\\\b\" AND day BEGINSWITH 'é'|day,-rank|", position: 42,
                                window: .anchored(key: .string("p😀1"), before: 3, after: 7), firstRank: nil,
                                sections: [ListSection(id: .string("2026"), items: [.string("p😀1"), .integer(7)])])
        let encoded = token.encoded
        #expect(try ResumeToken(encoded) == token)
        // Read by Foundation alone: the same head as the fast reading.
        let head = encoded.dropFirst("roster-token-2:".count).prefix { $0 != "." }
        let bytes = try #require(Data(base64Encoded: String(head)).map(Array.init))
        let fast = try #require(ResumeToken.parsedHead(bytes))
        #expect(Self.normalized(fast) == Self.normalized(try JSONSerialization.jsonObject(with: Data(bytes))))
    }
}
