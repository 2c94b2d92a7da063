import LockstepCore
import OrderedCollections
import Synchronization

/// Announces accepted changes to everyone listening to a bucket: streaming connections,
/// long-polling HTTP requests, and (on PostgreSQL) the other server nodes.
///
/// Subscribers must not block: a connection queues what it receives and drains it on its
/// own task, so one slow reader never holds up the rest.
public final class ChangeHub: Sendable {
    public typealias Subscriber = @Sendable (ChangeEvent) -> Void

    public struct Subscription: Sendable, Hashable {
        let scope: BucketScope
        let id: Int
    }

    private struct State {
        var nextID = 0
        /// Ordered, so that a delivery takes the bucket's subscribers as an array it shares
        /// (``OrderedDictionary/values``), without copying them.
        var subscribers: [BucketScope: OrderedDictionary<Int, Subscriber>] = [:]
    }

    private let state = Mutex(State())
    private let forwarders = Mutex<[@Sendable (ChangeEvent) -> Void]>([])
    private let commitObservers = Mutex<[@Sendable (_ appID: String, _ bucket: String?) -> Void]>([])

    public init() {}

    public func subscribe(_ scope: BucketScope, _ subscriber: @escaping Subscriber) -> Subscription {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[scope, default: [:]][state.nextID] = subscriber
            return Subscription(scope: scope, id: state.nextID)
        }
    }

    public func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in
            state.subscribers[subscription.scope]?.removeValue(forKey: subscription.id)
            if state.subscribers[subscription.scope]?.isEmpty == true { state.subscribers[subscription.scope] = nil }
        }
    }

    /// How many subscribers listen to a bucket.
    public func subscriberCount(_ scope: BucketScope) -> Int {
        state.withLock { $0.subscribers[scope]?.count ?? 0 }
    }

    /// Announces a change made on this node: to local subscribers and to every forwarder
    /// (which tells other nodes).
    public func publish(_ event: ChangeEvent) {
        deliverLocally(event)
        for forward in forwarders.withLock({ $0 }) { forward(event) }
        committed(appID: event.scope.appID, bucket: event.scope.bucket)
    }

    /// Tells the commit observers that an app took a change: this node's (from ``publish(_:)``),
    /// or another node's (the PostgreSQL relay calls this for every change it hears of, also
    /// those of buckets nobody here listens to; `bucket` is `nil` when the notice did not say).
    public func committed(appID: String, bucket: String?) {
        for observe in commitObservers.withLock({ $0 }) { observe(appID, bucket) }
    }

    /// Adds a hook told of every change to any bucket of any app, on any node, without the
    /// change itself: the console's live overview counts them so, with no subscription per
    /// bucket. Like subscribers, it must only record or enqueue.
    public func observeCommits(_ observer: @escaping @Sendable (_ appID: String, _ bucket: String?) -> Void) {
        commitObservers.withLock { $0.append(observer) }
    }

    /// Announces a change that another node made, to local subscribers only.
    public func deliverLocally(_ event: ChangeEvent) {
        let targets = state.withLock { state in state.subscribers[event.scope]?.values.elements ?? [] }
        DrainBatch.gathering {
            for deliver in targets { deliver(event) }
        }
    }

    /// Adds a hook that sees every change published on this node, to pass it to other nodes.
    public func addForwarder(_ forward: @escaping @Sendable (ChangeEvent) -> Void) {
        forwarders.withLock { $0.append(forward) }
    }
}
