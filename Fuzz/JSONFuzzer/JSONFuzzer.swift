import RosterFuzzSupport
import RosterJSON

// Fuzzes the JSON reader: each input is one JSON text (bytes that are not UTF-8 are read
// as U+FFFD, as `String(decoding:as:)` does).
//
// For each input: `JSONParser().parse` on the text, and on it as a `Substring` with a
// prefix dropped (another storage path), which must agree. For each text that parses:
// its compact and pretty serializations parse back to the same value, and serializing
// that again gives the same text. A parse error is fine; a trap or a failed property is
// a finding.

@main
enum JSONFuzzer {
    static func main() {
        FuzzEntry.main(corpus: "json") { data, size in testOneInput(data, size) }
    }
}

#if ROSTER_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { testOneInput(data, size) }
#endif

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size <= 65_536 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parser = JSONParser()
    let result = Result { () throws(JSONError) in try parser.parse(text) }
    let padded = " " + text
    let substringResult = Result { () throws(JSONError) in try parser.parse(padded[padded.utf8.index(after: padded.utf8.startIndex)...]) }
    switch (result, substringResult) {
    case let (.success(value), .success(other)):
        fuzzCheck(value == other, "String and Substring parse differently: \(String(reflecting: text))")
    case (.failure, .failure):
        break
    default:
        fuzzCheck(false, "String and Substring disagree on success: \(String(reflecting: text))")
    }
    // A shallow parser refuses what nests too deep, and never crashes either.
    _ = try? JSONParser(maximumDepth: 3).parse(text)
    guard case let .success(value) = result else { return 0 }
    for style in [JSONStyle.compact, .pretty] {
        let serialized = value.serialized(style)
        guard let again = try? parser.parse(serialized) else {
            fuzzCheck(false, "\(style) serialization does not parse: \(String(reflecting: serialized)) from \(String(reflecting: text))")
            return 0
        }
        fuzzCheck(again == value, "\(style) round trip changes the value: \(String(reflecting: text)) -> \(String(reflecting: serialized))")
        fuzzCheck(again.serialized(style) == serialized, "\(style) serialization is not stable: \(String(reflecting: serialized))")
    }
    return 0
}
