import Observation
import RosterUpdates

/// A live query a SwiftUI view uses directly: `@Observable`, on the main actor, fed by a
/// ``LiveResults`` under it.
///
/// ```swift
/// struct PostList: View {
///     @State var posts: ObservedResults
///
///     var body: some View {
///         List(posts.sections) { section in
///             Section("\(section.title) (\(section.count))") {
///                 ForEach(section.objects) { post in Text(post["title"]?.text ?? "") }
///             }
///         }
///         .searchable(text: $search)
///         .onChange(of: search) { posts.setPredicate(format: "title CONTAINS[cd] %@", .string(search)) }
///     }
/// }
/// ```
///
/// **Delivery.** Changes are taken on the main actor with the ``DeliveryPolicy`` the type is
/// made with (``DeliveryPolicy/coalescing`` by default): while the main actor is busy,
/// commits wait in the live results' inbox, and the next turn takes all of them as one
/// change, so a busy view re-renders once, never through a backlog.
///
/// **What notifies.** Each property notifies its observers only when its value changed:
/// ``sections``, ``objects`` and ``lastChange`` when a change reached the rows shown (an
/// insert, delete, move or update among them, or a resync); ``counts`` when the whole
/// results' counts changed; ``aggregates`` when an aggregate did; ``window`` when the window
/// moved (an anchored window follows its anchor); ``error`` when an error is set or
/// cleared; ``request`` when the view sets another one. A commit that touches nothing
/// shown notifies nothing; one that changes only counts (rows came or went outside a
/// window) notifies ``counts`` alone.
///
/// **Lazy access.** ``sections`` and ``objects`` are collections over the keys of the last
/// change's ``ResultsSnapshot`` (shared, not copied) that read each object when it is asked
/// for: a view that shows 20 rows of a million reads 20 objects.
///
/// **Requests from the view.** Setting ``request`` (or ``setPredicate(format:_:)``,
/// ``setSortKeys(_:)``) applies it off the main actor and delivers the difference as a
/// change. While one request is being applied, only the latest of those set meanwhile is
/// applied next: fast typing never queues re-fetches. A request that does not fit (an
/// unknown attribute, a half-typed predicate) leaves the results as they were and sets
/// ``error``; the next request the view sets clears it.
///
/// Releasing the object stops its live results: pending commits are dropped with it.
@MainActor
public final class ObservedResults: Observable {
    /// What feeds the object: live results of its own, or a window opened cold.
    enum Source: Sendable {
        case live(LiveResults)
        case cold(ColdWindowFeed)
    }

    private nonisolated let source: Source
    private let registrar = ObservationRegistrar()
    /// Makes the batches of a cold window's changes (a ``LiveResults`` has its own).
    private let adapter = BatchAdapter()
    /// The frame a cold window last published.
    private var shownFrame: ColdWindowFeed.Frame?

    private var storedSections: Sections
    private var storedCounts: ResultsCounts?
    private var storedAggregates: AggregateValues?
    private var storedWindow: ResultsWindow?
    private var storedLastChange: ResultsChange?
    private var storedError: StoreError?
    private var storedRequest: FetchRequest
    /// Where the error in ``error`` came from, so that only the same source's success clears it.
    private var errorSource: ErrorSource?
    /// The latest request the view set that no one has applied yet.
    private var pendingRequest: FetchRequest?
    /// Whether a request is being applied now.
    private(set) var isApplyingRequest = false
    /// How many requests were applied (bound and fetched); those set while another was
    /// applied, but the last, never are.
    private(set) var appliedRequestCount = 0

    private enum ErrorSource { case delivery, request, window }

    /// Fetches the results and starts taking their changes on the main actor.
    ///
    /// - Parameters:
    ///   - queue: the store queue the results come from.
    ///   - request: what the results show.
    ///   - window: a window over the results (``ResultsWindow``); nil shows every row.
    ///   - policy: how changes coalesce while the main actor is busy.
    /// - Throws: ``StoreError`` when the request or the window does not fit the store;
    ///   nothing is observed then.
    public convenience init(queue: StoreQueue, request: FetchRequest, window: ResultsWindow? = nil, policy: DeliveryPolicy = .coalescing) throws {
        let live = try LiveResults(queue: queue, request: request, policy: policy)
        try self.init(liveResults: live, window: window)
    }

