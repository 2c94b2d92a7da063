import LockstepCore
import PropertyBased
import Testing

/// The clock estimator under adversarial exchanges: routes whose legs differ by far more than
/// their jitter, delay spikes of seconds, a server whose clock is set while clients run, and
/// clients that sleep for hours. Its error bar is a promise, checked after every exchange at
/// the estimate's anchor and at the last moment it serves (just before the next exchange):
///
/// - while no clock jumps, the bar contains the true offset, whatever the delays, the drift
///   (within the tolerance) and the sleeps;
/// - a server clock step of s never leaves the truth more than |s| outside the bar;
/// - a step beyond the reach of every older sample is caught by the first exchange after it;
/// - a smaller one, which no exchange may contradict (the rounds on either side can read it as
///   drift), is forgotten within `roundWindow + 1` rounds, when the rounds before it have left
///   the drift's window.
@Suite("Time: clock faults")
struct ClockFaultTests {
    static let rounds = 12
    static let exchanges = rounds * PlannedExchange.perRound

    /// Legs of `floor` plus a queueing or jitter tail: routes up to 150 ms one way and 0 the other.
    static let legs = zip(
        Gen.int64(in: 0...150 * millisecond), Gen.int64(in: 0...150 * millisecond),
        Gen.int64(in: 0...60 * millisecond).array(of: exchanges), Gen.int64(in: 0...60 * millisecond).array(of: exchanges)
    )
    /// Between rounds: from a second to a quarter of an hour.
    static let gaps = Gen.int64(in: second...15 * minute).array(of: 1...(rounds - 1))
    static let rate = Gen.double(in: -80e-6...80e-6)

    static func plan(
        _ legs: (Int64, Int64, [Int64], [Int64]), gaps: [Int64], spikes: [Int: (up: Int64, down: Int64)] = [:]
    ) -> [PlannedExchange] {
        let (upFloor, downFloor, upTails, downTails) = legs
        return PlannedExchange.rounds(rounds, gaps: gaps) { index in
            let spike = spikes[index] ?? (0, 0)
            return (upFloor + upTails[index] + spike.up, downFloor + downTails[index] + spike.down)
        }
    }

