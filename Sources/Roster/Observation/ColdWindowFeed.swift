import RosterUpdates

/// What feeds an ``ObservedResults`` whose window opened cold: a ``ResultsController`` in
/// the store queue's domain, holding the window's rows alone (Docs/Windows.md), whose every
/// delivery leaves the window as it stands — its rows, their objects, the counts once known,
/// the aggregates — for the main actor to take.
///
/// The main actor takes only the newest frame, whatever number of deliveries made frames
/// since it last took one (that is how it coalesces), and reports the difference from the
/// frame it showed (``frameChange(from:to:adapter:)``). Memory is the window's: the
/// controller's rows and two frames.
///
/// The controller is touched only under the queue's lock, on whichever thread holds it:
/// hence the unchecked `Sendable`.
final class ColdWindowFeed: ResultsControllerDelegate, @unchecked Sendable {
    /// The window as one delivery left it.
    struct Frame: Sendable {
        var sections: [ListSection<Value, Value>]
        var objects: [Value: Object]
        var counts: ResultsCounts?
        var aggregates: AggregateValues?
        var window: ResultsWindow?
        var request: FetchRequest
        /// What the request displays and whether its updates name what changed.
        var relevance: AttributeRelevance?
        /// The entity the objects are of.
        var entity: Entity
        /// Set when a delivery since the last frame taken was a resync.
        var resync: ResyncReason?
        /// How many deliveries made frames since the last frame taken.
        var deliveries = 1
    }

    let queue: StoreQueue
    /// The entity the window's objects are of (a new request keeps it).
    let entity: Entity
    /// Under the queue's lock only.
    private var controller: ResultsController?
    private var resyncSinceLastFrame: ResyncReason?
    /// Whether a callback of the controller posted a frame since its last delivery ended.
    private var postedByCallback = false
    private let pending = Locked<(frame: Frame?, error: StoreError?)>((nil, nil))
    private let wakeUps: AsyncStream<Void>.Continuation
    /// Yields when a frame or an error waits; ends when the feed is closed.
    let wakes: AsyncStream<Void>

    /// Opens the window cold and returns the first frame.
    init(queue: StoreQueue, request: FetchRequest, window: ResultsWindow) throws(StoreError) {
        self.queue = queue
        (wakes, wakeUps) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        let opened = try queue.withStore { store throws(StoreError) in
            let controller = try Self.openCold(store: store, request: request, window: window)
            return Handover(controller)
        }
        entity = opened.value.query.entity
        try queue.withStore { _ throws(StoreError) in
            adopt(opened.value)
        }
    }

    /// Makes `controller` the one that feeds the frames (under the queue's lock).
    private func adopt(_ controller: ResultsController) {
        controller.delegate = self
        controller.didDeliver = { [weak self] touched in self?.deliveryEnded(touching: touched) }
        self.controller = controller
        postedByCallback = false
    }

    private static func openCold(store: Store, request: FetchRequest, window: ResultsWindow) throws(StoreError) -> ResultsController {
        do {
            let controller = try ResultsController(store: store, request: request)
            try controller.setWindow(window)
            try controller.performFetch()
            return controller
        } catch {
            throw (error as? StoreError) ?? StoreError(.database, "\(error)")
        }
    }

    /// The window as it stands now (reads it under the queue's lock).
    func currentFrame() throws(StoreError) -> Frame {
        try queue.withStore { _ in Handover(makeFrame()) }.value
    }

    /// Takes the newest frame and error left since the last take.
    func take() -> (frame: Frame?, error: StoreError?) {
        pending.withLock { pending in
            defer { pending = (nil, nil) }
            return pending
        }
    }

    /// Shows another window, read next to the one shown (the controller stays cold; nil
    /// loads the whole results).
    func setWindow(_ window: ResultsWindow?) throws(StoreError) {
        try queue.withStore { _ throws(StoreError) in
            do { try controller?.setWindow(window) } catch { throw (error as? StoreError) ?? StoreError(.database, "\(error)") }
            // A window that shows the same rows calls back nothing: its frame says where it is.
            if !postedByCallback { post(makeFrame()) }
            postedByCallback = false
        }
    }

    /// Applies another request by opening the window cold again over its results (a new
    /// controller: a request change would load the whole results), keeping the window, or,
    /// for an anchor the new results lack, the same number of rows from the top.
    func setRequest(_ request: FetchRequest) throws(StoreError) {
        try queue.withStore { store throws(StoreError) in
            guard let old = controller else { return }
            let window = old.window ?? .offset(0, length: 0)
            let replacement: ResultsController
            do throws(StoreError) {
                replacement = try Self.openCold(store: store, request: request, window: window)
            } catch {
                guard error.code == .invalidWindow, case let .anchored(_, before, after) = window else { throw error }
                replacement = try Self.openCold(store: store, request: request, window: .offset(0, length: before + after + 1))
            }
            adopt(replacement)
            post(makeFrame())
        }
    }

