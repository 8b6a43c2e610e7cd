import RosterJSON
import RosterScript
import Testing

@Suite("JSON serialization")
struct JSONSerializationTests {
    @Test func compactIsOneLineWithKeysInInsertionOrder() {
        let event: JSONValue = ["line": 3, "query": "q1", "event": "object", "from": [1, 0], "to": nil]
        #expect(event.serialized() == #"{"line":3,"query":"q1","event":"object","from":[1,0],"to":null}"#)
        #expect(event.description == event.serialized())
    }

    @Test func scalars() {
        #expect(JSONValue.null.serialized() == "null")
        #expect(JSONValue.bool(true).serialized() == "true")
        #expect(JSONValue.bool(false).serialized() == "false")
        #expect(JSONValue.integer(-42).serialized() == "-42")
        #expect(JSONValue.integer(.min).serialized() == "-9223372036854775808")
        #expect(JSONValue.array([]).serialized() == "[]")
        #expect(JSONValue.object([:]).serialized() == "{}")
    }

    @Test func numbersAlwaysHaveAFractionOrExponent() {
        #expect(JSONValue.number(3).serialized() == "3.0")
        #expect(JSONValue.number(0.1).serialized() == "0.1")
        #expect(JSONValue.number(-0.0).serialized() == "-0.0")
        #expect(JSONValue.number(1e20).serialized() == "1e+20")
        #expect(JSONValue.number(1e-5).serialized() == "1e-05")
        #expect(JSONValue.number(.leastNonzeroMagnitude).serialized() == "5e-324")
        #expect(JSONValue.number(.greatestFiniteMagnitude).serialized() == "1.7976931348623157e+308")
    }

    @Test func nonFiniteNumbersAreWrittenAsNull() {
        #expect(JSONValue.number(.infinity).serialized() == "null")
        #expect(JSONValue.number(-.infinity).serialized() == "null")
        #expect(JSONValue.number(.nan).serialized() == "null")
    }

    @Test func numbersParseBackToTheSameDoubleAndCase() throws {
        let doubles: [Double] = [
            0, -0.0, 1, 3, 0.1, 0.2 + 0.1, 1.0 / 3, -2.5e-3, 1e20, 1e21, 1e-7, 123456789.125,
            9.223372036854776e18, .pi, .ulpOfOne, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        ]
        for double in doubles {
            let parsed = try JSONValue.parse(JSONValue.number(double).serialized())
            #expect(parsed.kind == .number)
            #expect(parsed.doubleValue?.bitPattern == double.bitPattern, "\(double)")
        }
    }

    @Test func stringEscapes() {
        let string = "quote \" backslash \\ slash / \n \t \r \u{8} \u{C} \u{0} \u{1F} \u{7F} é 😀 \u{2028}"
        let expected = #""quote \" backslash \\ slash / \n \t \r \b \f \u0000 \u001f "#
            + "\u{7F} é 😀 \u{2028}\""
        #expect(JSONValue.string(string).serialized() == expected)
    }

    @Test func objectKeysAreEscaped() {
        let object = JSONValue.object(JSONObject(uniqueKeysWithValues: [("a\"b\n", .integer(1))]))
        #expect(object.serialized() == #"{"a\"b\n":1}"#)
    }

    @Test func prettyExactText() {
        let event: JSONValue = [
            "line": 3,
            "query": "q1",
            "event": "snapshot",
            "sections": [["name": "2026-11-20", "keys": ["p3", "p1"]], ["name": nil, "keys": []]],
            "empty": [:],
            "score": 2.5,
        ]
        let expected = """
            {
              "line": 3,
              "query": "q1",
              "event": "snapshot",
              "sections": [
                {
                  "name": "2026-11-20",
                  "keys": [
                    "p3",
                    "p1"
                  ]
                },
                {
                  "name": null,
                  "keys": []
                }
              ],
              "empty": {},
              "score": 2.5
            }
            """
        #expect(event.serialized(.pretty) == expected)
    }

    @Test func prettyScalarHasNoIndentation() {
        #expect(JSONValue.string("x").serialized(.pretty) == #""x""#)
        #expect(JSONValue.array([]).serialized(.pretty) == "[]")
    }
}
