import RosterJSON
import RosterScript
import Testing
import RosterTestSupport

@Suite("JSON round trips")
struct JSONRoundTripTests {
    @Test(arguments: [JSONStyle.compact, .pretty])
    func seededRandomValuesRoundTrip(style: JSONStyle) throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<500 {
            let value = randomValue(depth: 4, using: &generator)
            let text = value.serialized(style)
            let parsed = try JSONValue.parse(text)
            #expect(parsed == value, "\(text)")
            #expect(parsed.serialized(style) == text)
        }
    }

    @Test func scriptTextRoundTripsUnchanged() throws {
        let lines = [
            #"{"op":"entity","name":"Post","key":"id","attributes":{"id":"string","rank":"integer","score":"double"}}"#,
            #"{"op":"insert","entity":"Post","values":{"id":"p1","rank":3,"score":3.0,"title":null}}"#,
            #"{"line":7,"query":"q1","event":"batch","deleteSections":[2],"insertItems":[[0,0],[0,1]],"moveItems":[]}"#,
            #"{"s":"tab\tquote\"back\\slash\/é\u00e9\ud83d\ude00"}"#,
        ]
        for line in lines.prefix(3) {
            #expect(try JSONValue.parse(line).serialized() == line)
        }
        #expect(try JSONValue.parse(lines[3]).serialized() == #"{"s":"tab\tquote\"back\\slash/éé😀"}"#)
    }

    @Test func everyControlCharacterRoundTrips() throws {
        let string = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        let text = JSONValue.string(string).serialized()
        #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 })
        #expect(try JSONValue.parse(text) == .string(string))
    }

    private func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator) >> Int.random(in: 0..<64, using: &generator))
        case 3: return .number(randomDouble(using: &generator))
        case 4, 5: return .string(randomString(using: &generator))
        case 6:
            let count = Int.random(in: 0..<5, using: &generator)
            return .array((0..<count).map { _ in randomValue(depth: depth - 1, using: &generator) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0..<5, using: &generator) {
                object[randomString(using: &generator)] = randomValue(depth: depth - 1, using: &generator)
            }
            return .object(object)
        }
    }

    private func randomDouble(using generator: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: Double(Int.random(in: -1000...1000, using: &generator))
        case 1: Double.random(in: -1...1, using: &generator)
        default:
            Double(bitPattern: generator.next() & ~(0x7FF << 52) | (UInt64.random(in: 1...0x7FE, using: &generator) << 52))
        }
    }

    private func randomString(using generator: inout SplitMix64) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{1}", "\u{1F}", "é", "e", "\u{301}", "😀", "\u{2028}", "中"]
        let count = Int.random(in: 0..<8, using: &generator)
        return String(String.UnicodeScalarView((0..<count).map { _ in alphabet.randomElement(using: &generator)! }))
    }
}

