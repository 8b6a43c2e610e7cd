import RosterUpdates

extension ObservedResults {
    /// The sections an ``ObservedResults`` shows, as of one change: their names and keys
    /// come from that change's snapshot (shared, not copied), and each object is read from
    /// the live results when it is asked for.
    ///
    /// A value kept after later changes still lists the rows of its own change (as SwiftUI
    /// keeps the data a `ForEach` showed to diff it with the next); its objects read as of
    /// the latest change, and a row that has left since reads as its key with null values.
    public struct Sections: RandomAccessCollection, Sendable {
        let snapshot: ResultsSnapshot
        let live: LiveResults
        /// Where each section's objects start in ``allObjects``.
        private let starts: [Int]

        init(snapshot: ResultsSnapshot, live: LiveResults) {
            self.snapshot = snapshot
            self.live = live
            var starts: [Int] = []
            starts.reserveCapacity(snapshot.sections.count)
            var total = 0
            for section in snapshot.sections {
                starts.append(total)
                total += section.items.count
            }
            self.starts = starts
            allObjects = Objects(live: live, sections: snapshot.sections, starts: starts, count: total)
        }

        /// Every object, in order, across the sections.
        let allObjects: Objects

        /// The first section's position: 0.
        public var startIndex: Int { 0 }
        /// One past the last section's position.
        public var endIndex: Int { snapshot.sections.count }

        /// The section at a position.
        public subscript(position: Int) -> Section {
            let section = snapshot.sections[position]
            return Section(name: section.id, keys: section.items,
                           objects: Objects(live: live, sections: [section], starts: [0], count: section.items.count))
        }
    }

    /// One section an ``ObservedResults`` shows: its name, its keys, and its objects read
    /// when asked for.
    public struct Section: Identifiable, Sendable {
        /// The section attribute's value; null when the request has no sections.
        public let name: Value
        /// The keys of the section's objects, in order.
        public let keys: [Value]
        /// The section's objects, in order, each read when it is asked for.
        public let objects: Objects

        /// The name: sections are identified by it.
        public var id: Value { name }
        /// The name as text, empty for null (as ``ResultsSection/title``).
        public var title: String { name.text ?? "" }
        /// The number of objects shown in the section.
        public var count: Int { keys.count }
    }

    /// Objects an ``ObservedResults`` shows, in order, each read from the live results when
    /// it is asked for (a view that shows 20 rows of a million reads 20).
    public struct Objects: RandomAccessCollection, Sendable {
        let live: LiveResults
        let sections: [ListSection<Value, Value>]
        let starts: [Int]
        /// The number of objects.
        public let count: Int

        /// The first object's position: 0.
        public var startIndex: Int { 0 }
        /// One past the last object's position.
        public var endIndex: Int { count }

        /// The key of the object at a position, without reading the object.
        public func key(at position: Int) -> Value {
            precondition(position >= 0 && position < count, "position \(position) is outside the \(count) objects")
            // The last section that starts at or before the position.
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= position { low = middle } else { high = middle - 1 }
            }
            return sections[low].items[position - starts[low]]
        }

        /// The object at a position, as of the latest change taken.
        public subscript(position: Int) -> Object {
            live.shownObject(forKey: key(at: position))
        }
    }
}

extension Object: Identifiable {
    /// The object's key: objects are identified by it (a SwiftUI `ForEach` over objects).
    public var id: Value { key }
}
