import Foundation

/// Loads content for list rows by object key, in the background, and hands each finished
/// result to the object's *current* index path — or drops it if the object left the list
/// or the screen.
///
/// A row that starts loading an image for the object at index path P must not paint that
/// image on P when it arrives: meanwhile objects may have been inserted above, moved or
/// deleted, and the cell reused for another object. `ContentLoader` keys every load by the
/// object's identifier and looks the index path up only when the result arrives, on the main
/// actor, in the layout it holds then. It starts loads for rows that come on screen, at most
/// ``maxConcurrentLoads`` at once (the rest wait in top-to-bottom order), cancels the loads of
/// objects that scroll away, are deleted or are updated, and never delivers a cancelled load's
/// result, whether or not the load itself noticed the cancellation.
///
/// ```swift
/// let loader = ContentLoader<Photo.ID, Thumbnail>(maxConcurrentLoads: 4, cacheCapacity: 200) { id in
///     try await thumbnails.render(id)    // runs off the main actor; cancellable
/// }
/// loader.onLoaded = { id, thumbnail, indexPath in
///     (tableView.cellForRow(at: indexPath) as? PhotoCell)?.show(thumbnail)
/// }
/// loader.setLayout(controller.sections)
///
/// // When configuring a cell: cached content now, or a placeholder until `onLoaded`.
/// cell.show(loader.content(for: id) ?? .placeholder)
/// // After scrolling:
/// loader.setVisible(tableView.indexPathsForVisibleRows ?? [])
/// // In `controllerDidChangeContent`, with the group of callbacks and the new sections:
/// loader.apply(group, newLayout: controller.sections)
/// ```
///
/// Every callback (``onLoaded``, ``onFailed``, ``onActivity``) runs on the main actor once
/// the loader's state is consistent, and may call back into the loader.
@MainActor
public final class ContentLoader<ItemID: Hashable & Sendable, Content: Sendable> {
    /// Produces the content of one object; called off the main actor, inside a task that the
    /// loader cancels when the content is no longer wanted (`Task.isCancelled` turns true and
    /// `Task.sleep` throws `CancellationError`).
    public typealias Load = @Sendable (ItemID) async throws -> Content

    /// Why the loader cancelled a load.
    public enum CancellationReason: Hashable, Sendable {
        /// The object's row left the visible rows.
        case scrolledAway
        /// The object left the list.
        case deleted
        /// The object's content was invalidated (an `update` event or ``invalidate(_:)``); a
        /// new load starts if the object is visible.
        case invalidated
    }

    /// One step of the loader's work, reported to ``onActivity``: a trace for logs and tests.
    public enum Activity: Hashable, Sendable {
        /// A load started for the object.
        case started(ItemID)
        /// The object's load was cancelled; its result will never be delivered.
        case cancelled(ItemID, CancellationReason)
        /// The object's content went to ``onLoaded`` for its row at this index path.
        case delivered(ItemID, IndexPath)
        /// The object's load failed and ``onFailed`` heard it for its row at this index path.
        case failed(ItemID, IndexPath)
        /// A load for the object returned after it was cancelled or superseded; what it
        /// produced (content or error) was dropped.
        case discarded(ItemID)
    }

    /// The most loads that run at once.
    public let maxConcurrentLoads: Int

    /// The most objects whose content the cache keeps; the least recently used goes first.
    public var cacheCapacity: Int { cache.capacity }

    /// Hears each finished load of an object that is still in the list and visible, with its
    /// content and its index path at that moment (never the path where the load started).
    public var onLoaded: ((ItemID, Content, IndexPath) -> Void)?

    /// Hears each failed load of an object that is still in the list and visible, with the
    /// error and its index path at that moment. The object is not loaded again until it
    /// scrolls back into view or is invalidated. Cancelled loads are never reported here.
    public var onFailed: ((ItemID, any Error, IndexPath) -> Void)?

    /// Hears every step of the loader's work: starts, cancellations, deliveries, failures and
    /// discarded results.
    public var onActivity: ((Activity) -> Void)?

