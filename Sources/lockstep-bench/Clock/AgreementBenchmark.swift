import CommandLineSupport
import Foundation
import LockstepClient

/// `lockstep-bench clock --agreement`: how closely devices that stay connected agree on one
/// server instant, and how that improves as their continuous calibration goes on.
///
/// For each link, `runs` times: `clients` devices open a streaming socket each through the
/// relay, make their first burst, and calibrate continuously (`ServerClock` with its default
/// budget, as a `LockstepClient` does while connected). At each checkpoint every device says at
/// which local instant it believes the server's clock will read one chosen instant; the
/// p1–p99 spread of those instants is the figure. After the last checkpoint they all sleep
/// until another instant by their own estimates and note when they woke: the wake-ups' spread
/// against the estimates' shows what this machine's scheduling adds, and a zero-delay link
/// (the relay with no delay) shows the same for a link that adds nothing.
struct AgreementBenchmark {
    var clients: Int
    var seconds: Int
    var runs: Int
    var links: [LinkModel]

    /// The checkpoints: right after the first burst, then a sixth, a half and all of the run.
    var checkpoints: [Int] {
        Array(Set([0, seconds / 6, seconds / 2, seconds])).sorted()
    }

    func measure(against server: EmbeddedServer) async throws {
        say("Agreement of \(clients) devices calibrating continuously through one relayed link each run, \(runs) runs a link")
        say("(ServerClock's defaults: a burst of \(ServerClock.Configuration().exchangesPerRound), then up to "
            + "\(ServerClock.ContinuousCalibration().exchangesPerMinute) exchanges a minute over each device's socket)")
        say("load (1 min) at the start: \(loadAverage())\n")
        var verdicts: [(String, Double, Double)] = []
        for link in links {
            let relay = try await DelayRelay.start(targetPort: server.port, link: link)
            let url = URL(string: "http://127.0.0.1:\(relay.port)/")!
            var results: [AgreementRun] = []
            for _ in 0..<runs {
                results.append(await AgreementRun.measure(
                    clients: clients, serverURL: url, clockOffset: server.clockOffset, checkpoints: checkpoints,
                    configuration: ServerClock.Configuration()))
            }
            try await relay.stop()
            report(link: link, results)
            if link.name == LinkModel.gaussian.name, let last = checkpoints.last {
                verdicts.append(("gaussian-10 p1–p99 spread after \(last) s ≤ 4 ms (median run)", medianRun(results, last, \.spread), 4e6))
                verdicts.append(("gaussian-10 p99 |error| after \(last) s ≤ 2 ms (median run)", medianRun(results, last, \.p99Error), 2e6))
            }
        }
        say("load (1 min) at the end: \(loadAverage())")
        guard !verdicts.isEmpty else { return }
        say("\nTargets")
        for (target, measured, limit) in verdicts {
            say("  " + target.padding(toLength: 56, withPad: " ", startingAt: 0)
                + formatNanoseconds(measured).padding(toLength: 11, withPad: " ", startingAt: 0) + (measured <= limit ? "met" : "MISSED"))
        }
    }

    private func report(link: LinkModel, _ results: [AgreementRun]) {
        let failures = results.map(\.failures).reduce(0, +)
        say("\(link.name): up \(link.up), down \(link.down)" + (failures > 0 ? " (\(failures) devices failed to start)" : ""))
        say("  after  exch.   p1–p99 spread         max–min     p99 |err|   uncertainty, holds   bound, holds")
        for seconds in checkpoints {
            let at = results.compactMap { $0.checkpoints.first { $0.seconds == seconds } }
            guard !at.isEmpty else { continue }
            let spreads = at.map(\.spread)
            say("  " + cell("\(seconds) s", 7) + cell(String(format: "%.0f", median(at.map(\.meanExchanges))), 8)
                + cell("\(formatNanoseconds(median(spreads))) [\(formatNanoseconds(spreads.max() ?? .nan))]", 22)
                + cell(formatNanoseconds(median(at.map(\.range))), 12) + cell(formatNanoseconds(median(at.map(\.p99Error))), 12)
                + cell("± \(formatNanoseconds(median(at.map(\.medianUncertainty)))), \(percent(at.map(\.uncertaintyCoverage)))", 21)
                + "± \(formatNanoseconds(median(at.map(\.medianBound)))), \(percent(at.map(\.boundCoverage)))")
        }
        let wakes = results.map(\.wakeSpread)
        say("  woken for one server instant: p1–p99 spread \(formatNanoseconds(median(wakes))) [\(formatNanoseconds(wakes.max() ?? .nan))], "
            + "late by \(formatNanoseconds(median(results.map(\.medianWakeLateness)))) (median), "
            + "\(formatNanoseconds(median(results.map(\.p99WakeLateness)))) (p99)\n")
    }

    private func medianRun(_ results: [AgreementRun], _ seconds: Int, _ figure: KeyPath<AgreementRun.Checkpoint, Double>) -> Double {
        median(results.compactMap { $0.checkpoints.first { $0.seconds == seconds }?[keyPath: figure] })
    }

    /// The lowest coverage of the runs, as a percentage.
    private func percent(_ fractions: [Double]) -> String {
        String(format: "%.1f %%", (fractions.min() ?? .nan) * 100)
    }

    private func cell(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}

/// The 1-minute load average, as `uptime` prints it.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "unknown"
}
