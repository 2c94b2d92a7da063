import Foundation
import LockstepClient
import LockstepCore
import Testing

/// The convergence checker's first find (seed 14 on SQLite, shrunk from 60 steps to 6): two
/// devices insert into the same string concurrently, one through the server and one offline,
/// and the offline one then meets the other as a peer. Peers passed members whole (last
/// writer wins), so the later insert replaced the string and the earlier one, acknowledged by
/// the server already, was lost everywhere. Peers now pass a text edit with the text it was
/// made from and merge it as a text patch (rule 2), as the server does.
@Suite("Convergence: concurrent text edits through peers")
struct PeerTextMergeTests {
    static let bucket = "notes"

    @Test("an insert acknowledged by the server survives a concurrent insert that arrives through a peer")
    func peersMergeConcurrentTextEdits() async throws {
        let devices = try await TwoDevices.start(bucket: Self.bucket)
        let (server, token, times, clients, notes) = (devices.server, devices.token, devices.times, devices.clients, devices.buckets)
        for client in clients { await client.sync.start() }
        for client in clients { try await PeerSync(client: client, bucket: Self.bucket, transport: PipeTransport()).prepare() }
        try await notes[0].put("note", ["text": ""])
        try await eventually("the note reaches the second device") { try notes[1].get("note") != nil }

        // The first device goes offline; the second inserts, and the server acknowledges it.
        await clients[0].sync.stop()
        times[1].set(11_000)
        try await notes[1].update("note") { $0["text"] = "[t15]" }
        try await clients[1].sync.waitUntilIdle()
        // Offline, later by corrected time, the first device inserts into the string it holds.
        times[0].set(26_000)
        try await notes[0].update("note") { $0["text"] = "[t27]" }

        // They meet as peers, then both sync with the server.
        let pipes = [PipeTransport(), PipeTransport()]
        let peers = (0..<2).map { PeerSync(client: clients[$0], bucket: Self.bucket, transport: pipes[$0]) }
        for peer in peers { try await peer.start() }
        pipes[0].link(to: pipes[1])
        try await eventually("the insert passes to the second device") {
            try notes[1].get("note")?["text"]?.stringValue?.contains("[t27]") == true
        }
        for peer in peers { await peer.stop() }
        await clients[0].sync.start()
        for client in clients { try await client.sync.waitUntilIdle() }
        try await eventually("both devices hold what the server holds") {
            let onServer = try await server.objects(Self.bucket, token: token)
            return try notes.allSatisfy { try $0.get("note") == onServer["note"] }
        }

        let text = try await server.objects(Self.bucket, token: token)["note"]?["text"]?.stringValue ?? ""
        #expect(text.contains("[t27]"))
        #expect(text.contains("[t15]"), "the insert the server acknowledged is lost: \"\(text)\"")
        #expect(text.count == "[t15][t27]".count, "each insert lands once: \"\(text)\"")
        await devices.stop()
    }
}
