extension CountedBTree.Node {
    typealias Tree = CountedBTree<Element>

    /// Inserts `element` below this node, which the caller owns uniquely.
    ///
    /// - Returns: The element's position among the elements below this node, and the
    ///   upper half of this node when it overflowed and split.
    /// - Complexity: O(log n), plus O(capacity) to shift entries on each level.
    func insert(
        _ element: Element, compare: Tree.Comparator, capacities: Tree.Capacities
    ) -> (rank: Int, split: Tree.Split?) {
        let (index, isExactMatch) = lowerBound(of: element, compare: compare)
        precondition(!isExactMatch, "CountedBTree.insert: an equal element is already present")
        if isLeaf {
            elements.insert(element, at: index)
            return (index, elements.count > capacities.leaf ? splitLeaf(capacities) : nil)
        }
        let slot = Swift.max(index - 1, 0)
        makeChildUnique(at: slot)
        let (childRank, childSplit) = children[slot].insert(element, compare: compare, capacities: capacities)
        counts[slot] += 1
        if childRank == 0 { elements[slot] = element }
        if let childSplit {
            counts[slot] -= childSplit.count
            children.insert(childSplit.node, at: slot + 1)
            counts.insert(childSplit.count, at: slot + 1)
            elements.insert(childSplit.node.elements[0], at: slot + 1)
        }
        let rank = countBefore(childIndex: slot) + childRank
        return (rank, children.count > capacities.inner ? splitInner(capacities) : nil)
    }

    /// Moves the upper half of an overfull leaf into a new leaf.
    private func splitLeaf(_ capacities: Tree.Capacities) -> Tree.Split {
        let middle = elements.count / 2
        // The new leaf reserves its full capacity: it sits where inserts arrive.
        var upper: [Element] = []
        upper.reserveCapacity(capacities.leaf)
        upper.append(contentsOf: elements[middle...])
        elements.removeSubrange(middle...)
        return Tree.Split(node: Self(leafElements: upper), count: upper.count)
    }

    /// Moves the upper half of an overfull inner node's children into a new inner node.
    private func splitInner(_ capacities: Tree.Capacities) -> Tree.Split {
        let middle = children.count / 2
        var upperChildren: [Tree.Node] = []
        var upperCounts: [Int] = []
        var upperFirsts: [Element] = []
        upperChildren.reserveCapacity(capacities.inner + 1)
        upperCounts.reserveCapacity(capacities.inner + 1)
        upperFirsts.reserveCapacity(capacities.inner + 1)
        upperChildren.append(contentsOf: children[middle...])
        upperCounts.append(contentsOf: counts[middle...])
        upperFirsts.append(contentsOf: elements[middle...])
        children.removeSubrange(middle...)
        counts.removeSubrange(middle...)
        elements.removeSubrange(middle...)
        let node = Self(children: upperChildren, counts: upperCounts, firstElements: upperFirsts)
        return Tree.Split(node: node, count: upperCounts.reduce(0, +))
    }

    /// Removes the element equal to `element` from below this node, which the caller owns
    /// uniquely. The node itself may be left underfull; its parent repairs that.
    ///
    /// - Returns: The position the element had among the elements below this node, or
    ///   nil when no element below it compares equal.
    /// - Complexity: O(log n), plus O(capacity) to shift entries on each level.
    func remove(_ element: Element, compare: Tree.Comparator, capacities: Tree.Capacities) -> Int? {
        if isLeaf {
            let (index, isExactMatch) = lowerBound(of: element, compare: compare)
            guard isExactMatch else { return nil }
            elements.remove(at: index)
            return index
        }
        let slot = childIndex(routing: element, compare: compare)
        guard slot >= 0 else { return nil }
        makeChildUnique(at: slot)
        let child = children[slot]
        guard let childRank = child.remove(element, compare: compare, capacities: capacities) else { return nil }
        let rank = countBefore(childIndex: slot) + childRank
        counts[slot] -= 1
        if childRank == 0 && counts[slot] > 0 { elements[slot] = child.elements[0] }
        if child.isUnderfull(capacities) { rebalanceChild(at: slot, capacities) }
        return rank
    }

