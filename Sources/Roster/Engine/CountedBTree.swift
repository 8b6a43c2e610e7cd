/// A sorted collection of distinct elements that finds the element at a position, and
/// the position of an element, in O(log n).
///
/// Live queries keep their rows in this tree so that a commit touching k rows costs
/// O(k log n) instead of re-sorting every row. It is a B+tree: leaves hold runs of
/// elements, and inner nodes also record how many elements lie below each child, so a
/// descent by comparison adds up a rank and a descent by rank finds an element.
///
/// ```swift
/// var tree = CountedBTree<Int>(compare: { $0 < $1 ? -1 : ($0 == $1 ? 0 : 1) })
/// tree.insert(30)
/// tree.insert(10)
/// let rank = tree.insert(20)   // 1
/// let first = tree[0]          // 10
/// let position = tree.rank(of: 30)  // 2
/// ```
///
/// The tree is a value: copies share their nodes until one of them changes, and a change
/// first copies the shared nodes on its path (copy-on-write), so it never shows through
/// another copy.
///
/// Every element must be distinct under `compare`: two elements that compare equal are
/// the same element (for rows, compare the sort values and then the row key).
///
/// Every node other than the root is at least half full (see ``Capacities``), so with
/// the standard capacities the tree has at most `2 + log₃₂(n / 128)` levels: four for a
/// million elements.
struct CountedBTree<Element> {
    /// Orders two elements: negative when the first comes before the second, zero when
    /// they are the same element, positive when it comes after.
    typealias Comparator = (Element, Element) -> Int

    /// The largest number of elements a leaf holds and of children an inner node holds.
    ///
    /// A node that outgrows its capacity splits in two; a node other than the root that
    /// falls below half its capacity borrows from or merges with a neighbour.
    struct Capacities {
        /// The most elements a leaf holds.
        let leaf: Int
        /// The most children an inner node holds.
        let inner: Int

        /// The capacities for real use. At a million rows, leaves of 64 to 512 all ran
        /// within 20% of each other; 128 keeps edits and copy-on-write copies short while
        /// node overhead stays near one word per hundred elements.
        static var standard: Capacities { Capacities(leaf: 128, inner: 64) }

        /// The fewest elements a leaf other than the root holds.
        var minimumLeafCount: Int { leaf / 2 }
        /// The fewest children an inner node other than the root holds.
        var minimumChildCount: Int { inner / 2 }
    }

    /// The top node: a leaf while the tree is small, otherwise an inner node with at
    /// least two children.
    private(set) var root: Node
    /// The number of elements in the tree.
    private(set) var count: Int
    /// The order of the elements.
    let compare: Comparator
    /// The node sizes this tree keeps to.
    let capacities: Capacities

    /// Creates an empty tree ordered by `compare`.
    ///
    /// - Parameter compare: Negative, zero or positive as the first element comes before,
    ///   is the same as, or comes after the second.
    init(compare: @escaping Comparator) {
        self.init(compare: compare, capacities: .standard)
    }

    /// Creates an empty tree with the given node sizes; small ones make deep trees for tests.
    ///
    /// - Parameters:
    ///   - compare: The order of the elements.
    ///   - capacities: At least 2 elements per leaf and 4 children per inner node.
    init(compare: @escaping Comparator, capacities: Capacities) {
        precondition(capacities.leaf >= 2 && capacities.inner >= 4, "CountedBTree: capacities too small")
        self.compare = compare
        self.capacities = capacities
        self.root = Node(leafElements: [])
        self.count = 0
    }

    /// Creates a tree holding `elements`, which are already sorted and distinct under
    /// `compare`, building it bottom-up without comparing.
    ///
    /// - Parameters:
    ///   - elements: The elements in order; debug builds check that they are.
    ///   - compare: The order of the elements.
    /// - Complexity: O(n).
    init(sorted elements: some RandomAccessCollection<Element>, compare: @escaping Comparator) {
        self.init(sorted: elements, compare: compare, capacities: .standard)
    }