    /// Releases the controller, under the queue's lock (the store it observes is not
    /// thread-safe), and ends ``wakes``.
    func close() {
        wakeUps.finish()
        _ = try? queue.withStore { _ in
            controller = nil
            return true
        }
    }

    // MARK: Delegate (under the queue's lock)

    func controllerDidChangeContent(_ controller: ResultsController) { postFromCallback() }
    func controller(_ controller: ResultsController, didChangeCounts counts: ResultsCounts) { postFromCallback() }
    func controller(_ controller: ResultsController, didChangeAggregates change: AggregateChange) { postFromCallback() }
    func controller(_ controller: ResultsController, willResyncBecause reason: ResyncReason) { resyncSinceLastFrame = reason }
    func controller(_ controller: ResultsController, didFailWith error: StoreError) {
        pending.withLock { $0.error = error }
        wakeUps.yield()
    }

    private func postFromCallback() {
        postedByCallback = true
        post(makeFrame())
    }

    /// A delivery that reported nothing may still have changed the values of rows shown
    /// (attributes the request does not display): the frame holds copies of the objects,
    /// so it is made again. Frames whose rows and displayed values are the same publish no
    /// change (``Frame/change(from:adapter:)``).
    private func deliveryEnded(touching touched: [Value: TouchedRow]) {
        defer { postedByCallback = false }
        guard !postedByCallback, let controller else { return }
        if controller.snapshot.contains(where: { $0.items.contains { touched[$0] != nil } }) { post(makeFrame()) }
    }

    private func makeFrame() -> Frame {
        guard let controller else { return Frame(sections: [], objects: [:], request: FetchRequest(entity: entity.name), entity: entity) }
        let sections = controller.snapshot
        var objects: [Value: Object] = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (item, key) in section.items.enumerated() {
                objects[key] = controller.object(at: IndexPath(item: item, section: sectionIndex))
            }
        }
        defer { resyncSinceLastFrame = nil }
        return Frame(sections: sections, objects: objects, counts: controller.counts, aggregates: controller.aggregates,
                     window: controller.window, request: controller.request, relevance: controller.query.attributeRelevance, entity: entity,
                     resync: resyncSinceLastFrame)
    }

    private func post(_ frame: Frame) {
        pending.withLock { pending in
            // A resync stays announced until a frame carrying it is taken.
            var frame = frame
            if frame.resync == nil { frame.resync = pending.frame?.resync }
            frame.deliveries += pending.frame?.deliveries ?? 0
            pending.frame = frame
        }
        wakeUps.yield()
    }

    private struct Handover<Wrapped>: @unchecked Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }
}

extension ColdWindowFeed.Frame {
    /// The change from what `old` showed to what this frame shows, as a ``LiveResults``
    /// change would report it: rows entering and leaving the window are inserts and
    /// deletes, rows whose values differ are updates — of a displayed value, naming what
    /// changed when the request asks, as for every live query
    /// (``QueryChange/describeAttributeChanges(for:rows:)``); nil when nothing shown changed.
    func change(from old: ColdWindowFeed.Frame, adapter: BatchAdapter) -> ResultsChange? {
        var (diffed, _) = QueryChange.diff(from: old.sections, to: sections, resync: resync,
                                           isUpdated: { key in old.objects[key] != objects[key] },
                                           removedRow: { old.objects[$0]?.values })
        // Under one request: another one's objects may read other key paths, in other places.
        if old.request == request, diffed?.describeAttributeChanges(for: relevance, rows: { key in
            (old.objects[key]?.values, objects[key]?.values)
        }) == false {
            diffed = nil
        }
        guard let change = diffed ?? (resync.map { QueryChange(group: ChangeGroup(), resync: $0) }) else { return nil }
        var changed: [Value: Object] = [:], deleted: [Value: Object] = [:]
        for object in change.group.objectChanges {
            if object.type == .delete { deleted[object.item] = old.objects[object.item] } else { changed[object.item] = objects[object.item] }
        }
        let (reloaded, reconfigured) = ResultsSnapshot.updatedItems(of: change.group, by: adapter)
        return ResultsChange(
            group: change.group,
            batch: adapter.batch(for: change.group),
            previousSnapshot: ResultsSnapshot(sections: old.sections),
            snapshot: ResultsSnapshot(sections: sections, reloadedItemIdentifiers: reloaded, reconfiguredItemIdentifiers: reconfigured),
            commitCount: deliveries,
            objects: changed,
            deletedObjects: deleted,
            resync: resync)
    }
}
