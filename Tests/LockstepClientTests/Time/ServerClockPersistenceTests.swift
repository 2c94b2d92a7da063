import Foundation
import LockstepClient
import LockstepCore
import Testing

/// Calibration survives an app restart within a boot, and is gone after a reboot.
@Suite struct ServerClockPersistenceTests {
    private let store = InMemoryCalibrationStore()

    /// A clock as the app would create it at launch, in the boot named `boot`.
    private func launch(_ world: SimulatedWorld, time: SimulatedWorld? = nil, boot: String) -> ServerClock {
        let identity = FixedBootIdentity(identity: boot)
        return ServerClock(transport: world, timeSource: time ?? world, store: store, bootIdentity: identity)
    }

    @Test func aRestartKeepsTheCalibration() async throws {
        let world = SimulatedWorld(seed: 7, delays: .queueing)
        let first = launch(world, boot: "boot-1")
        try await first.resync()

        // The app restarts offline: no exchange succeeds, yet the clock knows the time.
        let offline = SimulatedWorld(seed: 8, delays: .queueing, failing: Set(0..<100))
        let second = launch(offline, time: world, boot: "boot-1")
        #expect(second.estimate == first.estimate)
        world.advance(by: 600_000_000_000)
        let time = try #require(second.now())
        #expect(abs(time.nanosecondsSinceEpoch - world.serverTime(at: world.now())) <= time.errorBound.nanoseconds)
    }

    @Test func aRebootDropsIt() async throws {
        let world = SimulatedWorld(seed: 7, delays: .queueing)
        try await launch(world, boot: "boot-1").resync()

        let after = launch(world, boot: "boot-2")
        #expect(after.now() == nil)
        #expect(after.estimate == nil)
        try await after.resync()
        #expect(try store.load()?.bootIdentity == "boot-2")
    }

    @Test func theFileStoreRoundTrips() throws {
        let url = FileManager.default.temporaryDirectory.appending(path: "clock-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = FileClockCalibrationStore(fileURL: url)
        #expect(try store.load() == nil)
        let calibration = ClockCalibration(
            bootIdentity: "boot-1",
            history: ClockHistory(samples: [
                ClockSample(t1: 1, t2: 1_748_761_200_000_000_000, t3: 1_748_761_200_000_050_000, t4: 40_000_000),
            ])
        )
        try store.save(calibration)
        #expect(try store.load() == calibration)
    }

    @Test func theSystemHasABootIdentity() throws {
        let identity = try SystemBootIdentity().currentBootIdentity()
        #expect(!identity.isEmpty)
        #expect(try SystemBootIdentity().currentBootIdentity() == identity)
    }
}
