import RosterJSON
import RosterScript
import Testing

@Suite("JSON objects")
struct JSONObjectTests {
    @Test func assignmentAppendsNewKeysAndReplacesInPlace() {
        var object: JSONObject = ["line": 3, "query": "q1"]
        object["event"] = "snapshot"
        object["line"] = 4
        #expect(object.keys == ["line", "query", "event"])
        #expect(object["line"] == .integer(4))
        #expect(object.updateValue(5, forKey: "line") == .integer(4))
        #expect(object.updateValue(true, forKey: "new") == nil)
        #expect(object.keys == ["line", "query", "event", "new"])
    }

    @Test func assigningNilRemovesTheMemberAndKeepsTheOrder() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.removeValue(forKey: "zzz") == nil)
        #expect(object.removeValue(forKey: "a") == .integer(1))
        #expect(object.keys == ["c"])
    }

    @Test func nullMemberIsPresent() {
        let object: JSONObject = ["title": nil]
        #expect(object["title"] == .null)
        #expect(object.contains(key: "title"))
        #expect(!object.contains(key: "rank"))
    }

    @Test func iterationGivesMembersInOrder() {
        let object: JSONObject = ["z": 1, "a": 2]
        #expect(object.map(\.key) == ["z", "a"])
        #expect(object.values == [1, 2])
        #expect(object.count == 2)
        #expect(object[1].key == "a")
    }

    @Test func equalityIsOrderSensitive() {
        let ab: JSONObject = ["a": 1, "b": 2]
        let ba: JSONObject = ["b": 2, "a": 1]
        #expect(ab != ba)
        #expect(ab == ["a": 1, "b": 2])
        #expect(Set([ab, ba, ["a": 1, "b": 2]]).count == 2)
    }

    @Test func keysMatchByUTF8Bytes() {
        var object = JSONObject()
        object["\u{E9}"] = 1
        object["e\u{301}"] = 2
        #expect(object.count == 2)
        #expect(object["e\u{301}"] == .integer(2))
        #expect(object.index(forKey: "\u{E9}") == 0)
    }

    @Test func largeObjectsLookUpEveryKeyAfterEdits() throws {
        var object = JSONObject()
        for index in 0..<40 { object["k\(index)"] = .integer(Int64(index)) }
        for index in 0..<40 { #expect(object["k\(index)"] == .integer(Int64(index))) }
        object["k5"] = nil
        object["k\u{E9}"] = 1
        object["ke\u{301}"] = 2
        #expect(object.count == 41)
        #expect(object["k5"] == nil)
        #expect(object.index(forKey: "k6") == 5)
        #expect(object["k\u{E9}"] == .integer(1))
        #expect(object["ke\u{301}"] == .integer(2))

        let text = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k17\":0}"
        #expect(throws: JSONError(reason: .duplicateKey("k17"), column: text.count - 7)) {
            try JSONValue.parse(text)
        }
    }

    @Test func description() {
        let object: JSONObject = ["a": [1, 2.5], "b": "x"]
        #expect(object.description == #"{"a":[1,2.5],"b":"x"}"#)
    }

    @Test func accessorsAnswerOnlyForTheirKind() {
        let values: [JSONValue] = [nil, true, 3, 3.5, "s", [1], ["k": 1]]
        #expect(values.map(\.kind) == [.null, .bool, .integer, .number, .string, .array, .object])
        #expect(values.map(\.kind.description) == [
            "null", "a boolean", "an integer", "a number", "a string", "an array", "an object",
        ])
        #expect(values.map(\.isNull) == [true, false, false, false, false, false, false])
        #expect(values.compactMap(\.boolValue) == [true])
        #expect(values.compactMap(\.int64Value) == [3])
        #expect(values.compactMap(\.doubleValue) == [3, 3.5])
        #expect(values.compactMap(\.stringValue) == ["s"])
        #expect(values.compactMap(\.arrayValue) == [[1]])
        #expect(values.compactMap(\.objectValue) == [["k": 1]])
        #expect(values.compactMap { $0["k"] } == [1])
        #expect(values.compactMap { $0[0] } == [1])
    }
}
