/// A live query's aggregates (``FetchRequest/aggregates``): read at any time, and reported
/// after the row changes of the commits that changed them.
extension ResultsController {
    /// The aggregates over the whole results, whatever a window shows; nil before
    /// ``performFetch()`` and for a request without aggregates. O(aggregates).
    public var aggregates: AggregateValues? {
        aggregateTracker?.totalValues
    }

    /// The aggregates of the section of the whole results with this name (null without a
    /// section attribute); nil when there is no such section. O(aggregates).
    public func aggregates(forSectionName name: Value) -> AggregateValues? {
        aggregateTracker?.values(ofSection: name)
    }

    /// The aggregates of a section as the delegate sees it (window-relative, with a
    /// window): over all of the section's objects in the whole results, not only those
    /// the window shows. Nil for an index out of range.
    public func aggregates(inSection index: Int) -> AggregateValues? {
        let shown = shownNow
        guard shown.indices.contains(index) else { return nil }
        return aggregates(forSectionName: shown[index].id)
    }

    /// Takes a delivery into the aggregates — its touched rows as the query sees them, or,
    /// for a resync, the aggregates read again in the delivery's read — before its rows are
    /// reported; ``reportAggregates()`` tells the delegate once they were. A delivery whose
    /// rows cannot be reported announces nothing: the resync that makes up for it reports
    /// the aggregates from what the delegate last heard.
    ///
    /// - Parameter reason: why the delivery resyncs, when it does: the aggregates are then
    ///   read again.
    /// - Returns: false when that read failed: the delegate heard it, and the next delivery
    ///   resyncs rows and aggregates together.
    func takeIntoAggregates(_ touched: [Value: TouchedRow], rebuilding reason: ResyncReason?) -> Bool {
        guard aggregateTracker != nil else { return true }
        guard let reason else {
            aggregateTracker?.apply(touched)
            return true
        }
        do {
            if let rebuilt = try store.fetchAggregates(query) { aggregateTracker?.replace(with: rebuilt) }
            return true
        } catch {
            fail(error, seen: pendingResync?.seen ?? shownNow, reason: reason)
            return false
        }
    }

    /// Tells the delegate the aggregates that changed since it last heard them, and each
    /// one that went out of range.
    func reportAggregates() {
        guard let (change, overflows) = aggregateTracker?.takeChange() else { return }
        if let change { delegate?.controller(self, didChangeAggregates: change) }
        for overflow in overflows { delegate?.controller(self, didFailWith: overflow) }
    }

    /// Starts the aggregates from a fetch: nothing is reported but the aggregates out of
    /// range from the start.
    func startAggregates(_ tracker: AggregateTracker?) {
        aggregateTracker = tracker
        for overflow in tracker?.overflows ?? [] { delegate?.controller(self, didFailWith: overflow) }
    }
}
