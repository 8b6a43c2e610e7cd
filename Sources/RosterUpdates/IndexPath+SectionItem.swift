import Foundation

#if !canImport(Darwin)
extension IndexPath {
    /// Creates an index path that names one item of one section, as UIKit's list views do.
    ///
    /// Foundation on Darwin declares this initializer in UIKit and AppKit; other platforms lack it.
    ///
    /// - Parameters:
    ///   - item: The item's index inside its section.
    ///   - section: The section's index.
    public init(item: Int, section: Int) {
        // One index, then a second: Foundation keeps two indexes inline, where
        // `init(indexes:)` would first build an array on the heap (a third of what a
        // one-row commit spends on its paths).
        self.init(index: section)
        append(item)
    }

    /// The section's index: the first element of a two-element index path.
    ///
    /// - Precondition: The index path has exactly two elements.
    public var section: Int {
        get {
            precondition(count == 2, "IndexPath.section needs a path of two elements, not \(count)")
            return self[0]
        }
        set {
            precondition(count == 2, "IndexPath.section needs a path of two elements, not \(count)")
            self[0] = newValue
        }
    }

    /// The item's index inside its section: the second element of a two-element index path.
    ///
    /// - Precondition: The index path has exactly two elements.
    public var item: Int {
        get {
            precondition(count == 2, "IndexPath.item needs a path of two elements, not \(count)")
            return self[1]
        }
        set {
            precondition(count == 2, "IndexPath.item needs a path of two elements, not \(count)")
            self[1] = newValue
        }
    }
}
#endif

extension IndexPath {
    /// The path as `[section, item]`, the form that messages and traces print.
    var listDescription: String {
        "[" + map(String.init).joined(separator: ",") + "]"
    }

    /// Whether the path names one item of one section (exactly two non-negative elements).
    var isSectionItemPair: Bool {
        count == 2 && self[0] >= 0 && self[1] >= 0
    }
}
