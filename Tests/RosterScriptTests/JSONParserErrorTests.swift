import RosterJSON
import RosterScript
import Testing

@Suite("JSON parser: errors and their columns")
struct JSONParserErrorTests {
    /// A text that is not JSON, the reason it is not, and the column the error names.
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let reason: JSONError.Reason
        let column: Int
        var testDescription: String { "\(text) → \(reason) at \(column)" }
    }

    static let cases: [Case] = [
        Case(text: "", reason: .expectedValue, column: 1),
        Case(text: "   ", reason: .expectedValue, column: 4),
        Case(text: #"{"a":}"#, reason: .expectedValue, column: 6),
        Case(text: "[1,,2]", reason: .expectedValue, column: 4),
        Case(text: "NaN", reason: .expectedValue, column: 1),
        Case(text: "[Infinity]", reason: .expectedValue, column: 2),
        Case(text: "+1", reason: .expectedValue, column: 1),
        Case(text: ".5", reason: .expectedValue, column: 1),
        Case(text: "'single'", reason: .expectedValue, column: 1),
        Case(text: "[1] // comment", reason: .trailingCharacters, column: 5),
        Case(text: "/* c */ 1", reason: .expectedValue, column: 1),
        Case(text: "[tru]", reason: .invalidLiteral, column: 2),
        Case(text: "nul", reason: .invalidLiteral, column: 1),
        Case(text: "True", reason: .expectedValue, column: 1),
        Case(text: "[01]", reason: .leadingZero, column: 2),
        Case(text: "-00", reason: .leadingZero, column: 2),
        Case(text: "-", reason: .expectedDigit, column: 2),
        Case(text: "-x", reason: .expectedDigit, column: 2),
        Case(text: "1.", reason: .expectedDigit, column: 3),
        Case(text: "1.e5", reason: .expectedDigit, column: 3),
        Case(text: "[1e]", reason: .expectedDigit, column: 4),
        Case(text: "1e+", reason: .expectedDigit, column: 4),
        Case(text: #"{"n":1e400}"#, reason: .numberOutOfRange, column: 6),
        Case(text: #"["abc"#, reason: .unterminatedString, column: 2),
        Case(text: #"{"a":"b\"#, reason: .unterminatedString, column: 6),
        Case(text: "[\"a\tb\"]", reason: .controlCharacterInString, column: 4),
        Case(text: "\"line\nbreak\"", reason: .controlCharacterInString, column: 6),
        Case(text: #""a\x""#, reason: .invalidEscape, column: 3),
        Case(text: #""\'""#, reason: .invalidEscape, column: 2),
        Case(text: #""ab\u12G4""#, reason: .invalidUnicodeEscape, column: 4),
        Case(text: #""\u12""#, reason: .invalidUnicodeEscape, column: 2),
        Case(text: #""x\uD83D""#, reason: .loneSurrogate, column: 3),
        Case(text: #""\uD83Dx""#, reason: .loneSurrogate, column: 2),
        Case(text: #""\uD83D\u0041""#, reason: .loneSurrogate, column: 2),
        Case(text: #""\uDE00""#, reason: .loneSurrogate, column: 2),
        Case(text: #""\uD83D\uZZZZ""#, reason: .invalidUnicodeEscape, column: 8),
        Case(text: "{1:2}", reason: .expectedMemberNameOrObjectEnd, column: 2),
        Case(text: "{a:1}", reason: .expectedMemberNameOrObjectEnd, column: 2),
        Case(text: #"{"a":1,2}"#, reason: .expectedMemberName, column: 8),
        Case(text: #"{"a" 1}"#, reason: .expectedColon, column: 6),
        Case(text: #"{"a"}"#, reason: .expectedColon, column: 5),
        Case(text: #"{"op":"insert" "entity":"Post"}"#, reason: .expectedCommaOrObjectEnd, column: 16),
        Case(text: #"{"a":1"#, reason: .expectedCommaOrObjectEnd, column: 7),
        Case(text: "[1 2]", reason: .expectedCommaOrArrayEnd, column: 4),
        Case(text: "[1", reason: .expectedCommaOrArrayEnd, column: 3),
        Case(text: "[1,2,]", reason: .trailingComma, column: 5),
        Case(text: #"{"a":1, }"#, reason: .trailingComma, column: 7),
        Case(text: #"{"a":1,"b":2,"a":3}"#, reason: .duplicateKey("a"), column: 14),
        Case(text: #"{"x":{"k":1,"k":1}}"#, reason: .duplicateKey("k"), column: 13),
        Case(text: "1 2", reason: .trailingCharacters, column: 3),
        Case(text: #"{"a":1}}"#, reason: .trailingCharacters, column: 8),
        Case(text: "123abc", reason: .trailingCharacters, column: 4),
        Case(text: "\u{FEFF}{}", reason: .expectedValue, column: 1),
    ]

    @Test(arguments: cases)
    func errorNamesReasonAndColumn(_ example: Case) {
        #expect(throws: JSONError(reason: example.reason, column: example.column)) {
            try JSONValue.parse(example.text)
        }
    }

    @Test func descriptionNamesColumnAndReason() {
        #expect(throws: JSONError.self) { try JSONValue.parse(#"{"op":"insert" "entity":"Post"}"#) }
        do {
            _ = try JSONValue.parse(#"{"op":"insert","values":{"id":"p1" "rank":3}}"#)
        } catch {
            #expect(error.description == "invalid JSON at column 36: expected ',' or '}' after an object member")
        }
    }

    @Test func columnCountsUnicodeScalarsNotBytes() {
        // "é" is two bytes but one column, "😀" four bytes and one column.
        #expect(throws: JSONError(reason: .expectedCommaOrObjectEnd, column: 10)) {
            try JSONValue.parse(#"{"é":"😀" x}"#)
        }
    }

    @Test func errorOnALaterLineNamesLineAndColumn() {
        let error = JSONError(reason: .trailingComma, line: 3, column: 9)
        #expect(throws: error) { try JSONValue.parse("{\n  \"a\": [\n    1, 2,\n  ]\n}") }
        #expect(error.description == "invalid JSON at line 3, column 9: trailing comma")
    }

    @Test func nestingBeyondTheLimitIsAnError() {
        let text = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONError(reason: .tooDeep(limit: 512), column: 513)) { try JSONValue.parse(text) }
        #expect(throws: JSONError(reason: .tooDeep(limit: 2), column: 11)) {
            try JSONParser(maximumDepth: 2).parse(#"{"a":[1,2,{}]}"#)
        }
    }

    @Test func reasonDescriptions() {
        #expect(JSONError.Reason.duplicateKey("a\"b").description == #"duplicate key "a\"b""#)
        #expect(JSONError.Reason.tooDeep(limit: 512).description == "arrays and objects nested more than 512 deep")
        #expect(JSONError.Reason.trailingComma.description == "trailing comma")
    }
}
