/// Finds a row's id by its key without storing the key twice: an open-addressing hash
/// table of ids whose keys live in the arena. About 6 bytes a row, where a
/// `[Value: Int32]` dictionary costs over 40.
struct KeyIndex {
    private var slots: [Int32]
    private var count = 0
    /// Slots of removed ids: they keep probe chains intact until the next rehash.
    private var tombstones = 0
    private static let empty: Int32 = -1
    private static let removed: Int32 = -2

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 3 / 2 { size <<= 1 }
        slots = [Int32](repeating: Self.empty, count: size)
    }

    /// Sizes an empty table for `additional` inserts, so filling it never rehashes.
    mutating func reserve(_ additional: Int) {
        guard count == 0, tombstones == 0 else { return }
        var size = slots.count
        while additional * 4 > size * 3 { size <<= 1 }
        if size > slots.count { slots = [Int32](repeating: Self.empty, count: size) }
    }

    /// Fills an empty table with ids `0..<hashes.count`, where `hashes[id]` is the low
    /// 32 bits of the `hashValue` of id's key (all that picks a slot of a table under 2³²
    /// slots), and no two keys are equal.
    ///
    /// Inserting a million ids in id order writes all over the table, a cache miss each.
    /// Here the ids are first partitioned by the high bits of their home slot (a pass
    /// whose writes stream into a few thousand buckets), then inserted bucket by bucket, so
    /// each write lands near the one before.
    mutating func insertAll(hashes: [UInt32]) {
        precondition(count == 0 && tombstones == 0, "insertAll(hashes:) fills an empty table")
        reserve(hashes.count)
        let mask = slots.count - 1
        let slotBits = slots.count.trailingZeroBitCount
        let shift = max(0, slotBits - 12)
        var starts = [Int](repeating: 0, count: (1 << (slotBits - shift)) + 1)
        for hash in hashes { starts[((Int(hash) & mask) >> shift) + 1] += 1 }
        for bucket in 1..<starts.count { starts[bucket] += starts[bucket - 1] }
        // (home slot, id) pairs, grouped by bucket.
        var pairs = [(slot: Int32, id: Int32)](repeating: (0, 0), count: hashes.count)
        for (id, hash) in hashes.enumerated() {
            let slot = Int(hash) & mask
            let bucket = slot >> shift
            pairs[starts[bucket]] = (Int32(slot), Int32(id))
            starts[bucket] += 1
        }
        slots.withUnsafeMutableBufferPointer { table in
            for pair in pairs {
                var slot = Int(pair.slot)
                while table[slot] >= 0 { slot = (slot + 1) & mask }
                table[slot] = pair.id
            }
        }
        count = hashes.count
    }

    /// The id whose key (as `keyOf` reads it) equals `key`.
    func id(for key: Value, keyOf: (Int32) -> Value) -> Int32? {
        let mask = slots.count - 1
        var slot = key.hashValue & mask
        while true {
            let id = slots[slot]
            if id == Self.empty { return nil }
            if id >= 0, keyOf(id) == key { return id }
            slot = (slot + 1) & mask
        }
    }

    /// The ids of `keys`, in order, -1 for a key that is not present: what
    /// ``id(for:keyOf:)`` finds for each, looked up a group at a time.
    ///
    /// In a table of a million rows each look-up waits twice on memory: for its home slot,
    /// then for the key of the id there. One at a time, those waits follow one another;
    /// here a group first reads every home slot, then every candidate's key, and only then
    /// compares, so that the processor has the group's reads in flight at once (a bulk
    /// commit of 100,000 rows at 1M spent a tenth of its time on these waits).
    func ids(for keys: [Value], keyOf: (Int32) -> Value) -> [Int32] {
        let mask = slots.count - 1
        let groupSize = 16
        var ids = [Int32](repeating: Self.empty, count: keys.count)
        var homes = [Int](repeating: 0, count: groupSize)
        var candidates = [Int32](repeating: Self.empty, count: groupSize)
        var candidateKeys = [Value](repeating: .null, count: groupSize)
        slots.withUnsafeBufferPointer { table in
            var start = 0
            while start < keys.count {
                let count = min(groupSize, keys.count - start)
                for member in 0..<count { homes[member] = keys[start + member].hashValue & mask }
                for member in 0..<count { candidates[member] = table[homes[member]] }
                for member in 0..<count where candidates[member] >= 0 { candidateKeys[member] = keyOf(candidates[member]) }
                for member in 0..<count {
                    let key = keys[start + member]
                    var slot = homes[member]
                    var id = candidates[member]
                    if id >= 0, candidateKeys[member] == key {
                        ids[start + member] = id
                        continue
                    }
                    // Past the home slot: the rest of the chain, one slot at a time.
                    while id != Self.empty {
                        slot = (slot + 1) & mask
                        id = table[slot]
                        if id >= 0, keyOf(id) == key {
                            ids[start + member] = id
                            break
                        }
                    }
                }
                start += count
            }
        }
        return ids
    }

    /// Adds `id` under `key` (not present yet).
    mutating func insert(_ id: Int32, key: Value, keyOf: (Int32) -> Value) {
        if (count + tombstones + 1) * 4 > slots.count * 3 { rehash(keyOf: keyOf) }
        let mask = slots.count - 1
        var slot = key.hashValue & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        if slots[slot] == Self.removed { tombstones -= 1 }
        slots[slot] = id
        count += 1
    }

    /// Removes the id stored under `key`.
    mutating func remove(key: Value, keyOf: (Int32) -> Value) {
        let mask = slots.count - 1
        var slot = key.hashValue & mask
        while true {
            let id = slots[slot]
            if id == Self.empty { return }
            if id >= 0, keyOf(id) == key {
                slots[slot] = Self.removed
                count -= 1
                tombstones += 1
                return
            }
            slot = (slot + 1) & mask
        }
    }

    /// Rebuilds the table without tombstones, twice as large when it is more than half full.
    private mutating func rehash(keyOf: (Int32) -> Value) {
        let old = slots
        let size = (count + 1) * 2 > old.count ? old.count * 2 : old.count
        slots = [Int32](repeating: Self.empty, count: size)
        count = 0
        tombstones = 0
        for id in old where id >= 0 { insert(id, key: keyOf(id), keyOf: keyOf) }
    }
}
