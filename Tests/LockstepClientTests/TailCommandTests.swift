import Foundation
import LockstepCore
import Testing

/// `lockstep tail`, run as a separate process against a real server.
@Suite("lockstep tail")
struct TailCommandTests {
    @Test func listsTheBucketThenPrintsEachChangeLive() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        #expect(try await server.request("POST", "note/i/before", token: token, body: ["title": "old"]).status == 200)
        let tail = try ToolProcess.launch(
            "lockstep", name: "tail", arguments: ["tail", "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token, "note"])
        defer { tail.kill() }

        let listed = await tail.next(startingWith: "listed at cv ", within: .seconds(30))
        #expect(listed != nil, "\(tail.transcript)")
        #expect(tail.transcript.contains("  before  v1  {\"title\":\"old\"}"), "\(tail.transcript)")

        #expect(try await server.request("POST", "note/i/after", token: token, body: ["title": "new"]).status == 200)
        #expect(try await server.request("DELETE", "note/i/before", token: token).status == 200)
        try await eventually("tail printed both changes") {
            tail.transcript.contains("  after  v1  created  +title=\"new\"") && tail.transcript.contains("  before  v1 → v2  removed")
        }
        await server.stop()
    }

    /// A server (or proxy) that closes the connection after the upgrade request, or says
    /// nothing, ends the command with a reason instead of holding it for good.
    @Test(arguments: [UnansweringListener.Manner.close, .silence])
    func givesUpOnAServerThatNeverAnswersTheUpgrade(_ manner: UnansweringListener.Manner) async throws {
        let listener = try UnansweringListener(manner)
        defer { listener.stop() }
        let tail = try ToolProcess.launch(
            "lockstep", name: "tail",
            arguments: ["tail", "--url", "http://127.0.0.1:\(listener.port)", "--app", "app", "--token", "token", "--connect-timeout", "1", "note"])
        defer { tail.kill() }
        let status = await tail.exitStatus(within: .seconds(30))
        #expect(status != nil && status != 0, "\(tail.transcript)")
        #expect(tail.transcript.contains("did not answer the socket's upgrade within"), "\(tail.transcript)")
    }
}