    /// Observes live results resumed from a token (``ResumeToken``): what changed since it
    /// was saved, by this process or any other, is the first change observed.
    ///
    /// - Throws: ``StoreError`` as ``LiveResults/init(queue:request:resumingFrom:policy:adapter:)`` does.
    public convenience init(queue: StoreQueue, request: FetchRequest, resumingFrom token: ResumeToken, policy: DeliveryPolicy = .coalescing) throws {
        try self.init(liveResults: LiveResults(queue: queue, request: request, resumingFrom: token, policy: policy), window: nil)
    }

    /// Shows a window opened cold: only its rows are read and held — O(window) memory,
    /// however many rows the results have — kept current by a ``ResultsController`` in
    /// the queue's domain (Docs/Windows.md) whose every delivery leaves the window as it
    /// stands for the main actor, which takes the newest and reports the difference from
    /// what it showed. ``counts`` is nil (a cold window does not count the results); a new
    /// request opens the window cold again over its results.
    ///
    /// - Throws: ``StoreError`` when the request or the window does not fit the store.
    public convenience init(queue: StoreQueue, request: FetchRequest, coldWindow window: ResultsWindow) throws {
        try window.validate()
        let feed = try ColdWindowFeed(queue: queue, request: request, window: window)
        try self.init(feed: feed, frame: feed.currentFrame())
    }

    private init(liveResults live: LiveResults, window: ResultsWindow?) throws {
        source = .live(live)
        if let window {
            try live.setWindow(window)
            // The window's rows are what the view first sees.
            _ = try live.takeChange()
        }
        storedSections = Sections(snapshot: live.snapshot, reader: .live(live))
        storedCounts = live.counts
        storedAggregates = live.aggregates
        storedWindow = live.window
        storedRequest = live.request
        startDeliveries()
    }

    private init(feed: ColdWindowFeed, frame: ColdWindowFeed.Frame) {
        source = .cold(feed)
        shownFrame = frame
        storedSections = Sections(snapshot: ResultsSnapshot(sections: frame.sections), reader: .frame(frame))
        storedCounts = frame.counts
        storedAggregates = frame.aggregates
        storedWindow = frame.window
        storedRequest = frame.request
        startDeliveries()
    }

    deinit {
        // The delivery loop ends with the live results or the feed.
        switch source {
        case let .live(live): live.close()
        case let .cold(feed): feed.close()
        }
    }

    /// The live results under this object (nil for a window opened cold): what it shows is
    /// what they last delivered. Take no changes from them yourself: this object takes them all.
    public nonisolated var liveResults: LiveResults? {
        if case let .live(live) = source { live } else { nil }
    }

    // MARK: What the view reads

    /// The sections shown (the window's rows, with a window), as of the last change.
    public var sections: Sections {
        registrar.access(self, keyPath: \.sections)
        return storedSections
    }

    /// Every object shown (the window's, with a window), in order, as of the last change.
    public var objects: Objects {
        registrar.access(self, keyPath: \.sections)
        return storedSections.allObjects
    }

    /// The whole results' counts, in total and by section, whatever a window shows; nil for
    /// a window opened cold (``init(queue:request:coldWindow:)``), which does not count them.
    public var counts: ResultsCounts? {
        registrar.access(self, keyPath: \.counts)
        return storedCounts
    }

    /// The request's aggregates over the whole results; nil without aggregates
    /// (``FetchRequest/aggregates``).
    public var aggregates: AggregateValues? {
        registrar.access(self, keyPath: \.aggregates)
        return storedAggregates
    }

    /// The aggregates of the named section of the whole results; nil when there is no such
    /// section or the request has none. Notifies as ``aggregates`` does.
    public func aggregates(forSectionName name: Value) -> AggregateValues? {
        registrar.access(self, keyPath: \.aggregates)
        return liveResults?.aggregates(forSectionName: name)
    }

