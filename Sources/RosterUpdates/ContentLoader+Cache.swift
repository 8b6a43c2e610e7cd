/// A bounded map that forgets its least recently used entry when it is full: the content
/// cache of ``ContentLoader``, and (within the package) the row cache of Roster's engine.
///
/// Entries form a doubly linked list threaded through an array of slots, newest first, so
/// that a lookup, an insertion and an eviction each take constant time.
///
/// Not API: public only under the SPI `RosterEngine`, and inlinable, so that Roster's
/// engine runs it specialized for its keys (called through the generic entry points, one
/// insertion of a bulk commit cost some 14,000 instructions; `package` inlinable code was
/// not specialized across modules).
@_spi(RosterEngine) public struct LRUCache<Key: Hashable, Value> {
    /// One entry and its neighbours in recency order.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        /// The slot of the entry used just after this one, nil for the newest.
        @usableFromInline var newer: Int?
        /// The slot of the entry used just before this one, nil for the oldest.
        @usableFromInline var older: Int?

        @usableFromInline
        init(key: Key, value: Value, newer: Int?, older: Int?) {
            self.key = key
            self.value = value
            self.newer = newer
            self.older = older
        }
    }

    /// The most entries the cache holds.
    public let capacity: Int
    /// The entries; nil marks a free slot.
    @usableFromInline var slots: [Entry?] = []
    /// Free slots, reused before the array grows.
    @usableFromInline var freeSlots: [Int] = []
    /// The slot of each key.
    @usableFromInline var slotByKey: [Key: Int] = [:]
    @usableFromInline var newest: Int?
    @usableFromInline var oldest: Int?

    /// Creates an empty cache.
    ///
    /// - Parameter capacity: The most entries it holds; at least 1.
    @inlinable public init(capacity: Int) {
        precondition(capacity >= 1, "LRUCache needs a capacity of at least 1, not \(capacity)")
        self.capacity = capacity
    }

    /// The number of entries.
    @inlinable public var count: Int { slotByKey.count }

    /// Whether the cache holds a key, without making it recently used.
    @inlinable public func contains(_ key: Key) -> Bool {
        slotByKey[key] != nil
    }

    /// The keys, most recently used first.
    @inlinable public var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while let slot = cursor, let entry = slots[slot] {
            keys.append(entry.key)
            cursor = entry.older
        }
        return keys
    }

    /// The value for a key, which becomes the most recently used.
    @inlinable public mutating func value(for key: Key) -> Value? {
        guard let slot = slotByKey[key] else { return nil }
        unlink(slot)
        linkAsNewest(slot)
        return slots[slot]?.value
    }

    /// Stores a value as the most recently used, evicting the least recently used entry when full.
    ///
    /// - Returns: The evicted key, if an entry had to go.
    @discardableResult
    @inlinable public mutating func insert(_ value: Value, for key: Key) -> Key? {
        if let slot = slotByKey[key] {
            slots[slot]?.value = value
            unlink(slot)
            linkAsNewest(slot)
            return nil
        }
        if count == capacity, let victim = oldest, let old = slots[victim] {
            // The oldest entry's slot takes the new one, unlinked and re-linked in place
            // (a bulk commit evicts thousands in a row).
            slotByKey.removeValue(forKey: old.key)
            unlink(victim)
            slots[victim] = Entry(key: key, value: value, newer: nil, older: nil)
            slotByKey[key] = victim
            linkAsNewest(victim)
            return old.key
        }
        let entry = Entry(key: key, value: value, newer: nil, older: nil)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = entry
        } else {
            slot = slots.count
            slots.append(entry)
        }
        slotByKey[key] = slot
        linkAsNewest(slot)
        return nil
    }

    /// Replaces the value of a key the cache holds, leaving its place in the recency
    /// order; does nothing for a key it does not hold.
    @inlinable public mutating func replaceValue(_ value: Value, for key: Key) {
        guard let slot = slotByKey[key] else { return }
        slots[slot]?.value = value
    }

    /// The value for a key without making it recently used.
    @inlinable public func peek(_ key: Key) -> Value? {
        slotByKey[key].flatMap { slots[$0]?.value }
    }

    /// Forgets a key's entry, if there is one.
    @inlinable public mutating func removeValue(for key: Key) {
        guard let slot = slotByKey.removeValue(forKey: key) else { return }
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
    }

    /// Takes a slot out of the recency list.
    @inlinable mutating func unlink(_ slot: Int) {
        guard let entry = slots[slot] else { return }
        if let newer = entry.newer { slots[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { slots[older]?.newer = entry.newer } else { oldest = entry.newer }
        slots[slot]?.newer = nil
        slots[slot]?.older = nil
    }

    /// Puts an unlinked slot at the head of the recency list.
    @inlinable mutating func linkAsNewest(_ slot: Int) {
        slots[slot]?.older = newest
        slots[slot]?.newer = nil
        if let head = newest { slots[head]?.newer = slot } else { oldest = slot }
        newest = slot
    }

    /// Checks that the list and the key map agree and that the capacity holds.
    package func checkInvariants() {
        precondition(count <= capacity, "LRUCache holds \(count) entries, over its capacity \(capacity)")
        let keys = keysByRecency
        precondition(keys.count == count, "LRUCache lists \(keys.count) keys but maps \(count)")
        precondition(Set(keys).count == keys.count, "LRUCache lists a key twice")
    }
}
