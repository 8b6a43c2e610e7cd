import Testing
import RosterTestSupport
@_spi(RosterEngine) import RosterUpdates

/// `LRUCache` against a list of keys by recency, over random inserts (with evictions),
/// look-ups, replacements and removals.
@Suite struct LRUCacheModelTests {
    @Test func agreesWithAListByRecency() {
        var random = SplitMix64(seed: 0x1A0C)
        for capacity in [1, 2, 3, 8] {
            var cache = LRUCache<Int, Int>(capacity: capacity)
            // Newest first, as `keysByRecency`.
            var model: [(key: Int, value: Int)] = []
            for step in 0..<5_000 {
                let key = Int.random(in: 0..<12, using: &random)
                let value = step
                switch Int.random(in: 0..<5, using: &random) {
                case 0, 1:
                    let evicted = cache.insert(value, for: key)
                    var expectedEviction: Int?
                    if let index = model.firstIndex(where: { $0.key == key }) {
                        model.remove(at: index)
                    } else if model.count == capacity {
                        expectedEviction = model.removeLast().key
                    }
                    model.insert((key, value), at: 0)
                    #expect(evicted == expectedEviction, "capacity \(capacity), step \(step): insert \(key)")
                case 2:
                    let found = cache.value(for: key)
                    if let index = model.firstIndex(where: { $0.key == key }) {
                        #expect(found == model[index].value)
                        model.insert(model.remove(at: index), at: 0)
                    } else {
                        #expect(found == nil)
                    }
                case 3:
                    cache.replaceValue(value, for: key)
                    if let index = model.firstIndex(where: { $0.key == key }) { model[index].value = value }
                default:
                    cache.removeValue(for: key)
                    model.removeAll { $0.key == key }
                }
                cache.checkInvariants()
                #expect(cache.keysByRecency == model.map(\.key), "capacity \(capacity), step \(step)")
                #expect(model.allSatisfy { cache.peek($0.key) == $0.value })
                if cache.keysByRecency != model.map(\.key) { return }
            }
        }
    }
}
