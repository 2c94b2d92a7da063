import Foundation
import Testing
@testable import lockstep_bench

/// The console in a real browser, each scenario against a server of its own: signing in (and a
/// wrong token refused), an object browsed and edited in the page and received by a second
/// client (its history paged), an object's versions with their authors compared and one
/// restored, a bucket restored to a moment after a dry run, an HTTP write in the live tail, on the overview's count and a
/// presence claim each shown within a second through the socket with no request of its own, a
/// timed-store item shown only from its release second (its key pushed), the clock's offset
/// within its bar, the other views (a space's bucket tailed from the list), and pages of other
/// sites kept out unless their origin is listed. Screenshots go to `.build/console-screenshots/`.
@Suite(
    "Console in a browser", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: ConsoleBrowser.shouldRun, Comment(rawValue: ConsoleBrowser.howToRun)))
struct ConsoleBrowserTests {
    @Test func signsInAndRefusesAWrongToken() async throws {
        try await run("sign_in")
    }

    @Test func showsNothingOfTheDataBeforeSigningInOrAfterSigningOut() async throws {
        try await run("signed_out")
    }

    @Test func editsAnObjectThatASecondClientReceives() async throws {
        // Objects of at most 400 bytes, so that the page meets a refusal too.
        try await run("objects", serverArguments: ["--max-object-bytes", "400"])
    }

    @Test func showsWhoMadeEachVersionComparesAndRestores() async throws {
        try await run("history")
    }

    @Test func countsAnHTTPWriteOnTheOverviewWithinASecondWithoutAsking() async throws {
        try await run("overview")
    }

    @Test func showsANewPresenceClaimWithinASecondWithoutAsking() async throws {
        try await run("presence")
    }

    @Test func showsAnHTTPWriteInTheLiveTailWithinASecond() async throws {
        try await run("tail")
    }

    @Test func opensATimedStoreItemOnlyFromItsReleaseSecond() async throws {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-console-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        // Three slots changing every 2 to 4 s: a release every second or so.
        let configuration = """
            {"stores": [{"id": "main", "slots": 3, "shelfLife": {"min": 2, "max": 4}}],
             "items": [{"id": "sword", "data": {"name": "Sword"}}, {"id": "bow", "data": {"name": "Bow"}},
                       {"id": "shield", "data": {"name": "Shield"}}, {"id": "potion", "data": {"name": "Potion"}},
                       {"id": "helm", "data": {"name": "Helm"}}, {"id": "cloak", "data": {"name": "Cloak"}}]}
            """
        try configuration.write(to: files.appendingPathComponent("store.json"), atomically: true, encoding: .utf8)
        try "console-test-seed-0123456789abcdef0123456789".write(to: files.appendingPathComponent("seed"), atomically: true, encoding: .utf8)
        try await run("store", serverArguments: [
            "--store-config", files.appendingPathComponent("store.json").path, "--store-seed-file", files.appendingPathComponent("seed").path,
        ])
    }

    @Test func showsTheClocksOffsetWithinItsBar() async throws {
        // The server's clock runs 1.5 s ahead of this machine's, and so of the browser's.
        try await run("clock", serverArguments: ["--clock-offset-ms", "1500"])
    }

    @Test func managesUsersBucketsAndPresence() async throws {
        try await run("views")
    }

    /// Pages of other sites, served on a port of their own: the one listed with
    /// `--allowed-origin` (`http://127.0.0.1:P`) reads the API and opens the socket, though not
    /// with the admin token; the same page as `http://localhost:P`, not listed, can do neither.
    /// The console, the server's own page, signs in with the admin token as ever.
    @Test func onlyPagesOfListedOriginsReadTheAPIAndOpenTheSocket() async throws {
        let pagePort = try BenchProcesses.freePort()
        try await run(
            "origins", serverArguments: ["--allowed-origin", "http://127.0.0.1:\(pagePort)"],
            environment: ["LOCKSTEP_PAGE_PORT": String(pagePort)])
    }

    @Test func managesWebhookEndpointsAndShowsDeliveriesWithoutAsking() async throws {
        try await run("webhooks", serverArguments: ["--webhooks-allow-private", "--webhook-retry-base-seconds", "1", "--webhook-retry-max-seconds", "2"])
    }

    private func run(_ scenario: String, serverArguments: [String] = [], environment: [String: String] = [:]) async throws {
        try #require(ConsoleBrowser.isInstalled, "\(ConsoleBrowser.howToRun)")
        let server = try await ConsoleBrowser.startServer(serverArguments)
        defer { server.stop() }
        let result = try await ConsoleBrowser.run(scenario, on: server, environment: environment)
        #expect(result.passed, "\(result.output)\n\(server.process.transcript)")
    }
}
