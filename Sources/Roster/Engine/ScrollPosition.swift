/// Where a row the user was looking at is after a change: the row itself, or, when it
/// left, its nearest neighbour that stayed. A list view scrolls so that this row sits
/// where the row it asked about sat, and the user keeps their place, however many rows
/// arrived or left above it.
///
/// ```swift
/// // Before applying a change: the first row on screen and how far it is from the top.
/// let top = visibleKeys[0], offset = tableView.offsetOfRow(top)
/// // After it:
/// if let place = controller.scrollPosition(keeping: top, visibleBefore: visibleKeys) {
///     tableView.scroll(toRowAt: place.indexPath, offsetFromTop: offset)
/// }
/// ```
public struct ScrollPosition: Sendable, Hashable {
    /// The row to keep in place: the one asked about, or its nearest neighbour that stayed.
    public let key: Value
    /// Where that row is now (window-relative, with a window).
    public let indexPath: IndexPath
    /// Whether ``key`` is the row asked about; false when that row left and this is its
    /// nearest neighbour that stayed.
    public let isSameRow: Bool

    /// The position of `key`, or of its nearest neighbour in `keys` that can be located:
    /// the first of those after it, else the nearest before it. The one rule for keeping a
    /// place, used by anchored windows (``ResultsWindow``) too.
    ///
    /// - Parameters:
    ///   - keys: the rows as they were shown, in order; `key` among them.
    ///   - locate: where a row is now, or nil when it left.
    static func nearest<Position>(to key: Value, among keys: [Value], locate: (Value) -> Position?) -> (key: Value, position: Position)? {
        if let position = locate(key) { return (key, position) }
        guard let index = keys.firstIndex(of: key) else { return nil }
        for neighbour in keys[(index + 1)...] {
            if let position = locate(neighbour) { return (neighbour, position) }
        }
        for neighbour in keys[..<index].reversed() {
            if let position = locate(neighbour) { return (neighbour, position) }
        }
        return nil
    }
}
