
/// Where commits leave their news for one ``LiveResults``, without waiting for it.
///
/// The store calls ``storeDidCommit(_:)`` on the writer's thread, under the queue's lock:
/// it appends the touched rows and wakes a waiting consumer, and returns at once. The
/// consumer takes everything pending when it is ready, which is what coalesces commits.
final class ChangeInbox: StoreObserver, Sendable {
    private let state: Locked<State>

    private struct State {
        /// The entity the results are bound to (extended with their key paths, if any):
        /// what the touched rows are read as.
        var entity: Entity
        var steps: [ResultsStep] = []
        /// The steps the consumer took and is applying: until it settles them, what it
        /// holds is older than they are (``rowsBefore(_:attributeCount:)``).
        var inFlight: [ResultsStep] = []
        /// The change-log position of the results the consumer holds: a commit at or before
        /// it is in them, whatever step still names it.
        var settledThrough: Int64 = 0
        /// The change-log position of the newest delivery, whether it posted a step or not.
        var latestThrough: Int64 = 0
        /// How many of `steps` are commits (for statistics).
        var commits = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var isClosed = false
        /// The last delivery failure not yet taken by the consumer.
        var failure: StoreError?
    }

    init(entity: Entity) {
        state = Locked(State(entity: entity))
    }

    var observedEntityNames: [String] { state.withLock { $0.entity.observedNames } }

    /// Reads the touched rows as the results bound to `entity` see them, from the next
    /// delivery on; set under the store's lock with the re-fetch of a new request.
    func bind(to entity: Entity) {
        state.withLock { $0.entity = entity }
    }

    func storeDidCommit(_ changes: CommittedChanges, in store: Store) {
        let entity = state.withLock { state in
            state.latestThrough = max(state.latestThrough, changes.through)
            return state.entity
        }
        // A pruned log or a changed schema cannot say which keys changed, nor can tracking
        // that started after the fetch: the consumer re-fetches (and reports exactly the
        // objects whose values differ).
        if let reason = changes.resync ?? (changes.mustReread ? .schemaChanged : nil) {
            post(.resync(reason), isCommit: true)
            return
        }
        let touched: [Value: TouchedRow]
        do {
            touched = try store.touchedRows(of: entity, in: changes).filter(\.value.isChanged)
        } catch {
            // The rows could not be read: the consumer hears why, and re-fetches.
            storeDidFailToDeliver(error, mustResync: true)
            return
        }
        // Keys written and written back are left out: their rows are what the results hold.
        if !touched.isEmpty { post(.touched(touched, through: changes.through), isCommit: true) }
    }

