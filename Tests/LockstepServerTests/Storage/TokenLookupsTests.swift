import Synchronization
import Testing

@testable import LockstepServer

/// Lookups that wait while one is read are read together, and each gets its own answer.
@Suite("Token lookups read together")
struct TokenLookupsTests {
    /// A read that records each batch, answers each lookup with its own hash as the app's
    /// name, and can be held so that lookups pile up behind it.
    final class Reads: Sendable {
        let batches = Mutex<[[String]]>([])
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let holdsFirst: Bool
        let fails: Bool

        init(holdsFirst: Bool = false, fails: Bool = false) {
            self.holdsFirst = holdsFirst
            self.fails = fails
        }

        func read(_ lookups: [TokenLookups.Lookup]) async throws -> [TokenAuthentication] {
            let isFirst = batches.withLock { batches in
                batches.append(lookups.map(\.tokenHash))
                return batches.count == 1
            }
            if isFirst && holdsFirst { await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
            if fails { throw ReadFailure() }
            return lookups.map { TokenAuthentication(app: AppRecord(id: $0.appID, name: $0.tokenHash, apiKeyHash: "", adminTokenHash: "", createdAt: 0)) }
        }

        func release() async {
            while true {
                if let continuation = gate.withLock({ gate in defer { gate = nil }; return gate }) { return continuation.resume() }
                await Task.yield()
            }
        }
    }

    struct ReadFailure: Error {}

    /// And none is answered by the read already under way when it came (a token revoked
    /// before then must be refused).
    @Test func lookupsWaitingBehindAReadShareTheNext() async throws {
        let reads = Reads(holdsFirst: true)
        let lookups = TokenLookups { try await reads.read($0) }
        async let first = lookups.lookUp(appID: "a", tokenHash: "h0")
        // The first read is held: these queue behind it. (Long waits: at the start of a full
        // suite the 21 lookup tasks waited over 10 s for the test process's pool; the
        // conditions end the waits as soon as they hold.)
        try await waitUntil(within: .seconds(120)) { reads.batches.withLock { $0.count } == 1 }
        let later = (1...20).map { index in Task { try await lookups.lookUp(appID: "a", tokenHash: "h\(index)") } }
        try await waitUntil(within: .seconds(120)) { lookups.waiting == 20 }
        await reads.release()
        #expect(try await first.app?.name == "h0")
        for (index, task) in later.enumerated() {
            #expect(try await task.value.app?.name == "h\(index + 1)")
        }
        let batches = reads.batches.withLock { $0 }
        #expect(batches.first == ["h0"])
        #expect(batches.count == 2, "the 20 waiting lookups were not read together: \(batches)")
        #expect(batches.last?.sorted() == (1...20).map { "h\($0)" }.sorted())
    }

    @Test func aFailedReadFailsItsBatchAloneAndLookupsGoOn() async throws {
        let failing = Reads(fails: true)
        let lookups = TokenLookups { try await failing.read($0) }
        await #expect(throws: ReadFailure.self) { try await lookups.lookUp(appID: "a", tokenHash: "h") }
        // The next lookup starts a new read rather than waiting for ever.
        await #expect(throws: ReadFailure.self) { try await lookups.lookUp(appID: "a", tokenHash: "h") }
        #expect(failing.batches.withLock { $0.count } == 2)
    }
}