    /// The objects on the visible rows, top to bottom.
    public internal(set) var visibleIDs: [ItemID] = []

    /// The closure that produces content.
    let load: Load
    /// The item identifiers of each section of the current layout.
    var sections: [[ItemID]] = []
    /// Where each object of the current layout is.
    var pathByID: [ItemID: IndexPath] = [:]
    /// The visible rows as last set, ascending, without duplicates; some may lie past the
    /// end of the list, and show objects again when the list grows.
    var visiblePaths: [IndexPath] = []
    /// The members of ``visibleIDs``.
    var visibleSet: Set<ItemID> = []
    /// The loads under way that may still deliver, by object.
    var running: [ItemID: RunningLoad] = [:]
    /// Visible objects that need no load: content delivered or cached when they came into
    /// view, or a failure reported.
    var settled: Set<ItemID> = []
    /// Finished content by object.
    var cache: LRUCache<ItemID, Content>
    /// The ticket of the last load started; each load gets the next one.
    var lastTicket: UInt64 = 0
    /// Callbacks waiting until the state is consistent.
    var outbox: [Notification] = []
    /// Whether the outbox is being delivered (a callback that calls back in must not
    /// deliver it out of order).
    var isDelivering = false

    /// A load under way: the task, and the ticket that tells its result from a superseded one.
    struct RunningLoad {
        var ticket: UInt64
        var task: Task<Void, Never>
    }

    /// A callback waiting in the outbox.
    enum Notification {
        /// Report a step.
        case activity(Activity)
        /// Hand a finished load's outcome to its object's row, if the object is still on screen.
        case outcome(ItemID, Result<Content, any Error>)
    }

    /// Creates a loader with an empty layout and no visible rows.
    ///
    /// - Parameters:
    ///   - maxConcurrentLoads: The most loads that run at once; at least 1.
    ///   - cacheCapacity: The most objects whose content is cached; at least 1, and best
    ///     no fewer than the rows on screen.
    ///   - load: Produces an object's content; called off the main actor, and cancelled when
    ///     the content is no longer wanted.
    public init(maxConcurrentLoads: Int = 4, cacheCapacity: Int = 100, load: @escaping Load) {
        precondition(maxConcurrentLoads >= 1, "ContentLoader needs maxConcurrentLoads of at least 1, not \(maxConcurrentLoads)")
        precondition(cacheCapacity >= 1, "ContentLoader needs a cacheCapacity of at least 1, not \(cacheCapacity)")
        self.maxConcurrentLoads = maxConcurrentLoads
        self.cache = LRUCache(capacity: cacheCapacity)
        self.load = load
    }

    /// Cancels the loads under way: nothing can hear their results any more.
    isolated deinit {
        for load in running.values {
            load.task.cancel()
        }
    }

    /// The cached content of an object, which becomes the most recently used; nil when it
    /// was never loaded, was evicted, or was invalidated.
    ///
    /// - Complexity: O(1), expected.
    public func content(for id: ItemID) -> Content? {
        cache.value(for: id)
    }

    /// The objects whose load is under way.
    public var loadingIDs: Set<ItemID> {
        Set(running.keys)
    }

    /// Visible objects that wait for a free load slot, in the order their loads will start.
    public var queuedIDs: [ItemID] {
        visibleIDs.filter { running[$0] == nil && !settled.contains($0) }
    }

    /// An object's index path in the current layout, or nil when it is not in the list.
    public func indexPath(of id: ItemID) -> IndexPath? {
        pathByID[id]
    }

    /// Forgets an object's cached content and cancels its load; loads it again if it is visible.
    ///
    /// ``apply(_:newLayout:visible:)`` does this for every `update` event.
    ///
    /// - Parameter id: The object whose content is stale.
    public func invalidate(_ id: ItemID) {
        invalidateContent(of: id)
        startQueuedLoads()
        deliverNotifications()
    }

    /// Drops the object's cached content and load, and lets it load again.
    func invalidateContent(of id: ItemID) {
        cache.removeValue(for: id)
        settled.remove(id)
        cancelLoad(of: id, reason: .invalidated)
    }
}
