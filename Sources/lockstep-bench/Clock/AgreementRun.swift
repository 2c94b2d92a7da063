import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// Many devices calibrating against one server through one relayed link, asked at moments
/// after their first burst when they believe one server instant happens. All of them read
/// this machine's monotonic clock, so their answers can be set side by side: the spread of
/// those local instants is how far apart their countdowns would hit zero.
struct AgreementRun {
    /// What the clients said at one moment of the run.
    struct Checkpoint {
        /// Seconds since the last client's first burst ended.
        var seconds: Int
        var clients: Int
        /// From the 1st to the 99th percentile of the local instants the clients gave for one
        /// server instant, nanoseconds; and from the earliest to the latest.
        var spread: Double
        var range: Double
        /// Median and 99th percentile of |estimated offset − true offset|, nanoseconds.
        var medianError: Double
        var p99Error: Double
        /// The clients' median uncertainty and error bound, nanoseconds.
        var medianUncertainty: Double
        var medianBound: Double
        /// The fractions of clients whose uncertainty, and whose bound, held the truth.
        var uncertaintyCoverage: Double
        var boundCoverage: Double
        /// Exchanges per client so far, on average.
        var meanExchanges: Double
    }

    var checkpoints: [Checkpoint]
    /// The clients' wake-ups for one server instant after the last checkpoint, each sleeping on
    /// its own estimate (`ServerClock.sleep(untilServerTime:)`): their p1–p99 spread, and the
    /// median and 99th percentile of how late they woke against the true instant, nanoseconds.
    /// Beside the estimates' spread, the difference is what this machine's scheduling adds.
    var wakeSpread: Double
    var medianWakeLateness: Double
    var p99WakeLateness: Double
    /// Clients that failed to start (their first burst failed).
    var failures: Int

    /// Starts `clients` devices on `serverURL` at once, reads them at each of `checkpoints`
    /// after the last one's first burst, then has them all wake for one server instant.
    static func measure(
        clients count: Int, serverURL: URL, clockOffset: Int64, checkpoints: [Int], configuration: ServerClock.Configuration
    ) async -> AgreementRun {
        let started = await withTaskGroup(of: AgreementClient?.self) { group in
            for _ in 0..<count {
                group.addTask { try? await AgreementClient.start(serverURL: serverURL, configuration: configuration) }
            }
            return await group.reduce(into: [AgreementClient]()) { if let client = $1 { $0.append(client) } }
        }
        let origin = ContinuousTimeSource().now()
        var readings: [Checkpoint] = []
        for seconds in checkpoints {
            try? await ContinuousTimeSource().sleep(until: origin + Int64(seconds) * 1_000_000_000)
            readings.append(reading(of: started, clockOffset: clockOffset, seconds: seconds))
        }
        let wake = await wakeUps(of: started, clockOffset: clockOffset)
        await withTaskGroup(of: Void.self) { group in
            for client in started { group.addTask { await client.stop() } }
        }
        return AgreementRun(
            checkpoints: readings, wakeSpread: wake.spread, medianWakeLateness: wake.medianLateness,
            p99WakeLateness: wake.p99Lateness, failures: count - started.count)
    }

    /// Where every client places the server instant one second from now.
    private static func reading(of clients: [AgreementClient], clockOffset: Int64, seconds: Int) -> Checkpoint {
        let truth = WallClock.offsetFromMonotonic() + clockOffset
        let trueLocal = ContinuousTimeSource().now() + 1_000_000_000
        let instant = trueLocal + truth
        var locals: [Double] = [], errors: [Double] = [], uncertainties: [Double] = [], bounds: [Double] = []
        var uncertaintyHolds = 0, boundHolds = 0
        for client in clients {
            guard let estimate = client.clock.estimate else { continue }
            locals.append(Double(estimate.localInstant(atServerTime: instant)))
            let error = estimate.offset(at: trueLocal) - truth
            let (uncertainty, bound) = (estimate.uncertainty(at: trueLocal), estimate.errorBound(at: trueLocal))
            errors.append(Double(error.magnitude))
            uncertainties.append(Double(uncertainty))
            bounds.append(Double(bound))
            if error.magnitude <= uncertainty.magnitude { uncertaintyHolds += 1 }
            if error.magnitude <= bound.magnitude { boundHolds += 1 }
        }
        locals.sort()
        errors.sort()
        let answered = Double(max(locals.count, 1))
        return Checkpoint(
            seconds: seconds, clients: locals.count,
            spread: quantile(0.99, of: locals) - quantile(0.01, of: locals), range: (locals.last ?? .nan) - (locals.first ?? .nan),
            medianError: quantile(0.5, of: errors), p99Error: quantile(0.99, of: errors),
            medianUncertainty: quantile(0.5, of: uncertainties.sorted()), medianBound: quantile(0.5, of: bounds.sorted()),
            uncertaintyCoverage: Double(uncertaintyHolds) / answered, boundCoverage: Double(boundHolds) / answered,
            meanExchanges: Double(clients.map(\.exchangeCount).reduce(0, +)) / Double(max(clients.count, 1)))
    }

    /// Every client sleeps until the server instant two seconds from now by its own estimate,
    /// and notes when it woke.
    private static func wakeUps(of clients: [AgreementClient], clockOffset: Int64) async
        -> (spread: Double, medianLateness: Double, p99Lateness: Double)
    {
        let truth = WallClock.offsetFromMonotonic() + clockOffset
        let trueLocal = ContinuousTimeSource().now() + 2_000_000_000
        let instant = trueLocal + truth
        let woken = await withTaskGroup(of: Int64?.self) { group in
            for client in clients {
                group.addTask {
                    guard (try? await client.clock.sleep(untilServerTime: instant)) != nil else { return nil }
                    return ContinuousTimeSource().now()
                }
            }
            return await group.reduce(into: [Double]()) { if let at = $1 { $0.append(Double(at)) } }
        }.sorted()
        let lateness = woken.map { $0 - Double(trueLocal) }
        return (
            quantile(0.99, of: woken) - quantile(0.01, of: woken), quantile(0.5, of: lateness),
            quantile(0.99, of: lateness))
    }
}
