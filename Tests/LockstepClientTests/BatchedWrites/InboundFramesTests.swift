@testable import LockstepClient
import Synchronization
import Testing

/// The queue between a socket's reader and its session.
@Suite("Inbound frames")
struct InboundFramesTests {
    @Test("the session takes everything waiting, in order; what came before the end is still handed over")
    func takesEverythingWaitingInOrder() async {
        let frames = InboundFrames()
        for number in 0..<5 { await frames.append("0:c:[\(number)]") }
        #expect(await frames.takeAll() == (0..<5).map { "0:c:[\($0)]" })
        await frames.append("h:1")
        frames.finish()
        #expect(await frames.takeAll() == ["h:1"])
        #expect(await frames.takeAll() == nil)
        await frames.append("0:c:[5]")
        #expect(await frames.takeAll() == nil, "nothing is taken after the end")
    }

    @Test("a session waiting for frames gets the next one as it comes")
    func aTakerWaitsForTheNextFrame() async {
        let frames = InboundFrames()
        let taker = Task { await frames.takeAll() }
        await frames.append("0:auth:me")
        #expect(await taker.value == ["0:auth:me"])
    }

    /// Past its limit the reader stops (and so stops reading the socket) until the session
    /// takes what waits; a single frame larger than the limit still passes.
    @Test("a full queue holds the reader back until the session takes what waits")
    func aFullQueueHoldsTheReaderBack() async throws {
        let frames = InboundFrames(limit: 10)
        let large = String(repeating: "x", count: 25)
        await frames.append(large)
        let appended = Mutex(false)
        let reader = Task {
            await frames.append("next")
            appended.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(appended.withLock { $0 } == false)
        #expect(await frames.takeAll() == [large])
        await reader.value
        #expect(await frames.takeAll() == ["next"])
    }

    @Test("cancelling either side ends its wait and the queue")
    func cancellingEitherSideEndsTheWait() async {
        let frames = InboundFrames(limit: 1)
        let taker = Task { await frames.takeAll() }
        taker.cancel()
        #expect(await taker.value == nil)

        let full = InboundFrames(limit: 1)
        await full.append("first")
        let reader = Task { await full.append("second") }
        reader.cancel()
        await reader.value
        #expect(await full.takeAll() == ["first"], "a cancelled reader adds nothing more")
        #expect(await full.takeAll() == nil)
    }
}
