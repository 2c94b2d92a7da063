import LockstepClient
import LockstepCore
import Synchronization

/// A ``ServerClock`` calibrating in a ``SimulatedWorld`` as a connected app's does: its first
/// burst, then continuous calibration until the world's horizon, its estimate checked against
/// the truth after the burst and every time the clock waits between exchanges.
struct ClockRun {
    /// One look at the estimate.
    struct Check: CustomStringConvertible {
        /// Device time since the first burst ended.
        var elapsed: Int64
        /// Estimated offset minus the true one.
        var error: Int64
        var uncertainty: Int64
        var bound: Int64
        /// The drift's statistical uncertainty at the time.
        var rateUncertainty: Double

        var uncertaintyHolds: Bool { error.magnitude <= uncertainty.magnitude }
        var boundHolds: Bool { error.magnitude <= bound.magnitude }
        var description: String { "at \(elapsed / 1_000_000) ms: error \(error) ns, uncertainty \(uncertainty), bound \(bound)" }
    }

    let world: SimulatedWorld
    let clock: ServerClock
    let checks: [Check]

    /// Runs a clock in `world` (which must have a horizon) until the horizon ends its
    /// continuous calibration. The first burst goes over a connection that may be new when the
    /// world plays connections; the continuous exchanges over one that stays open.
    static func run(
        in world: SimulatedWorld, configuration: ServerClock.Configuration = .init(), store: (any ClockCalibrationStore)? = nil
    ) async throws -> ClockRun {
        let clock = ServerClock(
            transport: world, timeSource: world, configuration: configuration, store: store,
            bootIdentity: FixedBootIdentity(identity: "simulated"))
        try await clock.resync()
        let origin = world.now()
        let checks = Mutex<[Check]>([])
        let look = { @Sendable (now: Int64) in
            guard let estimate = clock.estimate else { return }
            let check = Check(
                elapsed: now - origin, error: estimate.offset(at: now) - (world.serverTime(at: now) - now),
                uncertainty: estimate.uncertainty(at: now), bound: estimate.errorBound(at: now),
                rateUncertainty: estimate.drift.rateUncertainty)
            checks.withLock { $0.append(check) }
        }
        look(origin)
        world.observeSleeps(look)
        do {
            try await clock.calibrateContinuously()
        } catch is CancellationError {
            // The horizon: the run is over.
        }
        world.observeSleeps { _ in }
        return ClockRun(world: world, clock: clock, checks: checks.withLock { $0 })
    }

    /// The checks from `from` to `to` seconds after the first burst.
    func checks(from: Double, to: Double = .infinity) -> [Check] {
        checks.filter { Double($0.elapsed) >= from * 1e9 && Double($0.elapsed) <= to * 1e9 }
    }

    /// The last check at or before `seconds` after the first burst.
    func check(at seconds: Double) -> Check? {
        checks.last { Double($0.elapsed) <= seconds * 1e9 }
    }
}
