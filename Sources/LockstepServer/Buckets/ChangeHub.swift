import LockstepCore
public import NIOCore
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
        /// The event loop the subscriber is told on, if it named one.
        let loop: ObjectIdentifier?
    }

    /// A bucket's subscribers, by where they are told of a change.
    ///
    /// Ordered, so that a delivery takes each group as an array it shares
    /// (``OrderedDictionary/values``), without copying it.
    private struct Listeners {
        /// Told on the announcing thread.
        var inline: OrderedDictionary<Int, Subscriber> = [:]
        /// Told on their event loop, all of a loop's in one of its turns.
        var onLoops: [LoopListeners] = []

        var isEmpty: Bool { inline.isEmpty && onLoops.isEmpty }
        var count: Int { onLoops.reduce(inline.count) { $0 + $1.subscribers.count } }
    }

    private struct LoopListeners {
        let loop: any EventLoop
        var subscribers: OrderedDictionary<Int, Subscriber>
    }

    private struct State {
        var nextID = 0
        var listeners: [BucketScope: Listeners] = [:]
    }

    private let state = Mutex(State())
    private let forwarders = Mutex<[@Sendable (ChangeEvent) -> Void]>([])
    private let commitObservers = Mutex<[@Sendable (_ appID: String, _ bucket: String?) -> Void]>([])

    public init() {}

    /// Adds `subscriber` to the bucket's listeners.
    ///
    /// A subscriber that names its event `loop` (a socket's) is told there: a change goes to
    /// each loop once, and the loop tells all its subscribers in one turn and writes what they
    /// queued, so that their sockets' state is touched by one core only and the announcing
    /// thread is not held by a thousand of them. Changes reach a loop in the order they were
    /// announced. Without a loop, the subscriber is told on the announcing thread.
    public func subscribe(_ scope: BucketScope, on loop: (any EventLoop)? = nil, _ subscriber: @escaping Subscriber) -> Subscription {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            var listeners = state.listeners.removeValue(forKey: scope) ?? Listeners()
            if let loop {
                if let index = listeners.onLoops.firstIndex(where: { $0.loop === loop }) {
                    listeners.onLoops[index].subscribers[id] = subscriber
                } else {
                    listeners.onLoops.append(LoopListeners(loop: loop, subscribers: [id: subscriber]))
                }
            } else {
                listeners.inline[id] = subscriber
            }
            state.listeners[scope] = listeners
            return Subscription(scope: scope, id: id, loop: loop.map { ObjectIdentifier($0) })
        }
    }

    public func unsubscribe(_ subscription: Subscription) {
        state.withLock { state in
            guard var listeners = state.listeners.removeValue(forKey: subscription.scope) else { return }
            if let loop = subscription.loop {
                if let index = listeners.onLoops.firstIndex(where: { ObjectIdentifier($0.loop) == loop }) {
                    listeners.onLoops[index].subscribers.removeValue(forKey: subscription.id)
                    if listeners.onLoops[index].subscribers.isEmpty { listeners.onLoops.remove(at: index) }
                }
            } else {
                listeners.inline.removeValue(forKey: subscription.id)
            }
            if !listeners.isEmpty { state.listeners[subscription.scope] = listeners }
        }
    }

    /// How many subscribers listen to a bucket.
    public func subscriberCount(_ scope: BucketScope) -> Int {
        state.withLock { $0.listeners[scope]?.count ?? 0 }
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
        guard let listeners = state.withLock({ $0.listeners[event.scope] }) else { return }
        DrainBatch.gathering {
            for group in listeners.onLoops {
                let subscribers = group.subscribers.values.elements
                DrainBatch.onLoop(group.loop) {
                    for deliver in subscribers { deliver(event) }
                }
            }
            for deliver in listeners.inline.values.elements { deliver(event) }
        }
    }

    /// Adds a hook that sees every change published on this node, to pass it to other nodes.
    public func addForwarder(_ forward: @escaping @Sendable (ChangeEvent) -> Void) {
        forwarders.withLock { $0.append(forward) }
    }
}
