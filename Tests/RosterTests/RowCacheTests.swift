import Testing
@testable import Roster

@Suite("Row cache")
struct RowCacheTests {
    /// A cache over rows `[key, 1]`, counting the keys each load asks for.
    final class Loads {
        var requests: [[Value]] = []
        func cache(capacity: Int) -> RowCache {
            RowCache(capacity: capacity) { [self] keys in
                requests.append(keys)
                return Dictionary(uniqueKeysWithValues: keys.map { ($0, [$0, 1]) })
            }
        }
    }

    @Test func missingRowsLoadInOneGoAndTheMostRecentStay() {
        let loads = Loads()
        let cache = loads.cache(capacity: 2)
        let rows = cache.rows(for: ["a", "b", "c"])
        #expect(rows.count == 3 && rows["b"] == ["b", 1])
        #expect(loads.requests == [["a", "b", "c"]])
        // Only the last `capacity` loaded rows are kept.
        #expect(cache.row(forKey: "a") == nil)
        #expect(cache.row(forKey: "c") == ["c", 1])
        _ = cache.rows(for: ["b", "c"])
        #expect(loads.requests.count == 1, "cached rows are not loaded again")
    }

    @Test func theLeastRecentlyUsedRowGoesFirst() {
        let cache = Loads().cache(capacity: 2)
        cache.store(["a"], forKey: "a")
        cache.store(["b"], forKey: "b")
        _ = cache.row(forKey: "a")          // b is now the least recently used
        cache.store(["c"], forKey: "c")
        #expect(cache.row(forKey: "b") == nil)
        #expect(cache.row(forKey: "a") == ["a"] && cache.row(forKey: "c") == ["c"])
    }

    @Test func replaceTouchesOnlyRowsItHolds() {
        let cache = Loads().cache(capacity: 4)
        cache.store(["a", 1], forKey: "a")
        cache.replace(["a", 2], forKey: "a")
        cache.replace(["z", 2], forKey: "z")
        #expect(cache.row(forKey: "a") == ["a", 2])
        #expect(cache.row(forKey: "z") == nil, "replace does not add a row")
        cache.remove("a")
        #expect(cache.row(forKey: "a") == nil)
    }
}
