import Foundation
import LockstepClient
import LockstepCore
import Testing

/// The device's wall clock never enters the calculation: the same exchanges give the same
/// answers bit for bit, although the real wall clock reads differently during each run. (A
/// clock that read it, to stamp or to add an offset to, would answer differently.)
@Suite struct ServerClockWallClockTests {
    private func answers(seed: UInt64) async throws -> [ServerTime?] {
        let world = SimulatedWorld(seed: seed, delays: .queueing, rate: 15e-6, horizon: .seconds(1_800))
        let clock = ServerClock(transport: world, timeSource: world)
        await #expect(throws: CancellationError.self) { try await clock.run() }
        return [clock.now(), clock.serverTime(at: 0), clock.serverTime(at: world.now() + 86_400_000_000_000)]
    }

    @Test func answersDependOnlyOnTheExchanges() async throws {
        let started = Date()
        let first = try await answers(seed: 42)
        let between = Date()
        let second = try await answers(seed: 42)
        #expect(started < between)
        #expect(first == second)
        #expect(first.allSatisfy { $0 != nil })
    }
}
