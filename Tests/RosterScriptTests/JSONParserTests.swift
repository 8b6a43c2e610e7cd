import RosterJSON
import RosterScript
import Testing

@Suite("JSON parser: values")
struct JSONParserTests {
    @Test func literals() throws {
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("false") == .bool(false))
    }

    @Test func integerWrittenAsIntegerIsAnInteger() throws {
        #expect(try JSONValue.parse("3") == .integer(3))
        #expect(try JSONValue.parse("-17") == .integer(-17))
        #expect(try JSONValue.parse("0") == .integer(0))
        #expect(try JSONValue.parse("-0") == .integer(0))
        #expect(try JSONValue.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .integer(.min))
    }

    @Test func numberWithFractionOrExponentIsANumber() throws {
        #expect(try JSONValue.parse("3.0") == .number(3))
        #expect(try JSONValue.parse("3e0") == .number(3))
        #expect(try JSONValue.parse("3E+0") == .number(3))
        #expect(try JSONValue.parse("-2.5e-3") == .number(-0.0025))
        #expect(try JSONValue.parse("0.1") == .number(0.1))
        #expect(try JSONValue.parse("1e-400") == .number(0))
        #expect(try JSONValue.parse("-0.0").doubleValue?.sign == .minus)
    }

    @Test func integerTooLargeForInt64IsANumber() throws {
        #expect(try JSONValue.parse("9223372036854775808") == .number(0x1p63))
        #expect(try JSONValue.parse("-9223372036854775809") == .number(-0x1p63))
        #expect(try JSONValue.parse("100000000000000000000000") == .number(1e23))
    }

    @Test func integerAndNumberAreDifferentValues() throws {
        #expect(try JSONValue.parse("3") != JSONValue.parse("3.0"))
        #expect(try JSONValue.parse("3").int64Value == 3)
        #expect(try JSONValue.parse("3.0").int64Value == nil)
        #expect(try JSONValue.parse("3").doubleValue == 3)
        #expect(try JSONValue.parse("3.0").doubleValue == 3)
    }

    @Test func simpleEscapes() throws {
        let value = try JSONValue.parse(#""\"\\\/\b\f\n\r\t""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\t"))
    }

    @Test func unicodeEscapes() throws {
        #expect(try JSONValue.parse(#""\u0041\u00e9\u00E9\u20AC""#) == .string("Aéé€"))
        #expect(try JSONValue.parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func surrogatePairEscapeIsOneScalar() throws {
        let value = try JSONValue.parse(#""\ud83d\ude00 \uD834\uDD1E""#)
        #expect(value == .string("😀 𝄞"))
        #expect(value.stringValue?.unicodeScalars.count == 3)
    }

    @Test func unescapedUnicodeIsKeptAsItIs() throws {
        #expect(try JSONValue.parse("\"héllo 😀 \u{2028}\"") == .string("héllo 😀 \u{2028}"))
    }

    @Test func precomposedAndDecomposedStringsDiffer() throws {
        let precomposed = try JSONValue.parse(#""\u00e9""#)
        let decomposed = try JSONValue.parse(#""e\u0301""#)
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
    }

    @Test func objectKeepsKeyOrder() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":2,"m":{"y":null,"b":true}}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value["m"]?.objectValue?.keys == ["y", "b"])
        #expect(value["a"] == .integer(2))
        #expect(value["m"]?["y"] == .null)
        #expect(value["missing"] == nil)
    }

    @Test func precomposedAndDecomposedKeysAreDistinct() throws {
        let value = try JSONValue.parse(#"{"\u00e9":1,"e\u0301":2}"#)
        #expect(value.objectValue?.count == 2)
        #expect(value["\u{E9}"] == .integer(1))
        #expect(value["e\u{301}"] == .integer(2))
    }

    @Test func arraysAndWhitespace() throws {
        let value = try JSONValue.parse(" \t\r\n[ 1 , [ ] , { } , \"x\" ]\n")
        #expect(value == [1, [], .object(JSONObject()), "x"])
        #expect(value[0] == .integer(1))
        #expect(value[4] == nil)
    }

    @Test func scriptLine() throws {
        let line = try JSONValue.parse(
            #"{"op":"query","name":"q1","entity":"Post","sort":[["day","desc"],["id","asc"]],"section":"day"}"#
        )
        #expect(line["op"]?.stringValue == "query")
        #expect(line["sort"]?[0]?[1]?.stringValue == "desc")
        #expect(line["section"]?.kind == .string)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try JSONValue.parse(text)
        var depth = 1
        while case let .array(elements) = value, let inner = elements.first {
            value = inner
            depth += 1
        }
        #expect(depth == 512)
        let parser = JSONParser(maximumDepth: 2)
        #expect(try parser.parse(#"{"a":[1]}"#) == ["a": [1]])
    }

    @Test func substringIsParsed() throws {
        let lines = "{\"a\":1}\n[true]".split(separator: "\n")
        #expect(try JSONValue.parse(lines[0]) == ["a": 1])
        #expect(try JSONValue.parse(lines[1]) == [true])
    }
}
