/// Waits for the next change to a bucket, for long-polling requests.
///
/// Subscribe before reading the feed, then wait: a change committed in between still wakes
/// the waiter, so no change slips through the gap.
final class ChangeWaiter: Sendable {
    private let hub: ChangeHub
    private let subscription: ChangeHub.Subscription
    private let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(hub: ChangeHub, scope: BucketScope) {
        self.hub = hub
        (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let continuation = continuation
        subscription = hub.subscribe(scope) { _ in continuation.yield() }
    }

    /// Returns at the first change since the waiter was made, or after `seconds`.
    func wait(seconds: Double) async {
        let signals = signals
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = signals.makeAsyncIterator()
                _ = await iterator.next()
            }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
            await group.next()
            group.cancelAll()
        }
    }

    func cancel() {
        hub.unsubscribe(subscription)
        continuation.finish()
    }
}
