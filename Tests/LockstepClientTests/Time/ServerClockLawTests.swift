import LockstepClient
import LockstepCore
import Testing

/// The clock's laws on the simulated links of `notes/clock.md`, in the same seeded worlds every
/// run: its bound holds the truth whatever the link; its uncertainty holds it in at least
/// 199 estimates in 200 on every link whose directions delay alike, drift of ±50 ppm included;
/// a fixed route asymmetry costs half of it and no more; the estimate converges as continuous
/// calibration goes on; a step of the server's clock is detected and the model starts over.
@Suite struct ServerClockLawTests {
    /// At least 99.5 % of `checks` hold within their uncertainty, and all within their bound.
    private static func expectBarsHold(_ checks: [ClockRun.Check], _ what: String) {
        let missed = checks.filter { !$0.uncertaintyHolds }
        let broken = checks.filter { !$0.boundHolds }
        #expect(Double(missed.count) <= 0.005 * Double(checks.count), "\(what): \(missed.count) of \(checks.count) outside the uncertainty, e.g. \(missed.prefix(3))")
        #expect(broken.isEmpty, "\(what): \(broken.count) outside the bound, e.g. \(broken.prefix(3))")
    }

    /// The first burst of a fresh app, over a new HTTP connection (its first exchange carries
    /// the handshake): p99 within 6 ms on the realistic jitter link, within 9 ms under
    /// bufferbloat, and its uncertainty holding in at least 99.5 % of a thousand worlds.
    @Test(arguments: [(DelayModel.mildJitter, 6.0), (.bufferbloat, 9.0)])
    func oneBurstMeetsItsTargets(delays: DelayModel, p99: Double) async throws {
        var checks: [ClockRun.Check] = []
        for seed in UInt64(1)...1_000 {
            let world = SimulatedWorld(seed: seed, delays: delays, connectionIdleTimeout: .seconds(60))
            let clock = ServerClock(transport: world, timeSource: world, configuration: .init(targetErrorBound: .zero))
            try await clock.resync()
            let estimate = try #require(clock.estimate)
            let now = world.now()
            checks.append(ClockRun.Check(
                elapsed: 0, error: estimate.offset(at: now) - (world.serverTime(at: now) - now),
                uncertainty: estimate.uncertainty(at: now), bound: estimate.errorBound(at: now), rateUncertainty: estimate.drift.rateUncertainty))
        }
        let figures = ErrorFigures(nanoseconds: checks.map(\.error))
        let held = checks.filter(\.uncertaintyHolds).count
        print("One burst of 16 over a new connection, \(delays): \(figures), uncertainty held \(held)/\(checks.count),",
              "median uncertainty \(twoDecimals(Self.median(checks.map(\.uncertainty)))) ms")
        #expect(figures.p99 <= p99)
        Self.expectBarsHold(checks, "\(delays)")
    }

