import RosterTestSupport
import Testing
@testable import Roster

@Suite("Value column")
struct ValueColumnTests {
    @Test(arguments: [AttributeType.integer, .double, .string, .bool])
    func valuesOfTheColumnsTypeStayTyped(type: AttributeType) {
        let column = ValueColumn(type: type)
        let values = Self.sample(of: type)
        for value in values { column.append(value) }
        column[1] = values[2]
        column.clear(at: 0)
        #expect(column.storage != .values)
        #expect(column.count == values.count)
        #expect(column[1] == values[2])
        #expect(column[2] == values[2])
    }

    /// A null, or a value another writer stored in a column of another type, turns the
    /// column into `Value`s with every earlier value kept.
    @Test(arguments: [Value.null, .string("x"), .integer(7), .invalidUTF8([0xC3])])
    func aValueOfAnotherKindKeepsEveryValue(intruder: Value) {
        for type in [AttributeType.integer, .double, .string, .bool] where intruder.type != type {
            let values = Self.sample(of: type)
            let appended = ValueColumn(type: type)
            let assigned = ValueColumn(type: type)
            for value in values {
                appended.append(value)
                assigned.append(value)
            }
            appended.append(intruder)
            assigned[1] = intruder
            #expect(appended.storage == .values && assigned.storage == .values)
            #expect((0..<values.count).map { appended[$0] } == values)
            #expect(appended[values.count] == intruder)
            #expect(assigned[0] == values[0] && assigned[1] == intruder && assigned[2] == values[2])
        }
    }

    /// Random appends, assignments and clears agree with an array of `Value`s, and so do
    /// comparisons and `holds`, typed or not.
    @Test(arguments: [1, 2, 3, 4])
    func randomOperationsMatchAnArrayOfValues(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let type = [AttributeType.integer, .double, .string, .bool][seed % 4]
        let column = ValueColumn(type: type)
        var reference: [Value] = []
        func anyValue() -> Value {
            // Mostly the column's type, so it stays typed for a while before something else comes.
            if Int.random(in: 0..<400, using: &random) > 0 { return Self.value(of: type, using: &random) }
            // (No NaN: it is unequal to itself, and SQLite stores it as null, so it never arrives.)
            return [Value.null, .integer(1), .double(1), .string("1"), .bool(true), .invalidUTF8([0xFF])].randomElement(using: &random)!
        }
        for _ in 0..<3_000 {
            switch reference.isEmpty ? 0 : Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let value = anyValue()
                column.append(value)
                reference.append(value)
            case 5:
                column.appendRepeatingLast()
                reference.append(reference[reference.count - 1])
            case 6..<8:
                let index = Int.random(in: 0..<reference.count, using: &random)
                let value = anyValue()
                column[index] = value
                reference[index] = value
            default:
                let index = Int.random(in: 0..<reference.count, using: &random)
                column.clear(at: index)
                reference[index] = column[index]
            }
            #expect(column.count == reference.count)
            let (a, b) = (Int.random(in: 0..<reference.count, using: &random), Int.random(in: 0..<reference.count, using: &random))
            #expect(column[a] == reference[a])
            #expect(column.compare(a, b) == Value.compare(reference[a], reference[b]))
            #expect(column.holds(reference[b], at: a) == (reference[a] == reference[b]))
        }
        let differing = reference.indices.filter { column[$0] != reference[$0] }
        #expect(differing.isEmpty, "rows \(differing.prefix(5)) differ")
    }

    /// Strings are coded while few differ (a section's day), and stored row by row once
    /// codes would cost more (keys, titles); either way they read back as written.
    @Test func fewDistinctStringsAreCodedManyAreNot() {
        let days = ValueColumn(type: .string)
        let titles = ValueColumn(type: .string)
        for row in 0..<10_000 {
            days.append(.string("2026-10-\(row % 30)"))
            titles.append(.string("title \(row)"))
        }
        #expect(days.storage == .codedStrings)
        #expect(titles.storage == .strings)
        #expect(days[9_999] == .string("2026-10-9") && titles[9_999] == .string("title 9999"))
        #expect(days.compare(0, 30) == 0 && days.compare(1, 0) == 1 && titles.compare(1, 0) == 1)
        // Rewriting every row with new strings ends coding too, and keeps every value.
        for row in 0..<10_000 { days[row] = .string("new \(row)") }
        #expect(days.storage == .strings)
        #expect((0..<10_000).allSatisfy { days[$0] == .string("new \($0)") })
    }

    /// A cleared row keeps its place: a coded column keeps its value (the string stays in
    /// its table anyway), a row-by-row string column drops its string.
    @Test func clearingKeepsTheRow() {
        let coded = ValueColumn(type: .string)
        coded.append(.string(String(repeating: "long text ", count: 20)))
        coded.clear(at: 0)
        #expect(coded.storage == .codedStrings && coded.count == 1)
        let titles = ValueColumn(type: .string)
        for row in 0..<1_000 { titles.append(.string("title \(row)")) }
        titles.clear(at: 0)
        #expect(titles.storage == .strings && titles.count == 1_000)
        #expect(titles[0] == .string("") && titles[1] == .string("title 1"))
    }

    static func sample(of type: AttributeType) -> [Value] {
        switch type {
        case .integer: [.integer(-3), .integer(5), .integer(.max)]
        case .double: [.double(-0.5), .double(2), .double(.infinity)]
        case .string: [.string("b"), .string("a longer string than fifteen bytes"), .string("é")]
        case .bool: [.bool(true), .bool(false), .bool(true)]
        }
    }

    static func value(of type: AttributeType, using random: inout SplitMix64) -> Value {
        switch type {
        case .integer: .integer(Int64.random(in: -5...5, using: &random))
        case .double: .double(Double(Int.random(in: -5...5, using: &random)) / 2)
        case .string: .string(["", "a", "ab", "b", "é", "abcdefghijklmnopqrstuvwxyz"].randomElement(using: &random)!)
        case .bool: .bool(Bool.random(using: &random))
        }
    }
}
