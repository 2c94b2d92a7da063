import Foundation
import LockstepClient
import LockstepCore
import Testing

/// Continuous calibration's budget, its pauses, and the drift it measures across restarts.
@Suite struct ServerClockContinuousTests {
    /// On a jittery link the uncertainty stays above 2 ms for the first minutes: the whole
    /// budget goes, 120 exchanges a minute. On a local network it is under 2 ms at once: six.
    @Test func spendsItsBudgetWhileConvergingAndSettlesBelowTheTarget() async throws {
        let jittery = try await ClockRun.run(in: SimulatedWorld(seed: 1, delays: .mildJitter, horizon: .seconds(60)))
        #expect((16 + 115...16 + 120).contains(jittery.world.exchangeCount), "\(jittery.world.exchangeCount) exchanges in a minute")
        let quiet = try await ClockRun.run(in: SimulatedWorld(seed: 1, delays: .lan, horizon: .seconds(600)))
        #expect((16 + 55...16 + 62).contains(quiet.world.exchangeCount), "\(quiet.world.exchangeCount) exchanges in ten minutes")
    }

    /// A budget of none: no exchange at all, until cancelled.
    @Test func aBudgetOfNoneMakesNoExchange() async throws {
        let world = SimulatedWorld(seed: 1, delays: .lan, horizon: .seconds(600))
        let clock = ServerClock(transport: world, timeSource: world, configuration: .init(continuous: .init(exchangesPerMinute: 0)))
        let calibrating = Task { try await clock.calibrateContinuously() }
        try await Task.sleep(for: .milliseconds(50))
        calibrating.cancel()
        await #expect(throws: CancellationError.self) { try await calibrating.value }
        #expect(world.exchangeCount == 0)
    }

    /// Over a connection that is not kept open (an HTTP client's), it waits instead.
    @Test func exchangesOnlyOverAConnectionThatStaysOpen() async throws {
        let world = SimulatedWorld(seed: 1, delays: .lan, horizon: .seconds(600), connectionIdleTimeout: .seconds(60))
        let clock = ServerClock(transport: world, timeSource: world)
        await #expect(throws: CancellationError.self) { try await clock.calibrateContinuously() }
        #expect(world.exchangeCount == 0)
    }

    /// In the background it makes no exchange, and picks up again in the foreground, whether
    /// told directly or through UIKit's notifications.
    @Test func pausesInTheBackground() async throws {
        // Simulated days: the loop must not reach the horizon while the test looks at it.
        let world = SimulatedWorld(seed: 1, delays: .lan, horizon: .seconds(864_000))
        let clock = ServerClock(transport: world, timeSource: world)
        clock.followApplicationNotifications()
        NotificationCenter.default.post(name: Notification.Name("UIApplicationDidEnterBackgroundNotification"), object: nil)
        #expect(clock.applicationState == .background)
        let calibrating = Task { try await clock.calibrateContinuously() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(world.exchangeCount == 0)
        NotificationCenter.default.post(name: Notification.Name("UIApplicationWillEnterForegroundNotification"), object: nil)
        #expect(clock.applicationState == .foreground)
        try await eventually("exchanges in the foreground") { world.exchangeCount > 10 }
        clock.applicationState = .background
        try await Task.sleep(for: .milliseconds(50))
        let paused = world.exchangeCount
        try await Task.sleep(for: .milliseconds(100))
        #expect(world.exchangeCount == paused)
        calibrating.cancel()
        _ = await calibrating.result
    }

    /// While continuous calibration exchanges, the periodic rounds of `run()` would add nothing:
    /// they wait a re-sync interval from its latest exchange.
    @Test func periodicRoundsWaitWhileContinuousCalibrationRuns() async throws {
        let world = SimulatedWorld(seed: 1, delays: .lan, horizon: .seconds(240))
        let run = try await ClockRun.run(in: world)
        let exchanged = world.exchangeCount
        await #expect(throws: CancellationError.self) { try await run.clock.run() }
        #expect(world.exchangeCount == exchanged)
    }

    /// Twenty minutes at 30 ppm measure the drift; a restart of the app finds it in the store,
    /// a reboot does not.
    @Test func theMeasuredDriftSurvivesARestartButNotAReboot() async throws {
        let store = InMemoryCalibrationStore()
        let world = SimulatedWorld(seed: 3, delays: .mildJitter, rate: 30e-6, horizon: .seconds(1_200))
        let run = try await ClockRun.run(in: world, store: store)
        let measured = try #require(run.clock.estimate?.drift)
        #expect(abs(measured.rate - 30e-6) <= measured.rateUncertainty)
        #expect(measured.rateUncertainty < 5e-6)

        let restarted = ServerClock(transport: world, timeSource: world, store: store, bootIdentity: FixedBootIdentity(identity: "simulated"))
        let restored = try #require(restarted.estimate?.drift)
        #expect(abs(restored.rate - 30e-6) <= restored.rateUncertainty)
        #expect(restored.rateUncertainty < 5e-6)

        let rebooted = ServerClock(transport: world, timeSource: world, store: store, bootIdentity: FixedBootIdentity(identity: "rebooted"))
        #expect(rebooted.estimate == nil)
    }

    /// A step of the server's clock drops the drift from the store too.
    @Test func aStepDropsTheSavedDrift() async throws {
        let store = InMemoryCalibrationStore()
        let stepAt = SimulatedWorld.start + 600 * 1_000_000_000
        let world = SimulatedWorld(seed: 3, delays: .mildJitter, rate: 30e-6, steps: [.init(at: stepAt, by: 500_000_000)], horizon: .seconds(690))
        _ = try await ClockRun.run(in: world, store: store)
        let saved = try #require(try store.load())
        #expect(saved.history.rounds.count <= 2)
        #expect(saved.history.samples.allSatisfy { $0.t1 >= stepAt - 1_000_000_000 })
        let restarted = ServerClock(transport: world, timeSource: world, store: store, bootIdentity: FixedBootIdentity(identity: "simulated"))
        #expect(try #require(restarted.estimate?.drift).rateUncertainty >= 99e-6)
    }
}
