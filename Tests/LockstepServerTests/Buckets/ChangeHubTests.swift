import LockstepCore
import LockstepServer
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The hub tells a subscriber that names its event loop on that loop, and one that does not on
/// the announcing thread; either way every change once, in the order announced.
@Suite("The change hub")
struct ChangeHubTests {
    static let scope = BucketScope(appID: "app", owner: .shared, bucket: "b")

    static func event(_ sequence: Int64) -> ChangeEvent {
        let change = ChangeRecord(
            sequence: sequence, key: "k\(sequence)", operation: .modify, sourceVersion: nil, endVersion: 1, diff: nil,
            mergedWithoutBase: false, clientID: "c", changeID: "c\(sequence)", editTime: nil)
        return ChangeEvent(scope: scope, change: change, version: ChangeVersion(epoch: 1, sequence: sequence))
    }

    /// What each subscriber heard, and whether any heard a change off the loop it named.
    final class Ears: Sendable {
        let heard = Mutex<[Int: [Int64]]>([:])
        let offTheirLoop = Mutex(0)

        func subscriber(_ index: Int, on loop: (any EventLoop)?) -> ChangeHub.Subscriber {
            { event in
                if let loop, !loop.inEventLoop { self.offTheirLoop.withLock { $0 += 1 } }
                self.heard.withLock { $0[index, default: []].append(event.version.sequence) }
            }
        }

        func count(_ index: Int) -> Int { heard.withLock { $0[index]?.count ?? 0 } }
    }

    @Test("subscribers on two event loops and one on the announcing thread each hear every change once, in order, where they asked")
    func eachSubscriberHearsEveryChangeInOrderWhereItAsked() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        #expect(loops.count == 2)
        let hub = ChangeHub()
        let ears = Ears()
        // Three on each loop, one inline.
        var subscriptions: [ChangeHub.Subscription] = []
        for index in 0..<7 {
            let loop = index < 6 ? loops[index % 2] : nil
            subscriptions.append(hub.subscribe(Self.scope, on: loop, ears.subscriber(index, on: loop)))
        }
        #expect(hub.subscriberCount(Self.scope) == 7)

        let announced: Int64 = 300
        for sequence in 1...announced {
            hub.publish(Self.event(sequence))
            // The inline subscriber has heard it when the announcement returns.
            #expect(ears.count(6) == Int(sequence))
        }
        try await waitUntil { (0..<6).allSatisfy { ears.count($0) == Int(announced) } }
        for index in 0..<7 {
            #expect(ears.heard.withLock { $0[index] } == Array(1...announced), "subscriber \(index)")
        }
        #expect(ears.offTheirLoop.withLock { $0 } == 0)

        // One subscriber of a loop leaves; the others on that loop still hear, and it does not.
        hub.unsubscribe(subscriptions[0])
        #expect(hub.subscriberCount(Self.scope) == 6)
        hub.publish(Self.event(announced + 1))
        try await waitUntil { ears.count(2) == Int(announced) + 1 && ears.count(1) == Int(announced) + 1 }
        #expect(ears.count(0) == Int(announced))

        // Every subscriber leaves: the bucket has none, and an announcement reaches nobody.
        for subscription in subscriptions.dropFirst() { hub.unsubscribe(subscription) }
        #expect(hub.subscriberCount(Self.scope) == 0)
        hub.publish(Self.event(announced + 2))
        try await Task.sleep(for: .milliseconds(50))
        #expect((0..<7).allSatisfy { ears.count($0) <= Int(announced) + 1 })
        try await group.shutdownGracefully()
    }

    @Test("a subscriber on a loop hears a change announced from that loop before the announcement returns")
    func aSubscriberHearsAtOnceOnItsOwnLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let hub = ChangeHub()
        let ears = Ears()
        _ = hub.subscribe(Self.scope, on: loop, ears.subscriber(0, on: loop))
        let heardAtOnce = try await loop.submit {
            hub.publish(Self.event(1))
            return ears.count(0)
        }.get()
        #expect(heardAtOnce == 1)
        try await group.shutdownGracefully()
    }
}
