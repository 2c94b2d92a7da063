import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient

/// `lockstep-bench clock`: how close `ServerClock` gets to a server's time.
///
/// A real Lockstep server runs in this process with its clock set a known offset ahead, and
/// fresh clients (each its own HTTP connection, `ServerClock` on the real `ContinuousClock`)
/// calibrate against it: directly on loopback, then through a relay that delays each direction
/// by the delay models of `notes/clock.md`. Client and server read the same machine's clock, so
/// each estimate's error is known exactly. Every figure is set beside a single-exchange client
/// (plain SNTP θ) measured in the same run, interleaved, so the ratio holds on a busy machine.
struct BenchClock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Accuracy of ServerClock against a server with a known clock offset, on loopback and through delaying links.")

    @Option(help: "Clients calibrated one after another on loopback, for each kind of client.")
    var loopbackTrials = 1000
    @Option(help: "Clients calibrated through the relay, for each link and kind of client.")
    var relayTrials = 1000
    @Option(help: "Clients calibrating at once through the relay.")
    var concurrency = 50
    @Option(help: "Clients calibrated at once to see how far apart their estimates land.")
    var spreadClients = 100
    @Option(help: "How many times that spread is measured, for each link and kind of client.")
    var spreadRuns = 5
    @Option(help: "The most exchanges ServerClock makes per calibration.")
    var exchanges = ServerClock.Configuration().exchangesPerRound
    @Option(name: .customLong("target-bound-us"), help: "Stop a round once the bar is this tight (default: ServerClock's).")
    var targetBoundMicroseconds: Double?
    @Option(name: .customLong("offset-ms"), help: "How far ahead of this machine's clock the server's is set.")
    var offsetMilliseconds = 1234.567
    @Option(help: "How clients reach the server's clock: http (a new connection each, GET /time) or socket (t: frames over a socket opened first).")
    var transport: ClockTransportKind = .http
    @Option(parsing: .upToNextOption, help: "The relayed links to measure (default: all).")
    var links: [String] = LinkModel.all.map(\.name)
    @Flag(name: .customLong("legs"), help: "Also print how ServerClock's exchanges crossed each relayed link, by place in the round.")
    var showsLegs = false
    @Flag(help: "Instead: how closely devices calibrating continuously over their sockets agree on one server instant, as they go on.")
    var agreement = false
    @Option(help: "With --agreement: the devices on each link.")
    var agreementClients = 100
    @Option(help: "With --agreement: how long the devices calibrate after their first burst, in seconds.")
    var agreementSeconds = 60
    @Option(help: "With --agreement: the runs on each link (the median run is reported).")
    var agreementRuns = 3

    func validate() throws {
        guard loopbackTrials >= 1, relayTrials >= 1, spreadClients >= 2, spreadRuns >= 1 else {
            throw ValidationError("trial counts must be at least 1 (2 clients for a spread)")
        }
        for name in links where LinkModel.named(name) == nil {
            throw ValidationError("no link named \(name); the links are \((LinkModel.all + [.zeroDelay]).map(\.name).joined(separator: ", "))")
        }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard (1...32).contains(exchanges) else { throw ValidationError("--exchanges must be 1 to 32") }
        guard agreementClients >= 2, agreementSeconds >= 0, agreementRuns >= 1 else {
            throw ValidationError("--agreement-clients must be at least 2, --agreement-runs at least 1, --agreement-seconds not negative")
        }
    }

    func run() async throws {
        #if DEBUG
        say("warning: a debug build; build with -c release for meaningful figures")
        #endif
        let server = try await EmbeddedServer.start(clockOffset: Int64((offsetMilliseconds * 1e6).rounded()))
        do {
            if agreement {
                // The zero-delay link last, as the baseline of what the machine adds.
                let measured = links.compactMap(LinkModel.named).filter { $0.name != LinkModel.zeroDelay.name } + [.zeroDelay]
                try await AgreementBenchmark(clients: agreementClients, seconds: agreementSeconds, runs: agreementRuns, links: measured)
                    .measure(against: server)
            } else {
                try await measure(against: server)
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The two clients compared: a plain single exchange, and `ServerClock` as apps use it.
    private var clients: (baseline: ClientKind, measured: ClientKind) {
        (ClientKind(name: "1 exchange (SNTP θ)", exchanges: 1),
         ClientKind(name: "ServerClock ≤ \(exchanges) exch.", exchanges: exchanges, targetBound: targetBoundMicroseconds))
    }

    private func measure(against server: EmbeddedServer) async throws {
        let how = transport == .http ? "over HTTP" : "over a streaming socket"
        say("ServerClock \(how) against an in-process Lockstep server set \(String(format: "%+.3f", offsetMilliseconds)) ms ahead")
        say("\(ProcessInfo.processInfo.activeProcessorCount) CPUs; every client is new: its own connection, one round of exchanges\n")
        let table = ResultTable(clients: clients)
        table.header()

        let loopback = await compare(url: server.baseURL, server: server, trials: loopbackTrials, concurrency: 1)
        table.rows(link: "loopback", loopback)

        var spreads: [(link: LinkModel, baseline: [ClockSpread], measured: [ClockSpread])] = []
        var relayed: [(link: LinkModel, figures: (baseline: ClockFigures, measured: ClockFigures))] = []
        for link in links.compactMap(LinkModel.named) {
            let relay = try await DelayRelay.start(targetPort: server.port, link: link)
            let url = URL(string: "http://127.0.0.1:\(relay.port)/")!
            let figures = await compare(url: url, server: server, trials: relayTrials, concurrency: concurrency)
            table.rows(link: "\(link.name): up \(link.up), down \(link.down)", figures)
            relayed.append((link, figures))
            if showsLegs { figures.measured.legs.lines().forEach { say($0) } }
            var baseline: [ClockSpread] = [], measured: [ClockSpread] = []
            for _ in 0..<spreadRuns {
                baseline.append(await spread(of: clients.baseline, url: url, server: server))
                measured.append(await spread(of: clients.measured, url: url, server: server))
            }
            spreads.append((link, baseline, measured))
            try await relay.stop()
        }

        say("\nAgreement of \(spreadClients) clients calibrated at once through the relay (median of \(spreadRuns) runs; worst run in brackets)")
        say("link          client                     p1–p99 spread          max–min")
        for (link, baseline, measured) in spreads {
            for (client, runs) in [(clients.baseline, baseline), (clients.measured, measured)] {
                say(pad(link.name, 14) + pad(client.name, 27) + pad(summary(runs.map(\.p1ToP99)), 23) + summary(runs.map(\.range)))
            }
        }

        say("\nTargets")
        verdict("loopback median |error| ≤ 50 µs", loopback.measured.medianError, limit: 50e3)
        verdict("loopback p99 |error| ≤ 250 µs", loopback.measured.p99Error, limit: 250e3)
        for (link, figures) in relayed {
            verdict("\(link.name) p99 |error| ≤ 12 ms", figures.measured.p99Error, limit: 12e6, floor: link.floor?.p99)
        }
        for (link, _, measured) in spreads {
            verdict(
                "\(link.name) \(spreadClients) clients p1–p99 ≤ 20 ms (median run)", median(measured.map(\.p1ToP99)), limit: 20e6,
                floor: link.floor?.spread)
        }
    }

    /// Both clients, trials interleaved so that a change in the machine's load hits both alike.
    private func compare(
        url: URL, server: EmbeddedServer, trials: Int, concurrency: Int
    ) async -> (baseline: ClockFigures, measured: ClockFigures) {
        let plan = (0..<trials).flatMap { _ in [clients.baseline.configuration, clients.measured.configuration] }
        let results = await ClockTrial.runMany(plan, concurrency: concurrency, serverURL: url, clockOffset: server.clockOffset, over: transport)
        let evens = stride(from: 0, to: results.count, by: 2).map { results[$0] }
        let odds = stride(from: 1, to: results.count, by: 2).map { results[$0] }
        return (ClockFigures(evens), ClockFigures(odds))
    }

    private func spread(of client: ClientKind, url: URL, server: EmbeddedServer) async -> ClockSpread {
        let plan = Array(repeating: client.configuration, count: spreadClients)
        return ClockSpread(await ClockTrial.runMany(plan, concurrency: spreadClients, serverURL: url, clockOffset: server.clockOffset, over: transport))
    }

    private func summary(_ runs: [Double]) -> String {
        "\(formatNanoseconds(median(runs))) [\(formatNanoseconds(runs.max() ?? .nan))]"
    }

    /// Whether a target is met; on a stress link whose `floor` (the best any estimator can do)
    /// lies above it, the figure is set beside that floor instead.
    private func verdict(_ target: String, _ measured: Double, limit: Double, floor: Double? = nil) {
        let outcome = if let floor, floor > limit {
            "stress link: the floor is \(formatNanoseconds(floor))"
        } else {
            measured <= limit ? "met" : "MISSED"
        }
        say("  " + pad(target, 52) + pad(formatNanoseconds(measured), 11) + outcome)
    }
}

/// A kind of client the benchmark compares.
struct ClientKind {
    var name: String
    var configuration: ServerClock.Configuration

    init(name: String, exchanges: Int, targetBound microseconds: Double? = nil) {
        self.name = name
        // ServerClock's own stopping rule applies: a round ends early once its bar is tight.
        configuration = ServerClock.Configuration(exchangesPerRound: exchanges)
        if let microseconds { configuration.targetErrorBound = .nanoseconds(Int64(microseconds * 1e3)) }
    }
}

/// The accuracy table, printed a section at a time as the measurements finish.
private struct ResultTable {
    let clients: (baseline: ClientKind, measured: ClientKind)

    func header() {
        say(pad("link", 50) + pad("client", 27) + "trials  median |err|  p99 |err|   median bar  bar holds  exchanges")
    }

    func rows(link: String, _ figures: (baseline: ClockFigures, measured: ClockFigures)) {
        for (index, (client, row)) in [(clients.baseline, figures.baseline), (clients.measured, figures.measured)].enumerated() {
            say(pad(index == 0 ? link : "", 50) + pad(client.name, 27)
                + pad(String(row.trials) + (row.failures > 0 ? " (\(row.failures) failed)" : ""), 8)
                + pad(formatNanoseconds(row.medianError), 14) + pad(formatNanoseconds(row.p99Error), 12)
                + pad("± " + formatNanoseconds(row.medianBound), 13)
                + pad(String(format: "%.1f %%", row.coverage * 100), 11) + String(format: "%.2f", row.meanExchanges))
        }
        say(pad("", 50) + pad("ratio, single ÷ ServerClock", 35)
            + pad(String(format: "×%.1f", figures.baseline.medianError / figures.measured.medianError), 14)
            + String(format: "×%.1f", figures.baseline.p99Error / figures.measured.p99Error))
    }
}

private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