    /// A delivery failed: the consumer hears the error when it next takes a change.
    /// Nothing was consumed unless `mustResync`, and then a re-fetch is queued.
    func storeDidFailToDeliver(_ error: StoreError, mustResync: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isClosed else { return [] }
            state.failure = error
            // Commits went by unread: once it can, the consumer re-fetches.
            if mustResync, !state.steps.contains(where: { if case .resync = $0 { true } else { false } }) {
                state.steps.append(.resync(.schemaChanged))
            }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Removes and returns the last delivery failure, if any.
    func takeFailure() -> StoreError? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Adds a step and wakes the consumer.
    func post(_ step: ResultsStep, isCommit: Bool = false) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isClosed else { return [] }
            state.steps.append(step)
            if isCommit { state.commits += 1 }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Puts steps taken by ``take(all:)`` back in front of any that arrived since, when
    /// the consumer could not apply them.
    func putBack(_ steps: [ResultsStep], commits: Int) {
        state.withLock { state in
            state.inFlight = []
            state.steps.insert(contentsOf: steps, at: 0)
            state.commits += commits
        }
    }

    /// Removes the last pending step if it is `step` (user edits whose write failed).
    func retract(_ step: ResultsStep) {
        state.withLock { state in
            if case let .userEdits(edits)? = state.steps.last, case let .userEdits(retracted) = step, edits == retracted {
                state.steps.removeLast()
            }
        }
    }

    /// Removes and returns every pending step (all of them, or just the first when not
    /// coalescing), with how many commits they hold.
    func take(all: Bool) -> (steps: [ResultsStep], commits: Int) {
        state.withLock { state in
            guard !state.steps.isEmpty else { return ([], 0) }
            if all || state.steps.count == 1 {
                defer { state.steps = []; state.commits = 0 }
                state.inFlight += state.steps
                return (state.steps, state.commits)
            }
            // One commit at a time; user edits and request changes travel with the step after them.
            var taken: [ResultsStep] = []
            var commits = 0
            while !state.steps.isEmpty {
                let step = state.steps.removeFirst()
                taken.append(step)
                if case .userEdits = step { continue }
                if case .touched = step { commits = 1 }
                break
            }
            state.commits -= commits
            state.inFlight += taken
            return (taken, commits)
        }
    }

    /// The consumer applied the steps it took: what it holds is as of them, at `position`.
    func settle(through position: Int64) {
        state.withLock { state in
            state.inFlight = []
            state.settledThrough = max(state.settledThrough, position)
        }
    }

    /// Every key the steps the consumer has not applied touched, with its row before the
    /// first of them (nil: no row then), as ``rowsBefore(_:attributeCount:)`` gives them.
    /// O(the steps' rows).
    func rowsBeforeAll(attributeCount: Int) -> [Value: [Value]?] {
        state.withLock { state in
            var found: [Value: [Value]?] = [:]
            for step in state.inFlight + state.steps {
                switch step {
                case let .touched(rows, through):
                    guard through > state.settledThrough else { continue }
                    for (key, row) in rows where found.index(forKey: key) == nil { found[key] = row.fitted(to: attributeCount).before }
                case .resync:
                    return found
                case .replace, .userEdits, .window:
                    continue
                }
            }
            return found
        }
    }

    /// The rows with these keys as the consumer holds them, for those that the steps it
    /// has not applied (taken or pending) touched: each key's row before the first of them
    /// (nil: the key had no row then). Keys they did not touch are left out: the consumer's
    /// row is the store's. A resync among the steps stops the search: what it stands for
    /// says no keys.
    func rowsBefore(_ keys: [Value], attributeCount: Int) -> [Value: [Value]?] {
        state.withLock { state in
            var found: [Value: [Value]?] = [:]
            var wanted = Set(keys)
            for step in state.inFlight + state.steps {
                guard !wanted.isEmpty else { break }
                switch step {
                case let .touched(rows, through):
                    // A commit the consumer's results already hold (a re-fetch read it).
                    guard through > state.settledThrough else { continue }
                    // Whichever is smaller: the step's rows or the keys still wanted.
                    if rows.count < wanted.count {
                        for (key, row) in rows where wanted.remove(key) != nil { found[key] = row.fitted(to: attributeCount).before }
                    } else {
                        for key in wanted {
                            guard let row = rows[key] else { continue }
                            found[key] = row.fitted(to: attributeCount).before
                            wanted.remove(key)
                        }
                    }
                case .resync:
                    return found
                case .replace, .userEdits, .window:
                    continue
                }
            }
            return found
        }
    }

    /// The newest delivery's position when no step waits: what a consumer that took every
    /// change holds; nil while steps wait.
    var positionWhenTaken: Int64? {
        state.withLock { $0.steps.isEmpty ? $0.latestThrough : nil }
    }

    /// Whether steps are waiting.
    var hasPending: Bool { state.withLock { !$0.steps.isEmpty } }

    /// Waits until a step is pending, the inbox is closed, or the task is cancelled.
    func waitForSteps() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if !state.steps.isEmpty || state.failure != nil || state.isClosed || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Stops accepting steps and wakes every waiter.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isClosed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }
}