    /// The last change that reached the rows shown, with the snapshots before and after it
    /// (for animations and diffable data sources); nil until one arrives. Changes of counts
    /// or aggregates alone do not replace it.
    public var lastChange: ResultsChange? {
        registrar.access(self, keyPath: \.lastChange)
        return storedLastChange
    }

    /// The last error, until what failed succeeds: a delivery that failed (cleared by the
    /// next change taken), a request that did not fit (cleared when the view sets another,
    /// set again if that one does not fit either), a window that did not fit (cleared by the
    /// next window that does). The results stay as they were while it is set.
    public var error: StoreError? {
        registrar.access(self, keyPath: \.error)
        return storedError
    }

    // MARK: What the view changes

    /// The request: what the view asked for last. Setting it applies it off the main
    /// actor; the difference arrives as a change. See the type's discussion.
    public var request: FetchRequest {
        get {
            registrar.access(self, keyPath: \.request)
            return storedRequest
        }
        set {
            guard newValue != storedRequest else { return }
            registrar.withMutation(of: self, keyPath: \.request) { storedRequest = newValue }
            // The new request supersedes the one that did not fit.
            clearError(from: .request)
            pendingRequest = newValue
            applyPendingRequests()
        }
    }

    /// Filters the results by a predicate in NSPredicate's format, as a search field does
    /// at each keystroke. A format that does not parse (a half-typed one) sets ``error``
    /// and leaves the request and the results as they were.
    public func setPredicate(format: String, _ arguments: Value...) {
        do {
            var request = storedRequest
            request.predicate = try QueryPredicate(format: format, arguments: arguments)
            self.request = request
        } catch let error as QueryPredicateError {
            setError(.predicate(error), from: .request)
        } catch {
            setError(StoreError(.predicate, "\(error)"), from: .request)
        }
    }

    /// Orders the results by other sort keys (a header tap that flips the order).
    public func setSortKeys(_ sortKeys: [SortKey]) {
        request.sortKeys = sortKeys
    }

    /// The window shown, with its anchor as it stands; nil: every row. Setting it shows
    /// another window (or every row, with nil); a window that does not fit sets ``error``
    /// and leaves the one shown.
    public var window: ResultsWindow? {
        get {
            registrar.access(self, keyPath: \.window)
            return storedWindow
        }
        set {
            do {
                switch source {
                case let .live(live): try live.setWindow(newValue)
                case let .cold(feed): try feed.setWindow(newValue)
                }
                clearError(from: .window)
                takeChanges()
                publishLiveState()
            } catch {
                setError(storeError(error), from: .window)
            }
        }
    }

    /// Takes the changes pending now, without waiting for the next turn of the delivery
    /// loop: after a write on the main actor, a view that wants its results at once.
    public func refresh() {
        takeChanges()
    }

    // MARK: Taking changes

    private func startDeliveries() {
        switch source {
        case let .live(live):
            Task { [weak self] in
                while !Task.isCancelled {
                    let change: ResultsChange?
                    do {
                        // Taken on the main actor: the results under ``sections`` move only when the
                        // change that says so is published.
                        change = try await live.waitForChange(isolation: MainActor.shared)
                    } catch {
                        guard let self else { return }
                        self.setError(storeError(error), from: .delivery)
                        continue
                    }
                    guard let change, let self else { return }
                    self.publish(change)
                }
            }
        case let .cold(feed):
            Task { [weak self] in
                for await _ in feed.wakes {
                    guard let self else { return }
                    self.takeColdFrame(from: feed)
                }
            }
        }
    }

    private func takeChanges() {
        switch source {
        case let .live(live):
            do {
                while let change = try live.takePendingChange() { publish(change) }
            } catch {
                setError(storeError(error), from: .delivery)
            }
        case let .cold(feed):
            takeColdFrame(from: feed)
        }
    }

    private func publish(_ change: ResultsChange) {
        guard case let .live(live) = source else { return }
        if !change.group.isEmpty || change.resync != nil {
            registrar.withMutation(of: self, keyPath: \.sections) {
                storedSections = Sections(snapshot: change.snapshot, reader: .live(live))
            }
            registrar.withMutation(of: self, keyPath: \.lastChange) { storedLastChange = change }
        }
        publish(counts: live.counts, window: live.window)
        // Every change: a new request may keep no aggregates, or others, and carries none.
        publish(aggregates: live.aggregates)
        clearError(from: .delivery)
    }

