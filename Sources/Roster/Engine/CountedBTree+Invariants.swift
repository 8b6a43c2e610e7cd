extension CountedBTree {
    /// Stops the program when the tree's structure is broken; for tests and debugging.
    ///
    /// - Complexity: O(n).
    func _checkInvariants() {
        if let violation = _invariantViolation() {
            preconditionFailure("CountedBTree: \(violation)")
        }
    }

    /// The first broken rule of the tree's structure, or nil when it is sound.
    ///
    /// The rules: elements strictly increase from leaf to leaf; all leaves lie at the same
    /// depth; an inner node's counts and first elements match its children; leaves hold at
    /// most `capacities.leaf` elements and inner nodes at most `capacities.inner` children;
    /// nodes other than the root are at least half full; an inner root has two children;
    /// `count` is the number of elements.
    ///
    /// - Complexity: O(n).
    func _invariantViolation() -> String? {
        var checker = InvariantChecker(compare: compare, capacities: capacities)
        do {
            let total = try checker.check(root, depth: 0, isRoot: true)
            if total != count { return "count is \(count) but the tree holds \(total) elements" }
            return nil
        } catch {
            return error.description
        }
    }
}

extension CountedBTree {
    /// Walks a tree in order, checking the rules listed at ``CountedBTree/_invariantViolation()``.
    fileprivate struct InvariantChecker {
        /// A broken rule, described.
        struct Violation: Error, CustomStringConvertible {
            let description: String
        }

        let compare: Comparator
        let capacities: Capacities
        /// The depth of the first leaf visited.
        var leafDepth: Int?
        /// The last element visited, which the next one must follow.
        var previous: Element?
        /// How many elements have been visited, to name the position of a problem.
        var visited = 0

        init(compare: @escaping Comparator, capacities: Capacities) {
            self.compare = compare
            self.capacities = capacities
        }

        /// Checks `node` and everything below it; returns its number of elements.
        mutating func check(_ node: Node, depth: Int, isRoot: Bool) throws(Violation) -> Int {
            if node.isLeaf {
                return try checkLeaf(node, depth: depth, isRoot: isRoot)
            }
            let width = node.children.count
            guard node.counts.count == width && node.elements.count == width else {
                throw Violation(description: "inner node at depth \(depth) has \(width) children, "
                    + "\(node.counts.count) counts and \(node.elements.count) first elements")
            }
            let minimum = isRoot ? 2 : capacities.minimumChildCount
            guard width >= minimum && width <= capacities.inner else {
                throw Violation(description: "inner node at depth \(depth) has \(width) children, "
                    + "outside \(minimum)...\(capacities.inner)")
            }
            var total = 0
            for (slot, child) in node.children.enumerated() {
                let childCount = try check(child, depth: depth + 1, isRoot: false)
                guard node.counts[slot] == childCount else {
                    throw Violation(description: "inner node at depth \(depth) records \(node.counts[slot]) "
                        + "elements for child \(slot), which holds \(childCount)")
                }
                guard compare(node.elements[slot], child.elements[0]) == 0 else {
                    throw Violation(description: "inner node at depth \(depth) has a stale first element "
                        + "for child \(slot)")
                }
                total += childCount
            }
            return total
        }

        /// Checks a leaf's depth, size and order; returns its number of elements.
        private mutating func checkLeaf(_ node: Node, depth: Int, isRoot: Bool) throws(Violation) -> Int {
            guard node.children.isEmpty && node.counts.isEmpty else {
                throw Violation(description: "leaf at depth \(depth) has children")
            }
            if let leafDepth, leafDepth != depth {
                throw Violation(description: "leaves at depths \(leafDepth) and \(depth)")
            }
            leafDepth = depth
            let minimum = isRoot ? 0 : Swift.max(capacities.minimumLeafCount, 1)
            guard node.elements.count >= minimum && node.elements.count <= capacities.leaf else {
                throw Violation(description: "leaf at depth \(depth) holds \(node.elements.count) elements, "
                    + "outside \(minimum)...\(capacities.leaf)")
            }
            for element in node.elements {
                if let previous, compare(previous, element) >= 0 {
                    throw Violation(description: "element at position \(visited) does not follow the one before")
                }
                previous = element
                visited += 1
            }
            return node.elements.count
        }
    }
}
