extension CountedBTree {
    /// The position of the element that compares equal to `element`.
    ///
    /// - Returns: The element's position, or nil when no element compares equal.
    /// - Complexity: O(log n).
    func rank(of element: Element) -> Int? {
        var node = root
        var rank = 0
        while !node.isLeaf {
            let slot = node.childIndex(routing: element, compare: compare)
            guard slot >= 0 else { return nil }
            rank += node.countBefore(childIndex: slot)
            node = node.children[slot]
        }
        let (index, isExactMatch) = node.lowerBound(of: element, compare: compare)
        return isExactMatch ? rank + index : nil
    }

    /// The number of elements that come before `element`: its position if present, and
    /// where ``insert(_:)`` would put it if not.
    ///
    /// - Complexity: O(log n).
    func insertionRank(of element: Element) -> Int {
        var node = root
        var rank = 0
        while !node.isLeaf {
            let slot = Swift.max(node.childIndex(routing: element, compare: compare), 0)
            rank += node.countBefore(childIndex: slot)
            node = node.children[slot]
        }
        return rank + node.lowerBound(of: element, compare: compare).index
    }

    /// The element at position `rank`.
    ///
    /// - Parameter rank: A position in `0..<count`.
    /// - Complexity: O(log n).
    subscript(rank: Int) -> Element {
        precondition(rank >= 0 && rank < count, "CountedBTree: rank \(rank) out of 0..<\(count)")
        var node = root
        var remaining = rank
        while !node.isLeaf {
            var slot = 0
            while remaining >= node.counts[slot] {
                remaining -= node.counts[slot]
                slot += 1
            }
            node = node.children[slot]
        }
        return node.elements[remaining]
    }

    /// The stored element that compares equal to `probe`.
    ///
    /// A probe needs only what `compare` reads (for rows: the sort values and the key),
    /// and the answer is the complete stored element.
    ///
    /// - Returns: The stored element, or nil when none compares equal.
    /// - Complexity: O(log n).
    func element(equalTo probe: Element) -> Element? {
        var node = root
        while !node.isLeaf {
            let slot = node.childIndex(routing: probe, compare: compare)
            guard slot >= 0 else { return nil }
            node = node.children[slot]
        }
        let (index, isExactMatch) = node.lowerBound(of: probe, compare: compare)
        return isExactMatch ? node.elements[index] : nil
    }

    /// Calls `body` with the elements at the positions in `ranks`, in order.
    ///
    /// - Parameters:
    ///   - ranks: Positions within `0..<count`.
    ///   - body: Called once per element.
    /// - Complexity: O(log n + ranks.count).
    func forEach(in ranks: Range<Int>, _ body: (Element) -> Void) {
        precondition(ranks.lowerBound >= 0 && ranks.upperBound <= count,
                     "CountedBTree: ranks \(ranks) out of 0..<\(count)")
        guard !ranks.isEmpty else { return }
        root.forEach(in: ranks, body)
    }

    /// All elements, in order.
    ///
    /// - Complexity: O(n).
    var elements: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        root.appendElements(to: &result)
        return result
    }
}

extension CountedBTree.Node {
    /// Calls `body` with the elements at `ranks`, positions counted within this node.
    fileprivate func forEach(in ranks: Range<Int>, _ body: (Element) -> Void) {
        if isLeaf {
            for index in ranks { body(elements[index]) }
            return
        }
        var childStart = 0
        for slot in children.indices {
            let childEnd = childStart + counts[slot]
            if childEnd > ranks.lowerBound {
                let lower = Swift.max(ranks.lowerBound, childStart) - childStart
                let upper = Swift.min(ranks.upperBound, childEnd) - childStart
                children[slot].forEach(in: lower..<upper, body)
            }
            if childEnd >= ranks.upperBound { return }
            childStart = childEnd
        }
    }

    /// Appends every element below this node to `result`, in order.
    fileprivate func appendElements(to result: inout [Element]) {
        if isLeaf {
            result.append(contentsOf: elements)
        } else {
            for child in children { child.appendElements(to: &result) }
        }
    }
}
