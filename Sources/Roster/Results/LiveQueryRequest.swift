/// A live query whose request can change: ``ResultsController`` and ``LiveResults``.
/// Changing the request reports the difference as a change (an animated re-sort or
/// re-filter).
public protocol LiveQueryRequest: AnyObject {
    /// The request whose results the live query shows.
    var request: FetchRequest { get }
    /// Replaces the request (same entity).
    ///
    /// - Throws: ``StoreError`` when the request does not fit; nothing changes then.
    func setRequest(_ request: FetchRequest) throws
}

extension LiveQueryRequest {
    /// Changes the order.
    ///
    /// - Throws: ``StoreError`` when a sort attribute does not exist; nothing changes then.
    public func setSortKeys(_ sortKeys: [SortKey]) throws {
        var request = self.request
        request.sortKeys = sortKeys
        try setRequest(request)
    }

    /// Changes which objects are included.
    ///
    /// - Throws: ``StoreError`` when the predicate does not fit the entity; nothing changes then.
    public func setPredicate(_ predicate: QueryPredicate) throws {
        var request = self.request
        request.predicate = predicate
        try setRequest(request)
    }
}
