@testable import LockstepServer
import Synchronization
import Testing

@Suite("A connection's changes in flight")
struct ChangePipelineTests {
    @Test("drained returns at once when nothing is in flight, and otherwise once the last place is given back")
    func drainedWaitsForTheLastRelease() async throws {
        let pipeline = ChangePipeline(limit: 4)
        await pipeline.drained()

        await pipeline.reserve()
        await pipeline.reserve()
        let isDrained = Mutex(false)
        let waiting = Task {
            await pipeline.drained()
            isDrained.withLock { $0 = true }
        }
        pipeline.release()
        try await Task.sleep(for: .milliseconds(50))
        #expect(!isDrained.withLock { $0 }, "one change is still in flight")
        pipeline.release()
        await waiting.value
        #expect(isDrained.withLock { $0 })
    }

    @Test("a full pipeline admits the next change when one is given back, and drains after it")
    func aFullPipelineAdmitsTheNextThenDrains() async throws {
        let pipeline = ChangePipeline(limit: 1)
        await pipeline.reserve()
        let admitted = Task { await pipeline.reserve() }
        try await Task.sleep(for: .milliseconds(20))
        pipeline.release()
        await admitted.value
        let drained = Task { await pipeline.drained() }
        pipeline.release()
        await drained.value
    }

    /// The connection's reader (answering a change it refused) and its end may wait at once.
    @Test("every task waiting for the pipeline to drain resumes")
    func everyWaiterResumes() async throws {
        let pipeline = ChangePipeline(limit: 4)
        await pipeline.reserve()
        let waiters = (0..<3).map { _ in Task { await pipeline.drained() } }
        try await Task.sleep(for: .milliseconds(20))
        pipeline.release()
        for waiter in waiters { await waiter.value }
    }
}
