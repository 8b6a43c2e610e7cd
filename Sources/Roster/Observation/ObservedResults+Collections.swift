import RosterUpdates

extension ObservedResults {
    /// The sections an ``ObservedResults`` shows, as of one change: their names, counts and
    /// keys come from that change's ``ResultsSnapshot`` (for whole results, a frozen order
    /// of the live results' engine: nothing is copied), and each object is read from the
    /// live results when it is asked for.
    ///
    /// A value kept after later changes still lists the rows of its own change (as SwiftUI
    /// keeps the data a `ForEach` showed to diff it with the next); its objects read as of
    /// the latest change, and a row that has left since reads as its key with null values.
    public struct Sections: RandomAccessCollection, Sendable {
        let snapshot: ResultsSnapshot
        let reader: ObjectReader
        /// Where each section's objects start in ``allObjects``.
        private let starts: [Int]
        /// Every object, in order, across the sections.
        let allObjects: Objects

        init(snapshot: ResultsSnapshot, reader: ObjectReader) {
            self.snapshot = snapshot
            self.reader = reader
            var starts: [Int] = []
            starts.reserveCapacity(snapshot.sectionCount)
            var total = 0
            for index in 0..<snapshot.sectionCount {
                starts.append(total)
                total += snapshot.sectionInfo(index).numberOfObjects
            }
            self.starts = starts
            allObjects = Objects(keys: Keys(snapshot: snapshot, sections: 0..<snapshot.sectionCount, starts: starts, count: total), reader: reader)
        }

        /// The first section's position: 0.
        public var startIndex: Int { 0 }
        /// One past the last section's position.
        public var endIndex: Int { starts.count }

        /// The section at a position.
        public subscript(position: Int) -> Section {
            let info = snapshot.sectionInfo(position)
            let keys = Keys(snapshot: snapshot, sections: position..<(position + 1), starts: [0], count: info.numberOfObjects)
            return Section(name: info.name, keys: keys, objects: Objects(keys: keys, reader: reader))
        }
    }

    /// One section an ``ObservedResults`` shows: its name, its keys, and its objects read
    /// when asked for.
    public struct Section: Identifiable, Sendable {
        /// The section attribute's value; null when the request has no sections.
        public let name: Value
        /// The keys of the section's objects, in order.
        public let keys: Keys
        /// The section's objects, in order, each read when it is asked for.
        public let objects: Objects

        /// The name: sections are identified by it.
        public var id: Value { name }
        /// The name as text, empty for null (as ``ResultsSection/title``).
        public var title: String { name.text ?? "" }
        /// The number of objects shown in the section.
        public var count: Int { keys.count }
    }

    /// The keys of objects an ``ObservedResults`` shows, in order, read from the change's
    /// snapshot when asked for.
    public struct Keys: RandomAccessCollection, Sendable {
        let snapshot: ResultsSnapshot
        /// The snapshot's sections these keys span.
        let sections: Range<Int>
        /// Where each of those sections starts among these keys.
        let starts: [Int]
        /// The number of keys.
        public let count: Int

        /// The first key's position: 0.
        public var startIndex: Int { 0 }
        /// One past the last key's position.
        public var endIndex: Int { count }

        /// The key at a position.
        public subscript(position: Int) -> Value {
            precondition(position >= 0 && position < count, "position \(position) is outside the \(count) keys")
            let section = FrozenSections.section(containing: position, starts: starts)
            return snapshot.key(section: sections.lowerBound + section, item: position - starts[section])
        }
    }

    /// Objects an ``ObservedResults`` shows, in order, each read from the live results when
    /// it is asked for (a view that shows 20 rows of a million reads 20).
    public struct Objects: RandomAccessCollection, Sendable {
        /// The objects' keys.
        public let keys: Keys
        let reader: ObjectReader

        /// The first object's position: 0.
        public var startIndex: Int { 0 }
        /// One past the last object's position.
        public var endIndex: Int { keys.count }

        /// The object at a position, as of the latest change taken.
        public subscript(position: Int) -> Object {
            reader.object(forKey: keys[position])
        }
    }

    /// Where objects are read: the live results (as of their latest change taken), or the
    /// frame of a cold window that listed them.
    enum ObjectReader: Sendable {
        case live(LiveResults)
        case frame(ColdWindowFeed.Frame)

        func object(forKey key: Value) -> Object {
            switch self {
            case let .live(live):
                return live.shownObject(forKey: key)
            case let .frame(frame):
                if let object = frame.objects[key] { return object }
                // A row the controller could not read: its key, with null values.
                let entity = frame.entity
                var values = [Value](repeating: .null, count: entity.attributes.count)
                values[entity.keyIndex] = key
                return Object(entity: entity, values: values)
            }
        }

    }
}

extension Object: Identifiable {
    /// The object's key: objects are identified by it (a SwiftUI `ForEach` over objects).
    public var id: Value { key }
}
