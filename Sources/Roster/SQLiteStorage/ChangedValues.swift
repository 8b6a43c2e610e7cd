/// The values an update changed, each with its attribute's index, in the order logged:
/// what a batch's update entry (``ChangeBatch/Entry/changed(key:values:)``) holds.
///
/// The first value is kept inline and only the others in an array, so that an update of
/// one attribute — a bulk re-rank, "mark all read" — allocates nothing for it: a batch of
/// 100,000 such updates used to allocate, and then free, 100,000 one-element arrays.
struct ChangedValues: Sequence {
    typealias Element = (index: Int, value: Value)

    private var first: Element?
    private var rest: [Element] = []

    init() {}

    /// How many values changed.
    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// Adds the next changed value.
    mutating func append(_ index: Int, _ value: Value) {
        if first == nil { first = (index, value) } else { rest.append((index, value)) }
    }

    struct Iterator: IteratorProtocol {
        fileprivate let values: ChangedValues
        fileprivate var position = 0

        mutating func next() -> Element? {
            defer { position += 1 }
            if position == 0 { return values.first }
            return position - 1 < values.rest.count ? values.rest[position - 1] : nil
        }
    }

    func makeIterator() -> Iterator { Iterator(values: self) }

    var underestimatedCount: Int { count }
}
