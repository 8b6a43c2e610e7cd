import Foundation
import RosterJSON
import Testing
@testable import RosterScript

/// Why `RosterScript` reads JSON itself (Docs/Architecture.md): the script format tells an
/// integer from a number with a fraction or an exponent — an `integer` attribute takes `3`
/// and refuses `3.0`, `3e0` and `99999999999999999999` — and Foundation's readers do not
/// keep them apart. Should a Foundation release keep them apart, this test fails, and the
/// hand-written reader can be reconsidered.
@Suite("Foundation's JSON readers cannot keep integers and fractions apart")
struct FoundationJSONTests {
    @Test func jsonDecoderTakesWhatTheFormatRefusesAsAnInteger() throws {
        // JSONDecoder gives an Int64 for 3.0 and 3e0: an attribute could not refuse them.
        let decoded = try JSONDecoder().decode([Int64].self, from: Data("[3, 3.0, 3e0]".utf8))
        #expect(decoded == [3, 3, 3])
        // Our reader keeps what was written.
        guard case let .array(parsed) = try JSONParser().parse("[3, 3.0, 3e0]"), parsed.count == 3 else {
            Issue.record("not an array of three")
            return
        }
        let kinds = parsed.map { value -> String in
            switch value {
            case .integer: "integer"
            case .number: "number"
            default: "other"
            }
        }
        #expect(kinds == ["integer", "number", "number"])
    }

    @Test func jsonSerializationGivesTheSameNumberForThreeAndThreePointZero() throws {
        let values = try #require(JSONSerialization.jsonObject(with: Data("[3, 3.0]".utf8)) as? [NSNumber])
        #expect(values.count == 2)
        // As NSNumbers they are equal, so nothing downstream can tell which was written.
        #expect(values[0] == values[1])
        #expect(values[0].int64Value == values[1].int64Value && values[0].doubleValue == values[1].doubleValue)
    }
}
