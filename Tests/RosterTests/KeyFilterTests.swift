import Foundation
import Testing
@testable import Roster
import RosterTestSupport

/// The filter a resume's pass over the change log uses to skip the keys its window did not
/// show without building them: it never calls a key it holds absent, whatever SQLite stores
/// (text, text that is not UTF-8, integers, other types), and it does skip most others.
@Suite("Key filter")
struct KeyFilterTests {
    @Test(arguments: 0..<20)
    func aKeyItHoldsIsNeverSurelyLacking(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 4_242)
        let connection = try Connection(path: ":memory:")
        defer { connection.close() }
        let statement = try connection.prepare("SELECT ?1")
        func candidate() -> Value {
            switch random.next() % 6 {
            case 0: .integer(Int64(bitPattern: random.next()) % 50)
            case 1: .string("k\(random.next() % 60)")
            case 2: .invalidUTF8([0xC3, UInt8(random.next() % 8)])
            case 3: .string(String(repeating: "é", count: Int(random.next() % 4)))
            case 4: .double(Double(random.next() % 5))
            default: .null
            }
        }
        let held = Set((0..<Int(random.next() % 40)).map { _ in candidate() })
        let filter = KeyFilter(held)
        var skipped = 0
        var absent = 0
        for _ in 0..<400 {
            let value = candidate()
            try statement.bind([value])
            #expect(try statement.step())
            for type in [AttributeType.string, .integer] {
                let lacks = filter.surelyLacks(column: 0, of: statement, as: type)
                let read = statement.column(0, as: type)
                if held.contains(read) { #expect(!lacks, "\(read) is held") }
                if !held.contains(read), read.type == type { absent += 1; if lacks { skipped += 1 } }
            }
            statement.reset()
        }
        // Text read as text and integers read as integers are answered from the hashes.
        #expect(skipped * 10 >= absent * 9, "\(skipped) of \(absent)")
    }
}
