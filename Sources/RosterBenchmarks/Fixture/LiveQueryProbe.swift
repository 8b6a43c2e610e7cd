import Roster

/// The delegate of a measured live query: it stamps the callbacks and builds the batch a
/// list view would apply, inside `controllerDidChangeContent`, as an app would.
final class LiveQueryProbe: ResultsControllerDelegate {
    /// When `controllerWillChangeContent` was called.
    private(set) var willChange: UInt64?
    /// When `controllerDidChangeContent` returned from building the batch.
    private(set) var batchReady: UInt64?
    /// The change group reported, if any, since the last ``reset()``.
    private(set) var group: ChangeGroup<Value, Value>?
    /// The batch made of it.
    private(set) var batch: BatchUpdate?
    /// How many change callbacks (sections and objects) arrived.
    private(set) var callbacks = 0

    /// Forgets the last change, before the next write.
    func reset() {
        willChange = nil
        batchReady = nil
        group = nil
        batch = nil
        callbacks = 0
    }

    func controllerWillChangeContent(_ controller: ResultsController) {
        willChange = MonotonicClock.now()
    }

    func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {
        callbacks += 1
    }

    func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
        callbacks += 1
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        group = controller.lastChange
        batch = controller.lastChange.map { BatchAdapter().batch(for: $0) }
        batchReady = MonotonicClock.now()
    }
}

/// The stamps of one write through the store, with live queries listening.
///
/// - `start`: just before the store call (`insert`, `update`, `delete`, `execute`, `write`).
/// - `committed`: when SQLite's `COMMIT` was done (``CommitClock``); the write's own cost
///   is `start → committed`: `BEGIN IMMEDIATE`, the statements with their change-log
///   triggers, `COMMIT` (and a WAL checkpoint when one falls due).
/// - `willChange`: the probe's `controllerWillChangeContent`; `committed → willChange` is
///   the store reading the change log and the touched rows, and the live query updating
///   its results and computing the change group.
/// - `batchReady`: the end of the probe's `controllerDidChangeContent`, after every
///   callback and `BatchAdapter().batch(for:)`; `committed → batchReady` is "commit → batch ready".
/// - `returned`: the store call returned (other live queries served, the log pruned if due).
/// - `committedCPU`, `returnedCPU`: the writing thread's CPU time at those two moments, when
///   the commit was made on the thread that measured (``MonotonicClock/threadCPU()``).
struct WriteStamps {
    var start: UInt64
    var committed: UInt64?
    var willChange: UInt64?
    var batchReady: UInt64?
    var returned: UInt64
    var committedCPU: UInt64?
    var returnedCPU: UInt64

    /// `start → committed`.
    var write: UInt64? { committed.map { MonotonicClock.elapsed(from: start, to: $0) } }
    /// `committed → batchReady`.
    var commitToBatch: UInt64? {
        guard let committed, let batchReady else { return nil }
        return MonotonicClock.elapsed(from: committed, to: batchReady)
    }
    /// `committed → willChange`.
    var commitToWillChange: UInt64? {
        guard let committed, let willChange else { return nil }
        return MonotonicClock.elapsed(from: committed, to: willChange)
    }
    /// `committed → returned`: everything the store did after its commit.
    var afterCommit: UInt64? { committed.map { MonotonicClock.elapsed(from: $0, to: returned) } }
    /// The CPU the writing thread spent from its commit to the store call's return: the part
    /// of ``afterCommit`` that is the store's own work, not time the host gave to others.
    var afterCommitCPU: UInt64? { committedCPU.map { MonotonicClock.elapsed(from: $0, to: returnedCPU) } }

    /// Runs one write and stamps it; `probe` is the live query whose callbacks are stamped.
    static func measure(probe: LiveQueryProbe?, _ write: () throws -> Void) throws -> WriteStamps {
        probe?.reset()
        CommitClock.arm()
        let startCPU = MonotonicClock.threadCPU()
        let start = MonotonicClock.now()
        try write()
        let returned = MonotonicClock.now()
        let returnedCPU = MonotonicClock.threadCPU()
        // A commit made on another thread has a CPU stamp of that thread's clock: not ours.
        let committedCPU = CommitClock.firstCommitThreadCPUSinceArm.flatMap { (startCPU...returnedCPU).contains($0) ? $0 : nil }
        return WriteStamps(start: start, committed: CommitClock.firstCommitSinceArm,
                           willChange: probe?.willChange, batchReady: probe?.batchReady, returned: returned,
                           committedCPU: committedCPU, returnedCPU: returnedCPU)
    }
}
