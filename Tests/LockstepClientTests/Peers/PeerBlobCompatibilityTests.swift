import Foundation
@testable import LockstepClient
import LockstepCore
import Synchronization
import Testing

/// A peer of the first protocol version (no `"blobs"` in its hello) meets this one.
@Suite("Peer blobs with an older peer")
struct PeerBlobCompatibilityTests {
    @Test("an older peer gets changes as before and never a blob message; its references are not asked of it")
    func olderPeerSeesNoBlobMessages() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "token")
        let peerKey = Array(repeating: UInt8(42), count: 32)
        try client.replica.setPeerKey(Hex.encode(peerKey), bucket: "items")
        let photo = try await client.bucket("items").attach(testBytes(100_000, seed: 3), type: "image/jpeg", to: "box", member: "photo")
        let pipes = PipeTransport()
        let sync = PeerSync(client: client, bucket: "items", transport: pipes)
        try await sync.start()
        let (near, old) = PipeLink.pair()
        pipes.accept(near)

        var incoming = old.incoming.makeAsyncIterator()
        let theirHello = try #require(try await incoming.next())
        let hello = JSONValue.object([
            "lockstep-peer": 1, "peer": "old-phone", "bucket": "items", "nonce": .string(String(repeating: "ab", count: 32)),
        ]).jsonBytes
        try await old.send(hello)
        var keys = PeerKeys(peerKey: peerKey, isInitiator: false, initiatorHello: theirHello, acceptorHello: hello)
        try await old.send(try keys.sealing.seal(PeerMessage.want(0)))
        // A change of its own that refers to a blob this side lacks.
        let theirs = BlobAttachment(sha256: String(repeating: "c", count: 64), size: 10, type: "image/jpeg")
        var edits = MemberEdits()
        edits.assigned = ["photo": theirs.json]
        let change = PeerChange(bucket: "items", key: "crate", changeID: "old-1", author: "old-phone", operation: .modify, edits: edits, editTime: 5)
        try await old.send(try keys.sealing.seal(PeerMessage.changes([LoggedPeerChange(seq: 1, change: change)])))

        let seen = Mutex<[String]>([])
        let reading = Task { [keys] in
            var opener = keys.opening
            while let frame = try await incoming.next() {
                let message = try JSONValue(parsing: try opener.open(frame))
                seen.withLock { $0.append(contentsOf: message.objectValue?.keys.sorted() ?? ["?"]) }
            }
        }
        try await eventually("the older peer's change is taken in") { try client.bucket("items").get("crate") != nil }
        // This side's own change reaches the older peer as before (waited for, not timed: a
        // loaded machine takes its time); then a moment more for any blob message to show.
        try await eventually("this side's change reaches the older peer") { seen.withLock { $0.contains("changes") } }
        try await Task.sleep(for: .milliseconds(500))
        await sync.stop()
        try await reading.value
        let kinds = seen.withLock { $0 }
        #expect(kinds.first == "want")
        #expect(Set(kinds) == ["want", "changes"], "\(kinds)")
        #expect(try client.bucket("items").attachment("photo", of: "box") == photo)
        await client.close()
    }
}
