import Crypto
import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// Attachment bytes over peer links: real TCP on 127.0.0.1 between real client stores, with
/// the server down, then back.
@Suite("Peer blobs", .serialized)
struct PeerBlobTests {
    static let bucket = "items"

    @Test("20 photos move between two devices over the LAN with the server down; back online, the first to sync uploads them, once, and the other's sync ends without errors")
    func photosThroughPeers() async throws {
        // One account on two devices: the server counts an upload complete for the account.
        let (up, total) = try await movePhotos(sameAccount: true)
        #expect(up.lead > total)
        #expect(up.mover < total / 10, "\(up.mover) bytes up from the mover's phone: no photo went twice")
    }

    @Test("between two accounts, the device that syncs second uploads the photos again (each account proves it holds them), and its sync ends without errors")
    func photosThroughPeersBetweenAccounts() async throws {
        let (up, total) = try await movePhotos(sameAccount: false)
        #expect(up.lead > total)
        #expect(up.mover > total)
    }

    /// 20 photos attached on the mover's phone (A) reach the lead's (B) over the LAN with the
    /// server down; then B syncs, then A. Returns the bytes each sent up, and the photos' total.
    func movePhotos(sameAccount: Bool) async throws -> (up: (mover: Int, lead: Int), total: Int) {
        var server = try await TestServer.start()
        _ = try await server.request("POST", "__options__/i/\(Self.bucket)", token: server.app.adminToken, body: ["shared": true])
        let token = try await server.createUser("mover@example.com")
        let leadToken = sameAccount ? token : try await server.createUser("lead@example.com")
        let (relayA, relayB) = (try await CountingRelay.start(targetPort: server.port), try await CountingRelay.start(targetPort: server.port))
        defer { Task { await relayA.stop(); await relayB.stop() } }
        let stores = [temporaryStore(), temporaryStore()]
        defer { stores.forEach(removeStore) }
        let a = try Self.client(store: stores[0], relay: relayA, server: server, token: token)
        let b = try Self.client(store: stores[1], relay: relayB, server: server, token: leadToken)
        let lans = [LocalNetworkTransport(configuration: PeerSyncTests.lan()), LocalNetworkTransport(configuration: PeerSyncTests.lan())]
        let peers = [PeerSync(client: a, bucket: Self.bucket, transport: lans[0]), PeerSync(client: b, bucket: Self.bucket, transport: lans[1])]
        for sync in peers { try await sync.prepare() }

        // On site: no server. The mover photographs 20 items.
        await server.stop(keepingFiles: true)
        let photos = (0..<20).map { testBytes(200_000 + $0 * 15_000, seed: UInt8(100 + $0)) }
        let total = photos.reduce(0) { $0 + $1.count }
        var attached: [BlobAttachment] = []
        for (index, bytes) in photos.enumerated() {
            attached.append(try await a.bucket(Self.bucket).attach(bytes, type: "image/jpeg", to: "item-\(index)", member: "photo"))
        }

        // The lead's phone meets the mover's on the local network and gets every photo.
        let started = ContinuousClock.now
        for sync in peers { try await sync.start() }
        lans[0].connect(host: "127.0.0.1", port: try #require(lans[1].port))
        let lead = try b.bucket(Self.bucket)
        try await eventually("the lead's phone holds every photo", timeout: .seconds(60)) {
            try attached.allSatisfy { photo in try b.replica.database.read { db in try AttachmentRecords.isStored(db, photo.sha256) } }
        }
        let elapsed = ContinuousClock.now - started
        for (index, bytes) in photos.enumerated() {
            let seen = try #require(try lead.attachment("photo", of: "item-\(index)"))
            let read = try await lead.data(for: seen)
            #expect(BlobHash(digest: SHA256.hash(data: read)).hex == seen.sha256 && read == bytes)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("peer blobs: \(total) bytes in \(seconds) s, \(Double(total) / seconds / 1e6) MB/s (with the changes and the handshake)")
        for sync in peers { await sync.stop() }

        // Back in reach: the lead's phone syncs first and uploads every photo (the server refuses
        // the carried references once, 424, and the SDK uploads from the peer's copy).
        server = try await server.restart()
        await b.sync.start()
        try await b.sync.waitUntilIdle()
        let onServer = try await server.objects(Self.bucket, token: leadToken)
        for (index, photo) in attached.enumerated() { #expect(onServer["item-\(index)"]?["photo"] == photo.json) }
        #expect(try b.outbox.rejected.isEmpty && b.uploads.isEmpty)

        // Then the mover's phone: its changes are in, its uploads find the blobs complete.
        await a.sync.start()
        try await a.sync.waitUntilIdle()
        try await eventually("the mover's outbox is empty") { try a.outbox.pending.isEmpty }
        #expect(try a.outbox.rejected.isEmpty && a.uploads.isEmpty)
        print("peer blobs: \(relayB.bytesUp) bytes up from the lead's phone, \(relayA.bytesUp) from the mover's, \(total) in photos")
        #expect(try await server.objects(Self.bucket, token: token) == onServer)

        await a.close()
        await b.close()
        await server.stop()
        return ((relayA.bytesUp, relayB.bytesUp), total)
    }

    @Test("a link cut while photos move: a new link asks for the rest and every photo arrives whole")
    func cutLinkResumes() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let stores = [temporaryStore(), temporaryStore()]
        defer { stores.forEach(removeStore) }
        let a = try server.client(store: stores[0], token: token)
        let b = try server.client(store: stores[1], token: token)
        try await PeerSync(client: a, bucket: Self.bucket, transport: PipeTransport()).prepare()
        try await PeerSync(client: b, bucket: Self.bucket, transport: PipeTransport()).prepare()
        await server.stop()

        let photos = (0..<20).map { testBytes(400_000 + $0 * 5_000, seed: UInt8(150 + $0)) }
        var attached: [BlobAttachment] = []
        for (index, bytes) in photos.enumerated() {
            attached.append(try await a.bucket(Self.bucket).attach(bytes, type: "image/jpeg", to: "item-\(index)", member: "photo"))
        }
        // Small chunks, so the cut falls inside a photo.
        let configuration = PeerSync.Configuration(blobChunkBytes: 16 << 10)
        let lanB = LocalNetworkTransport(configuration: PeerSyncTests.lan())
        let receiver = PeerSync(client: b, bucket: Self.bucket, transport: lanB, configuration: configuration)
        try await receiver.start()
        let held = { try attached.filter { photo in try b.replica.database.read { db in try AttachmentRecords.isStored(db, photo.sha256) } }.count }

        let lanA = LocalNetworkTransport(configuration: PeerSyncTests.lan())
        let sender = PeerSync(client: a, bucket: Self.bucket, transport: lanA, configuration: configuration)
        try await sender.start()
        lanA.connect(host: "127.0.0.1", port: try #require(lanB.port))
        try await eventually("a photo arrived", timeout: .seconds(60)) { try held() >= 1 }
        await sender.stop()
        let before = try held()
        #expect(before < attached.count, "the cut came before the end")
        print("peer blobs: cut after \(before) photos")

        let lanAgain = LocalNetworkTransport(configuration: PeerSyncTests.lan())
        let again = PeerSync(client: a, bucket: Self.bucket, transport: lanAgain, configuration: configuration)
        try await again.start()
        lanAgain.connect(host: "127.0.0.1", port: try #require(lanB.port))
        try await eventually("every photo arrived", timeout: .seconds(60)) { try held() == attached.count }
        let lead = try b.bucket(Self.bucket)
        for (index, bytes) in photos.enumerated() {
            #expect(try await lead.data(for: attached[index]) == bytes)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: b.replica.blobFiles.directory.path).filter { $0.hasPrefix(".peer-") }
        #expect(left.isEmpty, "no partial file stays behind")

        await again.stop()
        await receiver.stop()
        await a.close()
        await b.close()
    }

    static func client(store: URL, relay: CountingRelay, server: TestServer, token: String) throws -> LockstepClient {
        var configuration = LockstepClient.Configuration(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
        configuration.logger.logLevel = .warning
        return try LockstepClient(
            storeDirectory: store, server: URL(string: "http://127.0.0.1:\(relay.port)")!, app: server.appID, token: token,
            configuration: configuration)
    }
}
