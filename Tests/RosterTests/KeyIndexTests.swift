import RosterTestSupport
import Testing
@testable import Roster

@Suite("Key index")
struct KeyIndexTests {
    @Test(arguments: [1, 2, 3])
    func randomInsertsAndRemovesMatchADictionary(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        var keys: [Value] = []          // by id, like the arena
        var free: [Int32] = []
        var index = KeyIndex()
        var reference: [Value: Int32] = [:]
        for step in 0..<20_000 {
            let key: Value = Bool.random(using: &random) ? .string("k\(Int.random(in: 0..<3_000, using: &random))") : .integer(Int64.random(in: 0..<3_000, using: &random))
            if let id = reference[key] {
                if Int.random(in: 0..<3, using: &random) > 0 {
                    index.remove(key: key, keyOf: { keys[Int($0)] })
                    reference[key] = nil
                    keys[Int(id)] = .null
                    free.append(id)
                }
            } else {
                let id: Int32
                if let reused = free.popLast() { id = reused; keys[Int(id)] = key } else { id = Int32(keys.count); keys.append(key) }
                index.insert(id, key: key, keyOf: { keys[Int($0)] })
                reference[key] = id
            }
            if step % 997 == 0 {
                for (key, id) in reference { #expect(index.id(for: key, keyOf: { keys[Int($0)] }) == id) }
                #expect(index.id(for: .string("absent"), keyOf: { keys[Int($0)] }) == nil)
                // Looked up in groups: the same ids, -1 for the absent, in the order asked,
                // for any count (not a multiple of the group), repeats included.
                let asked: [Value] = (0..<(step % 53)).map { _ in
                    Bool.random(using: &random) ? .string("k\(Int.random(in: 0..<3_100, using: &random))") : .integer(Int64.random(in: 0..<3_100, using: &random))
                }
                let ids = index.ids(for: asked, keyOf: { keys[Int($0)] })
                #expect(ids == asked.map { reference[$0] ?? -1 })
            }
        }
    }

    @Test func aTableFilledAtOnceFindsEveryKeyAndTakesLaterEdits() {
        let keys: [Value] = (0..<5_000).map { .string("key\($0)") }
        var index = KeyIndex()
        index.insertAll(hashes: keys.map { UInt32(truncatingIfNeeded: $0.hashValue) })
        for (id, key) in keys.enumerated() { #expect(index.id(for: key, keyOf: { keys[Int($0)] }) == Int32(id)) }
        #expect(index.ids(for: keys.reversed() + ["key5000"], keyOf: { keys[Int($0)] }) == (0..<5_000).reversed().map(Int32.init) + [-1])
        #expect(index.id(for: "key5000", keyOf: { keys[Int($0)] }) == nil)
        var edited = keys
        index.remove(key: "key7", keyOf: { edited[Int($0)] })
        edited.append("late")
        index.insert(Int32(edited.count - 1), key: "late", keyOf: { edited[Int($0)] })
        #expect(index.id(for: "key7", keyOf: { edited[Int($0)] }) == nil)
        #expect(index.id(for: "late", keyOf: { edited[Int($0)] }) == Int32(edited.count - 1))
        #expect(index.id(for: "key4999", keyOf: { edited[Int($0)] }) == 4_999)
    }
}