    /// Publishes the newest frame of a cold window: the difference from the frame shown.
    private func takeColdFrame(from feed: ColdWindowFeed) {
        let (frame, error) = feed.take()
        if let error { setError(error, from: .delivery) }
        guard let frame, let shown = shownFrame else { return }
        shownFrame = frame
        if let change = frame.change(from: shown, adapter: adapter) {
            registrar.withMutation(of: self, keyPath: \.sections) {
                storedSections = Sections(snapshot: change.snapshot, reader: .frame(frame))
            }
            registrar.withMutation(of: self, keyPath: \.lastChange) { storedLastChange = change }
        } else if frame.objects != shown.objects {
            // Same rows, same values: only the objects' identity of the frame moves on.
            storedSections = Sections(snapshot: ResultsSnapshot(sections: frame.sections), reader: .frame(frame))
        }
        publish(counts: frame.counts, window: frame.window)
        publish(aggregates: frame.aggregates)
        if error == nil { clearError(from: .delivery) }
    }

    /// Publishes the live results' counts, window and aggregates: after a window or a
    /// request that shows the same rows, which makes no change to take, they may differ.
    private func publishLiveState() {
        guard case let .live(live) = source else { return }
        publish(counts: live.counts, window: live.window)
        publish(aggregates: live.aggregates)
    }

    private func publish(counts: ResultsCounts?, window: ResultsWindow?) {
        if counts != storedCounts { registrar.withMutation(of: self, keyPath: \.counts) { storedCounts = counts } }
        if window != storedWindow { registrar.withMutation(of: self, keyPath: \.window) { storedWindow = window } }
    }

    private func publish(aggregates: AggregateValues?) {
        if aggregates != storedAggregates { registrar.withMutation(of: self, keyPath: \.aggregates) { storedAggregates = aggregates } }
    }

    // MARK: Requests

    /// Applies the latest request set, off the main actor, then the latest set meanwhile,
    /// until none waits: the requests set while one was applied are dropped but the last.
    private func applyPendingRequests() {
        guard !isApplyingRequest else { return }
        isApplyingRequest = true
        let source = source
        Task { [weak self] in
            while let request = self?.takePendingRequest() {
                self?.appliedRequestCount += 1
                let failure = await Self.apply(request, to: source)
                guard let self else { return }
                if let failure {
                    // Only the latest request's failure is the view's: a newer one waits.
                    if self.pendingRequest == nil { self.setError(failure, from: .request) }
                } else {
                    self.clearError(from: .request)
                    self.takeChanges()
                    self.publishLiveState()
                }
            }
        }
    }

    private func takePendingRequest() -> FetchRequest? {
        guard let request = pendingRequest else {
            isApplyingRequest = false
            return nil
        }
        pendingRequest = nil
        return request
    }

    /// Binds and fetches the request on a thread of the global executor, not the main actor.
    private nonisolated static func apply(_ request: FetchRequest, to source: Source) async -> StoreError? {
        await Task.detached {
            do {
                switch source {
                case let .live(live): try live.setRequest(request)
                case let .cold(feed): try feed.setRequest(request)
                }
                return nil
            } catch {
                return storeError(error)
            }
        }.value
    }

    // MARK: Errors

    private func setError(_ error: StoreError, from source: ErrorSource) {
        errorSource = source
        guard error != storedError else { return }
        registrar.withMutation(of: self, keyPath: \.error) { storedError = error }
    }

    private func clearError(from source: ErrorSource) {
        guard errorSource == source, storedError != nil else { return }
        errorSource = nil
        registrar.withMutation(of: self, keyPath: \.error) { storedError = nil }
    }
}

/// An error thrown by Roster's public API, which throws ``StoreError`` alone, as such.
private func storeError(_ error: any Error) -> StoreError {
    (error as? StoreError) ?? StoreError(.database, "\(error)")
}