    /// Inserts `run` at position `rank` among the elements below this node, which the
    /// caller owns uniquely; the caller vouches that the order holds there. At most half a
    /// leaf at a time, so that one split makes room.
    ///
    /// - Returns: The upper half of this node when it overflowed and split.
    /// - Complexity: O(log n), plus O(capacity) on each level; no comparisons.
    func insert(contentsOf run: ArraySlice<Element>, atRank rank: Int, capacities: Tree.Capacities) -> Tree.Split? {
        if isLeaf {
            elements.insert(contentsOf: run, at: rank)
            return elements.count > capacities.leaf ? splitLeaf(capacities) : nil
        }
        // The child the position falls in; on a boundary the earlier child takes the run at
        // its end, so the later child's first element stays.
        var slot = 0
        var before = 0
        while slot < children.count - 1 && before &+ counts[slot] < rank {
            before &+= counts[slot]
            slot &+= 1
        }
        makeChildUnique(at: slot)
        let childSplit = children[slot].insert(contentsOf: run, atRank: rank - before, capacities: capacities)
        counts[slot] += run.count
        if rank == before { elements[slot] = run[run.startIndex] }
        if let childSplit {
            counts[slot] -= childSplit.count
            children.insert(childSplit.node, at: slot + 1)
            counts.insert(childSplit.count, at: slot + 1)
            elements.insert(childSplit.node.elements[0], at: slot + 1)
        }
        return children.count > capacities.inner ? splitInner(capacities) : nil
    }

    /// Removes up to `limit` elements from position `rank` on, among the elements below
    /// this node (which the caller owns uniquely), as many as one leaf holds from there.
    /// The node itself may be left underfull; its parent repairs that.
    ///
    /// - Returns: How many elements it removed, at least one.
    /// - Complexity: O(log n), plus O(capacity) on each level; no comparisons.
    func remove(atRank rank: Int, upTo limit: Int, capacities: Tree.Capacities) -> Int {
        if isLeaf {
            let removed = Swift.min(limit, elements.count - rank)
            elements.removeSubrange(rank..<(rank + removed))
            return removed
        }
        var slot = 0
        var before = 0
        while before &+ counts[slot] <= rank {
            before &+= counts[slot]
            slot &+= 1
        }
        makeChildUnique(at: slot)
        let child = children[slot]
        let removed = child.remove(atRank: rank - before, upTo: limit, capacities: capacities)
        counts[slot] -= removed
        if rank == before && counts[slot] > 0 { elements[slot] = child.elements[0] }
        if child.isUnderfull(capacities) { rebalanceChild(at: slot, capacities) }
        return removed
    }

    /// Repairs an underfull child together with a neighbour: merges the two when they fit
    /// in one node, otherwise shares their entries evenly, so both end at least half full.
    private func rebalanceChild(at slot: Int, _ capacities: Tree.Capacities) {
        let leftSlot = slot > 0 ? slot - 1 : slot
        let rightSlot = leftSlot + 1
        makeChildUnique(at: leftSlot)
        makeChildUnique(at: rightSlot)
        let left = children[leftSlot]
        let right = children[rightSlot]
        let leftSize = left.isLeaf ? left.elements.count : left.children.count
        let rightSize = right.isLeaf ? right.elements.count : right.children.count
        let capacity = left.isLeaf ? capacities.leaf : capacities.inner
        if leftSize + rightSize <= capacity {
            left.elements.append(contentsOf: right.elements)
            left.children.append(contentsOf: right.children)
            left.counts.append(contentsOf: right.counts)
            counts[leftSlot] += counts[rightSlot]
            children.remove(at: rightSlot)
            counts.remove(at: rightSlot)
            elements.remove(at: rightSlot)
            // An emptied left child took its first element from the right one.
            elements[leftSlot] = left.elements[0]
            return
        }
        let leftTarget = (leftSize + rightSize) / 2
        let movedCount: Int
        if leftSize < leftTarget {
            let moving = leftTarget - leftSize
            movedCount = right.isLeaf ? moving : right.counts[..<moving].reduce(0, +)
            left.elements.append(contentsOf: right.elements[..<moving])
            right.elements.removeFirst(moving)
            if !right.isLeaf {
                left.children.append(contentsOf: right.children[..<moving])
                left.counts.append(contentsOf: right.counts[..<moving])
                right.children.removeFirst(moving)
                right.counts.removeFirst(moving)
            }
        } else {
            let moving = leftSize - leftTarget
            movedCount = -(left.isLeaf ? moving : left.counts[leftTarget...].reduce(0, +))
            right.elements.insert(contentsOf: left.elements[leftTarget...], at: 0)
            left.elements.removeLast(moving)
            if !left.isLeaf {
                right.children.insert(contentsOf: left.children[leftTarget...], at: 0)
                right.counts.insert(contentsOf: left.counts[leftTarget...], at: 0)
                left.children.removeLast(moving)
                left.counts.removeLast(moving)
            }
        }
        counts[leftSlot] += movedCount
        counts[rightSlot] -= movedCount
        elements[leftSlot] = left.elements[0]
        elements[rightSlot] = right.elements[0]
    }
}