    @Test func asymmetricRoutesNeverLeaveTheBar() async {
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate) { legs, gaps, rate in
            let run = FaultRun(Self.plan(legs, gaps: gaps), truth: ClockTruth(rate: rate))
            #expect(run.misses.isEmpty, "\(run.misses.prefix(3))")
        }
    }

    @Test func delaySpikesNeverLeaveTheBar() async {
        let spikes = zip(Gen.int(in: 0..<Self.exchanges), Gen.int64(in: 100 * millisecond...10 * second), Gen.bool())
            .array(of: 1...24)
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate, spikes) { legs, gaps, rate, spikes in
            var onLegs: [Int: (up: Int64, down: Int64)] = [:]
            for (index, size, up) in spikes { onLegs[index] = up ? (size, 0) : (0, size) }
            let run = FaultRun(Self.plan(legs, gaps: gaps, spikes: onLegs), truth: ClockTruth(rate: rate))
            #expect(run.misses.isEmpty, "\(run.misses.prefix(3))")
        }
    }

    /// A server clock set at some moment: exchange `index` is the first to leave after it.
    static let step = zip(Gen.int(in: PlannedExchange.perRound..<(exchanges - 1)), Gen.int64(in: -10 * second...10 * second))

    /// The checks of a run with its server clock set by `size` as exchange `index` leaves; the
    /// exchanges still in flight then are stamped across the step.
    static func stepped(_ plan: [PlannedExchange], at index: Int, by size: Int64, rate: Double, configuration: ClockEstimatorConfiguration = .init())
        -> (run: FaultRun, at: Int64, settled: Int)
    {
        let at = plan[index].t1
        let run = FaultRun(plan, truth: ClockTruth(rate: rate, steps: [ClockStep(at: at, by: size)]), configuration: configuration)
        return (run, at, plan.prefix { $0.t4 < at }.count)
    }

    @Test func aServerClockStepCostsTheBarAtMostItsOwnSize() async {
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate, Self.step) { legs, gaps, rate, step in
            let (run, at, settled) = Self.stepped(Self.plan(legs, gaps: gaps), at: step.0, by: step.1, rate: rate)
            let before = run.misses.filter { $0.exchanges <= settled && $0.instant < at }
            let beyond = run.misses.filter { $0.error.magnitude > $0.bar.magnitude + step.1.magnitude }
            #expect(before.isEmpty, "\(before.prefix(3))")
            #expect(beyond.isEmpty, "step of \(step.1) ns: \(beyond.prefix(3))")
        }
    }

    /// A step that takes the offset beyond every older sample's bound, as the bound stands when
    /// the step comes (each leg's longest delay, plus what the tolerance lets drift add since the
    /// oldest sample the estimator keeps), puts the first exchange after it out of reach of all
    /// of them: the estimator starts over from it, drift included. Steps just past that reach,
    /// with rounds up to an hour apart, are the ones rounds alone can mistake for drift at the
    /// edge of the tolerance.
    @Test func aServerClockStepBeyondEveryBoundIsCaughtByTheNextExchange() async {
        let step = zip(Gen.int(in: PlannedExchange.perRound..<(Self.exchanges - 1)), Gen.int64(in: millisecond...400 * millisecond), Gen.bool())
        let gaps = Gen.int64(in: second...hour).array(of: 1...(Self.rounds - 1))
        await propertyCheck(count: 300, input: Self.legs, gaps, Self.rate, step) { legs, gaps, rate, step in
            let plan = Self.plan(legs, gaps: gaps)
            let (index, beyond, backwards) = step
            let configuration = ClockEstimatorConfiguration()
            let oldest = plan[max(0, index - configuration.sampleWindow)].t1
            let drift = Int64(2 * configuration.frequencyTolerance * Double(plan[index].t4 - oldest))
            let reach = (plan.map(\.up).max() ?? 0) + (plan.map(\.down).max() ?? 0) + 2 * ClockTruth.processing + drift
            let size = reach + beyond
            let (run, _, _) = Self.stepped(plan, at: index, by: backwards ? -size : size, rate: rate)
            let late = run.misses.filter { $0.exchanges > index }
            #expect(late.isEmpty, "step of \(size) ns at exchange \(index): \(late.prefix(3))")
        }
    }

    /// A smaller step may be one no exchange contradicts: the rounds on
    /// either side then read it as drift. It is forgotten once the rounds before it have left
    /// the drift's window: within `roundWindow + 1` rounds (65 by default; 5 here, so that the
    /// run outlasts it).
    @Test func anySmallServerClockStepIsForgottenWithinTheRoundWindow() async {
        let configuration = ClockEstimatorConfiguration(roundWindow: 4)
        let recovery = (configuration.roundWindow + 1) * PlannedExchange.perRound
        let small = zip(Gen.int(in: PlannedExchange.perRound..<(Self.exchanges - recovery - 1)), Gen.int64(in: -400 * millisecond...400 * millisecond))
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate, small) { legs, gaps, rate, step in
            let (run, _, settled) = Self.stepped(Self.plan(legs, gaps: gaps), at: step.0, by: step.1, rate: rate, configuration: configuration)
            let late = run.misses.filter { $0.exchanges >= settled + recovery }
            #expect(late.isEmpty, "step of \(step.1) ns after exchange \(settled): \(late.prefix(3))")
        }
    }

    @Test func aClientThatSleptForHoursStaysInTheBar() async {
        let sleeps = zip(Gen.int(in: 0..<(Self.rounds - 1)), Gen.int64(in: hour...24 * hour)).array(of: 1...3)
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate, sleeps) { legs, gaps, rate, sleeps in
            var gaps = Array((0..<(Self.rounds - 1)).map { gaps[$0 % gaps.count] })
            for (round, length) in sleeps { gaps[round] = length }
            let run = FaultRun(Self.plan(legs, gaps: gaps), truth: ClockTruth(rate: rate))
            #expect(run.misses.isEmpty, "\(run.misses.prefix(3))")
        }
    }

    /// A local clock that stopped while the device slept (Linux `CLOCK_MONOTONIC`, Apple
    /// `mach_absolute_time`: what Lockstep does not use, and what a port might) moves the offset
    /// by the whole sleep: the first exchange after waking contradicts every older one.
    @Test func aLocalClockThatStoppedInSleepIsCaughtByTheFirstExchange() async {
        let sleep = zip(Gen.int(in: 1..<Self.rounds), Gen.int64(in: minute...24 * hour))
        await propertyCheck(input: Self.legs, Self.gaps, Self.rate, sleep) { legs, gaps, rate, sleep in
            let plan = Self.plan(legs, gaps: gaps)
            let (round, length) = sleep
            let firstAwake = round * PlannedExchange.perRound
            let at = plan[firstAwake].t1 - 1
            let run = FaultRun(plan, truth: ClockTruth(rate: rate, steps: [ClockStep(at: at, by: length)]))
            let late = run.misses.filter { $0.exchanges > firstAwake }
            #expect(late.isEmpty, "\(late.prefix(3))")
        }
    }
}