    /// Creates a tree holding `elements`, sorted and distinct, with the given node sizes.
    init(sorted elements: some RandomAccessCollection<Element>, compare: @escaping Comparator, capacities: Capacities) {
        self.init(compare: compare, capacities: capacities)
        assert(Self.isSortedAndDistinct(elements, compare: compare),
               "CountedBTree(sorted:): elements are not sorted and distinct")
        root = Self.makeRoot(sorted: elements, capacities: capacities)
        count = elements.count
    }

    /// Whether the tree holds no elements.
    var isEmpty: Bool { count == 0 }

    /// Inserts an element that is not yet in the tree.
    ///
    /// - Parameter element: The new element; no element in the tree may compare equal to it.
    /// - Returns: The element's position after the insertion.
    /// - Complexity: O(log n).
    @discardableResult
    mutating func insert(_ element: Element) -> Int {
        makeRootUnique()
        let (rank, split) = root.insert(element, compare: compare, capacities: capacities)
        count += 1
        if let split { growRoot(with: split) }
        return rank
    }

    /// Removes the element that compares equal to `element`.
    ///
    /// On a tree that still shares nodes with a copy, even a removal that finds nothing
    /// copies the nodes on its path.
    ///
    /// - Parameter element: The element, or a probe that compares equal to it.
    /// - Returns: The position the element had, or nil when no element compares equal.
    /// - Complexity: O(log n).
    @discardableResult
    mutating func remove(_ element: Element) -> Int? {
        makeRootUnique()
        guard let rank = root.remove(element, compare: compare, capacities: capacities) else { return nil }
        count -= 1
        shrinkRoot()
        return rank
    }

    /// Inserts a run of elements at a position the caller knows, without comparing: the
    /// run must be in order, after the element at `rank - 1` and before the one now at `rank`.
    ///
    /// Moving a run of elements that keep their order among themselves (a renamed section
    /// of a live query) costs no comparisons this way, and a descent per half a leaf.
    ///
    /// - Parameters:
    ///   - run: The new elements, in order.
    ///   - rank: Where the first goes, in `0...count`.
    /// - Complexity: O(log n + run.count).
    mutating func insert(contentsOf run: [Element], atRank rank: Int) {
        precondition(rank >= 0 && rank <= count, "CountedBTree.insert(contentsOf:atRank:): rank \(rank) is outside 0...\(count)")
        let piece = Swift.max(1, capacities.leaf / 2)
        var start = 0
        while start < run.count {
            let end = Swift.min(start + piece, run.count)
            makeRootUnique()
            let split = root.insert(contentsOf: run[start..<end], atRank: rank + start, capacities: capacities)
            count += end - start
            if let split { growRoot(with: split) }
            start = end
        }
    }

    /// Removes the elements at a range of positions, without comparing.
    ///
    /// - Parameter ranks: Positions within `0..<count`.
    /// - Complexity: O(log n + ranks.count).
    mutating func removeSubrange(_ ranks: Range<Int>) {
        precondition(ranks.lowerBound >= 0 && ranks.upperBound <= count,
                     "CountedBTree.removeSubrange(_:): ranks \(ranks) are outside 0..<\(count)")
        var remaining = ranks.count
        while remaining > 0 {
            makeRootUnique()
            let removed = root.remove(atRank: ranks.lowerBound, upTo: remaining, capacities: capacities)
            count -= removed
            remaining -= removed
            shrinkRoot()
        }
    }

    /// Puts a new root above the root and the upper half it split off.
    private mutating func growRoot(with split: Split) {
        let formerRoot = root
        root = Node(
            children: [formerRoot, split.node],
            counts: [count - split.count, split.count],
            firstElements: [formerRoot.elements[0], split.node.elements[0]])
    }

    /// Drops roots left with a single child by a removal.
    private mutating func shrinkRoot() {
        while !root.isLeaf && root.children.count == 1 {
            root = root.children[0]
        }
    }

    /// Gives this tree its own root before a change, so the change cannot reach a copy.
    private mutating func makeRootUnique() {
        if !isKnownUniquelyReferenced(&root) {
            root = root.copy()
        }
    }
}
