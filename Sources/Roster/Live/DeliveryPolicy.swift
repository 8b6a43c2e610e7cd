/// How ``LiveResults`` hands changes to a consumer that may be slower than the writers.
///
/// ```swift
/// // A list that animates at most 30 times a second, however fast a sync writes:
/// let feed = try LiveResults(queue: queue, request: request, policy: .coalescing(minimumInterval: .milliseconds(33)))
/// ```
public struct DeliveryPolicy: Sendable, Hashable {
    /// When true (the default), each change covers every commit since the last change the
    /// consumer took: at most one change per turn of the consumer, never a backlog. When
    /// false, each commit is its own change, in order, however far behind the consumer is.
    public var coalesces: Bool
    /// The least time between two changes: after taking one, the consumer waits this long
    /// before the next, letting more commits coalesce. Zero (the default) never waits.
    public var minimumInterval: Duration

    /// Creates a policy.
    public init(coalesces: Bool = true, minimumInterval: Duration = .zero) {
        self.coalesces = coalesces
        self.minimumInterval = minimumInterval
    }

    /// Coalesce everything pending into one change, with no minimum interval.
    public static let coalescing = DeliveryPolicy()
    /// Coalesce, and leave at least `minimumInterval` between two changes.
    public static func coalescing(minimumInterval: Duration) -> DeliveryPolicy {
        DeliveryPolicy(coalesces: true, minimumInterval: minimumInterval)
    }
    /// One change per commit, in order.
    public static let everyCommit = DeliveryPolicy(coalesces: false)
}
