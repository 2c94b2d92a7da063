import LockstepCore
import LockstepServer
import Testing

/// Key releases pushed over the streaming socket to connections that ask with `release:`.
@Suite("Timed releases over the streaming socket")
struct ReleaseSocketTests {
    @Test(.timeLimit(.minutes(1))) func aSubscribedConnectionGetsEachKeyAtItsRelease() async throws {
        let clock = ServerClockSource()
        let server = try await TestServer.start(releases: try ReleaseFixtures.service(now: clock.now))
        defer { Task { await server.stop() } }
        let listening = try await SocketTestClient.connect(to: server)
        let quiet = try await SocketTestClient.connect(to: server)
        defer { Task { await listening.close(); await quiet.close() } }
        try await listening.send("release:")
        try await listening.send("release:")  // asking twice changes nothing

        let message = try #require(await listening.next(startingWith: "release:", timeout: .seconds(50)))
        let key = try ReleasedKey(json: try JSONValue(parsing: String(message.dropFirst("release:".count))))
        #expect(key.time <= clock.now() / 1_000_000, "pushed before its release")
        let chain = ReleaseKeyChain(seed: try ReleaseSeed(text: ReleaseFixtures.seedText), store: key.store, epoch: key.position.epoch)
        #expect(key.verify(anchor: chain.anchor))
        // Later releases follow in order: the second subscription did not double them.
        let next = try #require(await listening.next(startingWith: "release:", timeout: .seconds(50)))
        let later = try ReleasedKey(json: try JSONValue(parsing: String(next.dropFirst("release:".count))))
        #expect(later != key && later.time >= key.time)

        // A connection that did not ask sees none of it.
        try await quiet.send("h:1")
        #expect(await quiet.next() == "h:2")
    }

    @Test func aServerWithoutATimedStoreSaysSo() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.send("release:")
        let error = try #require(await client.next())
        #expect(error.contains("404") && error.contains("no timed store"), "\(error)")
    }
}
