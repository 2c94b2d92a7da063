import Foundation
@testable import lockstep
@testable import lockstep_bench
import LockstepClient
import Testing

/// The clock benchmark's clients, over each transport, through a relay with fixed delays: they
/// find the server's offset within their bar, and the legs they report are the link's.
@Suite struct ClockTrialTests {
    @Test(.timeLimit(.minutes(1)), arguments: ClockTransportKind.allCases)
    func aTrialFindsTheOffsetAndSeesTheLinksLegs(over transport: ClockTransportKind) async throws {
        let offset: Int64 = 987_654_321
        let server = try await EmbeddedServer.start(clockOffset: offset)
        let link = LinkModel(name: "fixed", up: .fixed(milliseconds: 3), down: .fixed(milliseconds: 12))
        let relay = try await DelayRelay.start(targetPort: server.port, link: link)
        let trial = try await ClockTrial.run(
            serverURL: URL(string: "http://127.0.0.1:\(relay.port)/")!, clockOffset: offset,
            configuration: .init(exchangesPerRound: 4), over: transport)
        try await relay.stop()
        await server.stop()

        #expect(trial.isCovered)
        #expect(trial.exchanges == 4)
        // A fixed 9 ms asymmetry costs 4.5 ms, which the bar must own up to.
        #expect(trial.errorBound >= 4_500_000)
        for (place, legs) in trial.legs.enumerated() {
            #expect(legs.up >= 3_000_000 && legs.down >= 12_000_000, "exchange \(place + 1): \(legs)")
        }
        // Over HTTP the first exchange opened its connection: its request waited a handshake.
        // (Over the socket the upgrade request did; how fast the first frame went after it
        // depends on the machine's load, so no upper bound is asserted.)
        if transport == .http {
            #expect(trial.legs[0].up >= 3_000_000 + 15_000_000)
        }
    }
}
