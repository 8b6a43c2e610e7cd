extension CountedBTree {
    /// One node of the tree: a leaf holding a run of elements, or an inner node holding
    /// children with their element counts.
    ///
    /// Nodes are shared between copies of a tree; code that changes a node first makes
    /// sure its tree is the only owner (see ``makeChildUnique(at:)``).
    final class Node {
        /// In a leaf, the elements in order. In an inner node, the first element of each
        /// child's subtree, so a descent can choose a child by comparison. Either way
        /// `elements[0]` is the smallest element below this node.
        var elements: [Element]
        /// The children of an inner node, in order; empty in a leaf.
        var children: [Node]
        /// `counts[i]` is the number of elements below `children[i]`; empty in a leaf.
        var counts: [Int]
        /// Whether the node holds elements rather than children.
        let isLeaf: Bool

        /// Creates a leaf holding `elements`, which are sorted and distinct.
        init(leafElements: [Element]) {
            self.elements = leafElements
            self.children = []
            self.counts = []
            self.isLeaf = true
        }

        /// Creates an inner node; the three arrays run parallel, one entry per child.
        init(children: [Node], counts: [Int], firstElements: [Element]) {
            self.elements = firstElements
            self.children = children
            self.counts = counts
            self.isLeaf = false
        }

        /// A node with the same contents that shares the children, for copy-on-write.
        func copy() -> Node {
            isLeaf
                ? Node(leafElements: elements)
                : Node(children: children, counts: counts, firstElements: elements)
        }

        /// The number of elements below the children before `childIndex`.
        ///
        /// - Complexity: O(children).
        func countBefore(childIndex: Int) -> Int {
            var total = 0
            for index in 0..<childIndex { total &+= counts[index] }
            return total
        }

        /// The first index whose element does not come before `probe`, and whether the
        /// element there is the same as `probe`.
        ///
        /// - Complexity: O(log m) comparisons for m entries.
        func lowerBound(of probe: Element, compare: Comparator) -> (index: Int, isExactMatch: Bool) {
            var low = 0
            var high = elements.count
            while low < high {
                let middle = (low &+ high) >> 1
                let order = compare(elements[middle], probe)
                if order < 0 {
                    low = middle &+ 1
                } else if order > 0 {
                    high = middle
                } else {
                    return (middle, true)
                }
            }
            return (low, false)
        }

        /// The index of the child whose range holds `probe`: the last child whose first
        /// element does not come after it, or -1 when `probe` comes before every element.
        func childIndex(routing probe: Element, compare: Comparator) -> Int {
            let (index, isExactMatch) = lowerBound(of: probe, compare: compare)
            return isExactMatch ? index : index - 1
        }

        /// Replaces `children[index]` by a private copy when another tree shares it.
        func makeChildUnique(at index: Int) {
            if !isKnownUniquelyReferenced(&children[index]) {
                children[index] = children[index].copy()
            }
        }

        /// Whether this node, if it is not the root, has fallen below its minimum size.
        func isUnderfull(_ capacities: Capacities) -> Bool {
            isLeaf
                ? elements.count < capacities.minimumLeafCount
                : children.count < capacities.minimumChildCount
        }
    }

    /// The upper half of a node that overflowed, ready to become its next sibling.
    struct Split {
        /// The new node.
        let node: Node
        /// The number of elements below the new node.
        let count: Int
    }
}
