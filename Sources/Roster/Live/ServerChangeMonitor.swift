#if PostgreSQL
import Foundation
import Synchronization

/// Listens for a PostgreSQL schema's commit notifications and calls a handler when another
/// client may have committed: how a watching ``StoreQueue`` on a server learns of other
/// clients' commits without polling (see ``StoreQueue/startWatching(safetyPoll:fallbackPoll:)``).
///
/// Each commit that changes a tracked entity sends `NOTIFY` on the schema's channel
/// (``ServerCatalog``). The monitor holds a connection of its own that `LISTEN`s, and calls
/// `onChange` on its own thread, one call at a time, saying whether a notification came
/// (then a commit is known to have happened):
/// - once when it starts (and after each reconnection: whatever was committed meanwhile);
/// - when notifications arrive (several at once make one call);
/// - every `safetyInterval` without any, so that a notification lost with a connection
///   still reaches the handler; the handler's poll reads the commit numbers, which decide.
///
/// When its connection breaks it calls `onChange` (the store's own read then meets the same
/// failure and reports it to the live queries, or catches up), and connects again every
/// `retryInterval` until it can. ``stop()`` ends the thread within 50 ms.
package final class ServerChangeMonitor: Sendable {
    /// What the monitor and its thread share.
    private final class Flags: Sendable {
        let stopped = Atomic<Bool>(false)
    }

    private let flags = Flags()

    /// Starts listening on `channel` of the server at `url`.
    package init(url: String, channel: String, safetyInterval: Duration, retryInterval: Duration, onChange: @escaping @Sendable (_ notified: Bool) -> Void) {
        let flags = self.flags
        // No call after ``stop()``: each is made only while the monitor runs.
        let onChange: @Sendable (Bool) -> Void = { notified in
            if !flags.stopped.load(ordering: .acquiring) { onChange(notified) }
        }
        let safety = Self.milliseconds(max(safetyInterval, .milliseconds(1)))
        let retry = Self.milliseconds(max(retryInterval, .milliseconds(1)))
        let thread = Thread {
            var connection: ServerConnection?
            var sinceCall: Int64 = 0
            while !flags.stopped.load(ordering: .acquiring) {
                if connection == nil {
                    connection = Self.listen(url: url, channel: channel)
                    if connection == nil {
                        Self.sleep(milliseconds: retry, unless: flags)
                        continue
                    }
                    onChange(false)
                    sinceCall = 0
                }
                guard let listening = connection else { continue }
                let slice = Int32(min(50, safety))
                let woke = listening.waitForInput(milliseconds: slice)
                sinceCall += Int64(slice)
                if woke {
                    do {
                        if try listening.drainNotifications() > 0 {
                            onChange(true)
                            sinceCall = 0
                        }
                    } catch {
                        listening.close()
                        connection = nil
                        onChange(false)
                        continue
                    }
                }
                if sinceCall >= safety {
                    onChange(false)
                    sinceCall = 0
                }
            }
            connection?.close()
        }
        thread.name = "Roster.ServerChangeMonitor"
        thread.start()
    }

    deinit { stop() }

    /// Stops listening: the thread ends after any call to `onChange` under way.
    package func stop() {
        flags.stopped.store(true, ordering: .releasing)
    }

    private static func listen(url: String, channel: String) -> ServerConnection? {
        guard let connection = try? ServerConnection(url: url) else { return nil }
        do {
            try connection.execute("LISTEN \(ServerCatalog.Names.quoted(channel))")
            return connection
        } catch {
            connection.close()
            return nil
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private static func sleep(milliseconds: Int64, unless flags: Flags) {
        var left = milliseconds
        while left > 0 && !flags.stopped.load(ordering: .acquiring) {
            let slice = min(left, 50)
            Thread.sleep(forTimeInterval: Double(slice) / 1_000)
            left -= slice
        }
    }
}
#endif
