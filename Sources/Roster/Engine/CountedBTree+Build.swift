extension CountedBTree {
    /// Builds the nodes for `elements`, which are sorted and distinct, bottom-up without
    /// comparing; returns the root.
    ///
    /// Nodes are filled to about three quarters, so the first edits do not split at once.
    ///
    /// - Complexity: O(n).
    static func makeRoot(sorted elements: some RandomAccessCollection<Element>, capacities: Capacities) -> Node {
        guard !elements.isEmpty else { return Node(leafElements: []) }
        var level: [Node] = []
        var levelCounts: [Int] = []
        let leafSizes = pieceSizes(total: elements.count, capacity: capacities.leaf,
                                   minimum: capacities.minimumLeafCount)
        level.reserveCapacity(leafSizes.count)
        levelCounts.reserveCapacity(leafSizes.count)
        var start = elements.startIndex
        for size in leafSizes {
            let end = elements.index(start, offsetBy: size)
            level.append(Node(leafElements: Array(elements[start..<end])))
            levelCounts.append(size)
            start = end
        }

        while level.count > 1 {
            var parents: [Node] = []
            var parentCounts: [Int] = []
            let sizes = pieceSizes(total: level.count, capacity: capacities.inner,
                                   minimum: capacities.minimumChildCount)
            parents.reserveCapacity(sizes.count)
            parentCounts.reserveCapacity(sizes.count)
            var start = 0
            for size in sizes {
                let range = start..<start + size
                let children = Array(level[range])
                let counts = Array(levelCounts[range])
                parents.append(Node(children: children, counts: counts,
                                    firstElements: children.map { $0.elements[0] }))
                parentCounts.append(counts.reduce(0, +))
                start += size
            }
            level = parents
            levelCounts = parentCounts
        }
        return level[0]
    }

    /// Splits `total` entries into pieces of nearly equal size, each at most `capacity`
    /// and, when there is more than one, at least `minimum` (half the capacity).
    ///
    /// Aims for pieces three quarters full. When that would leave pieces below the
    /// minimum (only with two pieces), it uses as few pieces as the capacity allows:
    /// with `p = ⌈total / capacity⌉ ≥ 2`, `total > (p - 1) · capacity`, so every piece
    /// gets at least `⌊(capacity + 1) / 2⌋ ≥ minimum`.
    static func pieceSizes(total: Int, capacity: Int, minimum: Int) -> [Int] {
        let fill = Swift.max(capacity - capacity / 4, 1)
        var pieces = Swift.max((total + fill - 1) / fill, 1)
        if pieces > 1 && total / pieces < minimum {
            pieces = (total + capacity - 1) / capacity
        }
        let (base, remainder) = total.quotientAndRemainder(dividingBy: pieces)
        return (0..<pieces).map { $0 < remainder ? base + 1 : base }
    }

    /// Whether every element comes before the next one.
    static func isSortedAndDistinct(_ elements: some Collection<Element>, compare: Comparator) -> Bool {
        zip(elements, elements.dropFirst()).allSatisfy { compare($0, $1) < 0 }
    }
}
