import Foundation
@testable import LockstepServer
import Synchronization
import Testing

/// Passwords are hashed and checked on threads of the worker's own, each one hash at a time,
/// not on the cooperative pool that every socket and request shares.
@Suite("Security: password hashing off the cooperative pool")
struct PasswordWorkerTests {
    let worker = PasswordWorker(hasher: PasswordHasher(cost: 1 << 10))

    @Test func hashesAndChecks() async throws {
        let stored = try await worker.hash("correct horse")
        #expect(await worker.verify("correct horse", against: stored))
        #expect(await worker.verify("wrong horse", against: stored) == false)
        #expect(await worker.verify("correct horse", against: nil) == false, "no stored hash: the decoy is checked, and it is no")
    }

    /// Six callers at once, from the pool's threads: no more of their work runs at once than the
    /// worker has threads, as it would if it ran on the callers' own threads.
    @Test(arguments: [1, 2])
    func runsAsManyHashesAtOnceAsItHasThreads(threads: Int) async throws {
        let overlap = Overlap()
        let worker = PasswordWorker(hasher: PasswordHasher(cost: 1 << 10), threads: threads)
        #expect(worker.threadCount == threads)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await worker.run {
                        overlap.enter()
                        defer { overlap.leave() }
                        _ = try PasswordHasher(cost: 1 << 10).hash("a password")
                        Thread.sleep(forTimeInterval: 0.02)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlap.most <= threads && overlap.most >= 1)
    }
}

/// How many jobs ran at once, at most.
private final class Overlap: Sendable {
    private let state = Mutex((running: 0, most: 0))

    func enter() {
        state.withLock { state in
            state.running += 1
            state.most = max(state.most, state.running)
        }
    }

    func leave() {
        state.withLock { $0.running -= 1 }
    }

    var most: Int { state.withLock { $0.most } }
}
