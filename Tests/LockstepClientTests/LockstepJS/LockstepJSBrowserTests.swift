import Foundation
import LockstepCore
import Testing
@testable import lockstep_bench

/// lockstep.js in a real browser, each scenario against a server of its own, the library loaded
/// from the server's `/sdk/lockstep.js` and its store in IndexedDB (`lockstepjs_browser.py`):
/// unsent edits survive a reload, and an upgrade of the store's layout; edits made while the
/// browser is offline land once when it is back; two pages, the Swift SDK and simperium3 editing
/// one object at once end with the same bytes; an upload cut short by a reload resumes from the
/// server's offset; the inventory's customer portal works as a customer uses it. Run on their
/// own, as the console's are (`LOCKSTEP_BROWSER_TESTS=1`).
@Suite(
    "lockstep.js in a browser", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: ConsoleBrowser.shouldRun, Comment(rawValue: ConsoleBrowser.howToRun)))
struct LockstepJSBrowserTests {
    static let script = ExternalPaths.repositoryRoot.appendingPathComponent("Tests/LockstepClientTests/LockstepJS/lockstepjs_browser.py")

    @Test func unsentEditsSurviveAReloadAndLandOnce() async throws {
        try await run("reload")
    }

    @Test func aStoreOfTheFirstIndexedDBLayoutKeepsItsUnsentEditsWhenUpgraded() async throws {
        try await run("upgrade")
    }

    @Test func editsMadeOfflineLandOnceWhenTheBrowserIsBack() async throws {
        try await run("offline")
    }

    @Test func twoPagesTheSwiftSDKAndSimperiumConvergeToTheSameBytes() async throws {
        try await run("converge")
    }

    @Test func anUploadCutShortByAReloadResumesFromTheServersOffset() async throws {
        try await run("upload")
    }

    /// The inventory's customer portal, served by the server's `--static-dir`: a customer signs
    /// in, follows their job's items and photos live as a mover changes them with the Swift SDK,
    /// marks one "please return", and is still signed in after a reload; the same files served by
    /// another static server, on an origin listed with `--allowed-origin`, work as well.
    @Test func theInventorysCustomerPortalFollowsTheJobLiveAndSendsAReturnRequest() async throws {
        let portal = ExternalPaths.repositoryRoot.appendingPathComponent("Examples/InventoryPortal").path
        let pagePort = try BenchProcesses.freePort()
        try await run("portal", serving: ["--static-dir", portal, "--allowed-origin", "http://127.0.0.1:\(pagePort)"]) { server in
            let credentials = try JSONValue(parsing: Array(try Data(contentsOf: server.directory.appendingPathComponent("data/default-app.json"))))
            return ["LOCKSTEP_API_KEY": try #require(credentials["api_key"]?.stringValue), "LOCKSTEP_PAGE_PORT": String(pagePort)]
        }
    }

    private func run(
        _ scenario: String, serving arguments: [String] = [],
        environment: (ConsoleBrowser.Server) throws -> [String: String] = { _ in [:] }
    ) async throws {
        try #require(ConsoleBrowser.isInstalled, "\(ConsoleBrowser.howToRun)")
        let server = try await ConsoleBrowser.startServer(arguments)
        defer { server.stop() }
        let result = try await ConsoleBrowser.run(scenario, on: server, script: Self.script, environment: try environment(server))
        #expect(result.passed, "\(result.output)\n\(server.process.transcript)")
    }
}
