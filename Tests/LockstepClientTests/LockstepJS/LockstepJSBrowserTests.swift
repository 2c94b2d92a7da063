import Foundation
import Testing

/// lockstep.js in a real browser, each scenario against a server of its own, the library loaded
/// from the server's `/sdk/lockstep.js` and its store in IndexedDB (`lockstepjs_browser.py`):
/// unsent edits survive a reload, and an upgrade of the store's layout; edits made while the
/// browser is offline land once when it is back; two pages, the Swift SDK and simperium3 editing
/// one object at once end with the same bytes; an upload cut short by a reload resumes from the
/// server's offset. Run on their own, as the console's are (`LOCKSTEP_BROWSER_TESTS=1`).
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

    private func run(_ scenario: String) async throws {
        try #require(ConsoleBrowser.isInstalled, "\(ConsoleBrowser.howToRun)")
        let server = try await ConsoleBrowser.startServer()
        defer { server.stop() }
        let result = try await ConsoleBrowser.run(scenario, on: server, script: Self.script)
        #expect(result.passed, "\(result.output)\n\(server.process.transcript)")
    }
}