    /// A minute of continuous calibration on the realistic jitter link: p99 under 2 ms, and the
    /// uncertainty smaller than after the first burst. Not much smaller yet: until the rounds
    /// measure the drift (from two minutes on), a sample half a minute old may have moved by the
    /// whole 100 ppm tolerance, 3 ms, and the uncertainty says so; once the drift is measured it
    /// falls further (`underDriftTheRateIsMeasuredAndTheEstimateConverges`).
    @Test func aMinuteOfContinuousCalibrationGetsUnderTwoMilliseconds() async throws {
        var first: [ClockRun.Check] = [], minute: [ClockRun.Check] = [], all: [ClockRun.Check] = []
        for seed in UInt64(1)...200 {
            let run = try await ClockRun.run(in: SimulatedWorld(seed: seed, delays: .mildJitter, horizon: .seconds(62)))
            first.append(try #require(run.check(at: 0)))
            minute.append(try #require(run.check(at: 60)))
            all += run.checks
        }
        let (before, after) = (ErrorFigures(nanoseconds: first.map(\.error)), ErrorFigures(nanoseconds: minute.map(\.error)))
        let (firstBar, minuteBar) = (Self.median(first.map(\.uncertainty)), Self.median(minute.map(\.uncertainty)))
        print("Continuous calibration, \(DelayModel.mildJitter): after the burst \(before), median uncertainty \(twoDecimals(firstBar)) ms;",
              "after 60 s \(after), median uncertainty \(twoDecimals(minuteBar)) ms")
        #expect(after.p99 <= 2)
        #expect(minuteBar < firstBar)
        Self.expectBarsHold(all, "a minute of \(DelayModel.mildJitter)")
    }

    /// Ten minutes on each link whose directions delay alike, the server's clock drifting by up
    /// to ±50 ppm: every check within the bound, 99.5 % within the uncertainty.
    @Test(arguments: DelayModel.symmetric)
    func theBarsHoldWhateverTheDrift(delays: DelayModel) async throws {
        var all: [ClockRun.Check] = []
        var random = SeededRandom(seed: 54)
        for seed in UInt64(1)...24 {
            let rate = Double.random(in: -50e-6...50e-6, using: &random)
            let run = try await ClockRun.run(in: SimulatedWorld(seed: seed, delays: delays, rate: rate, horizon: .seconds(600)))
            all += run.checks
        }
        let figures = ErrorFigures(nanoseconds: all.map(\.error))
        print("Ten minutes at ±50 ppm, \(delays): \(figures) over every check, uncertainty held \(all.filter(\.uncertaintyHolds).count)/\(all.count)")
        Self.expectBarsHold(all, "\(delays)")
    }

    /// A route 20 ms longer one way than the other moves every estimate by 10 ms, and no
    /// exchange can tell: the bound still holds, and the uncertainty misses by that much at most.
    @Test func anAsymmetricRouteCostsHalfItsAsymmetryAndNoMore() async throws {
        let delays = DelayModel.asymmetricRoute
        for seed in UInt64(1)...24 {
            let run = try await ClockRun.run(in: SimulatedWorld(seed: seed, delays: delays, rate: 30e-6, horizon: .seconds(600)))
            let broken = run.checks.filter { !$0.boundHolds }
            #expect(broken.isEmpty, "seed \(seed): \(broken.prefix(3))")
            let beyond = run.checks.filter { $0.error.magnitude > UInt64($0.uncertainty + delays.invisibleBias) }
            #expect(beyond.isEmpty, "seed \(seed): \(beyond.prefix(3))")
        }
    }

    /// Twenty minutes at up to ±50 ppm: the rate is measured within its uncertainty, to a few
    /// ppm, and the estimate is better after twenty minutes than after one.
    @Test(arguments: [DelayModel.mildJitter, .bufferbloat])
    func underDriftTheRateIsMeasuredAndTheEstimateConverges(delays: DelayModel) async throws {
        var random = SeededRandom(seed: 50)
        var early: [ClockRun.Check] = [], late: [ClockRun.Check] = []
        for seed in UInt64(1)...16 {
            let rate = Double.random(in: -50e-6...50e-6, using: &random)
            let run = try await ClockRun.run(in: SimulatedWorld(seed: seed, delays: delays, rate: rate, horizon: .seconds(1_200)))
            let drift = try #require(run.clock.estimate?.drift)
            #expect(abs(drift.rate - rate) <= drift.rateUncertainty, "seed \(seed): \(drift) against \(rate)")
            #expect(drift.rateUncertainty < 5e-6, "seed \(seed): \(drift)")
            early.append(try #require(run.check(at: 60)))
            late += run.checks(from: 900)
        }
        let (atOneMinute, lastFive) = (ErrorFigures(nanoseconds: early.map(\.error)), ErrorFigures(nanoseconds: late.map(\.error)))
        print("Drift of up to ±50 ppm, \(delays): after 1 minute \(atOneMinute); minutes 15–20 \(lastFive)")
        #expect(lastFive.p99 <= 2)
        #expect(lastFive.p99 < atOneMinute.p99)
        #expect(Self.median(late.map(\.uncertainty)) < Self.median(early.map(\.uncertainty)))
    }

    /// The server's clock set by `size` ten minutes into a run (the drift measured by then):
    /// within two rounds the model has started over (the measured drift dropped, the samples
    /// before the step forgotten), and from then on the bars hold again.
    @Test(arguments: [
        (DelayModel.mildJitter, Int64(300_000_000)), (.mildJitter, -4_000_000_000), (.bufferbloat, 900_000_000),
        (.mildJitter, 25_000_000), (.mildJitter, -25_000_000), (.bufferbloat, 15_000_000), (.lan, 2_000_000),
    ])
    func aServerClockStepIsDetectedAndTheModelStartsOver(delays: DelayModel, size: Int64) async throws {
        for seed in UInt64(1)...8 {
            let stepAt = SimulatedWorld.start + 600 * 1_000_000_000 + Int64(seed) * 7_000_000_000
            let world = SimulatedWorld(
                seed: seed, delays: delays, rate: 20e-6, steps: [.init(at: stepAt, by: size)], horizon: .seconds(900))
            let run = try await ClockRun.run(in: world)
            // Seconds from the first burst's end (a second or so after the world's start) to the step.
            let stepped = Double(stepAt - SimulatedWorld.start) / 1e9 - 1
            let before = try #require(run.check(at: stepped - 30))
            #expect(before.rateUncertainty < 20e-6, "seed \(seed): the drift was measured before the step")
            let reset = run.checks(from: stepped, to: stepped + 150).contains { $0.rateUncertainty >= 99e-6 }
            #expect(reset, "seed \(seed): the measured drift was not dropped within two rounds of a \(size) ns step")
            Self.expectBarsHold(run.checks(from: stepped + 150), "seed \(seed), a step of \(size) ns")
        }
    }

    private static func median(_ values: [Int64]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : Double(sorted[sorted.count / 2]) / 1e6
    }
}
