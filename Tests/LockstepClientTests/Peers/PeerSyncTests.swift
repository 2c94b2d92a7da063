import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import NIOCore
import Testing

/// Peer sync over real TCP between real client stores, around a real server that stops and
/// comes back.
@Suite("Peer sync", .serialized)
struct PeerSyncTests {
    static let bucket = "items"

    @Test("three movers' phones with the server down converge, two over the local network, the third joining later; back online, everyone and the server agree, each change applied once")
    func offlineTeamConverges() async throws {
        var server = try await TestServer.start()
        _ = try await server.request("POST", "__options__/i/\(Self.bucket)", token: server.app.adminToken, body: ["shared": true])
        let times = (0..<3).map { _ in ManualEditTimes(1_000) }
        let stores = (0..<3).map { _ in temporaryStore() }
        defer { stores.forEach(removeStore) }
        var tokens: [String] = []
        for index in 0..<3 { tokens.append(try await server.createUser("mover-\(index)@example.com")) }
        var clients = try (0..<3).map { try server.client(store: stores[$0], token: tokens[$0], transport: .socket, editTimes: times[$0]) }
        let (a, b) = (clients[0], clients[1])
        var items = try clients.map { try $0.bucket(Self.bucket) }

        // The morning, online: the job's items reach every phone, and each phone its peer key.
        for key in ["sofa", "boxes", "mirror"] { try await items[0].put(key, ["category": "furniture", "status": "listed"]) }
        for client in clients { await client.sync.start() }
        try await eventually("every phone has the job") { try items.allSatisfy { try $0.list().count == 3 } }
        // The first two phones meet on the local network; the third meets the second later,
        // over another transport (as MultipeerConnectivity would carry it on a phone).
        let lans = [LocalNetworkTransport(configuration: Self.lan()), LocalNetworkTransport(configuration: Self.lan())]
        let pipes = [PipeTransport(), PipeTransport()]
        let peers = [
            PeerSync(client: a, bucket: Self.bucket, transport: lans[0]),
            PeerSync(client: b, bucket: Self.bucket, transports: [lans[1], pipes[0]]),
        ]
        for sync in peers { try await sync.prepare() }
        try await PeerSync(client: clients[2], bucket: Self.bucket, transport: pipes[1]).prepare()

        // At the customer's: no server. The third mover's phone is alone for now.
        await clients[2].close()
        await server.stop(keepingFiles: true)
        clients[2] = try server.client(store: stores[2], token: tokens[2], transport: .socket, editTimes: times[2])
        items[2] = try clients[2].bucket(Self.bucket)
        try await peers[1].start()
        try await peers[0].start()
        lans[0].connect(host: "127.0.0.1", port: try #require(lans[1].port))

        times[2].set(10_000)
        try await items[2].update("sofa") { $0["status"] = "damaged" }  // the earliest edit of the sofa
        try await items[2].update("mirror") { $0["category"] = "fragile" }
        try await items[2].update("boxes") { $0["note"] = "heavy" }
        times[0].set(20_000)
        let lamp = try await items[0].insert(["category": "lighting", "status": "listed", "barcode": "4006381333931"])
        try await items[0].update("sofa") { $0["status"] = "packed" }
        times[1].set(30_000)
        try await items[1].update("sofa") { $0["status"] = "loaded" }
        try await items[1].delete("boxes")
        let rug = try await items[1].insert(["category": "textiles", "status": "listed", "photos": ["rug-1.jpg"]])
        try await eventually("the rug reaches the first mover's phone") { try items[0].get(rug) != nil }
        times[0].set(40_000)
        try await items[0].update(rug) { $0["status"] = "rolled" }
        try await eventually("the two phones on the local network agree") { try Self.contents(items[0]) == Self.contents(items[1]) }
        #expect(try items[2].get(rug) == nil)

        let third = PeerSync(client: clients[2], bucket: Self.bucket, transport: pipes[1])
        try await third.start()
        pipes[0].link(to: pipes[1])
        try await eventually("all three phones agree, with the server down") {
            let first = try Self.contents(items[0])
            return try first == Self.contents(items[1]) && first == Self.contents(items[2])
        }
        let offline = try Self.contents(items[2])
        #expect(offline["sofa"]?["status"] == "loaded", "the later edit by corrected time wins, not the later arrival")
        #expect(offline["boxes"] == nil, "a deleted item stays deleted, though an offline phone edited it")
        #expect(offline["mirror"]?["category"] == "fragile")
        #expect(offline[lamp]?["barcode"] == "4006381333931")
        #expect(offline[rug]?["status"] == "rolled")
        #expect(peers[1].connectedPeers == [a.clientID, clients[2].clientID])

        // Back at the office: the server returns; the first two phones reconnect on their own,
        // the third starts syncing last, carrying the earliest edit of the sofa.
        server = try await server.restart()
        for client in [a, b] { try await client.sync.waitUntilIdle() }
        await clients[2].sync.start()
        try await clients[2].sync.waitUntilIdle()
        try await eventually("every phone holds what the server holds") {
            let onServer = try await server.objects(Self.bucket, token: tokens[0])
            return try items.allSatisfy { try Self.contents($0) == onServer } && clients.allSatisfy { try $0.outbox.pending.isEmpty }
        }
        let final = try await server.objects(Self.bucket, token: tokens[2])
        #expect(final == offline)

        // Every phone carried the others' changes to the server; each reached the feed once.
        let scope = BucketScope(appID: server.appID, owner: .shared, bucket: Self.bucket)
        let epoch = try await server.services.store.currentVersion(of: scope).epoch
        let feed = try #require(try await server.services.store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 1_000))
        #expect(feed.filter { $0.key == lamp }.count == 1)
        #expect(feed.filter { $0.key == rug }.count == 2)
        #expect(feed.filter { $0.key == "boxes" && $0.operation == .remove }.count == 1)

        await third.stop()
        for sync in peers { await sync.stop() }
        for client in clients { await client.close() }
        await server.stop()
    }

    @Test("a device without the bucket's peer key can neither read nor inject")
    func strangersAreRefused() async throws {
        let server = try await TestServer.start()
        _ = try await server.request("POST", "__options__/i/\(Self.bucket)", token: server.app.adminToken, body: ["shared": true])
        let otherApp = try await server.services.accounts.createApp(name: "elsewhere")
        let strangerToken = try await server.services.accounts.issueToken(appID: otherApp.appID, username: "stranger@example.com").accessToken
        let (storeA, storeS) = (temporaryStore(), temporaryStore())
        defer { [storeA, storeS].forEach(removeStore) }
        let a = try server.client(store: storeA, token: try await server.createUser())
        var configuration = LockstepClient.Configuration(socketURL: refusedSocketURL)
        configuration.logger.logLevel = .warning
        let stranger = try LockstepClient(
            storeDirectory: storeS, server: server.baseURL, app: otherApp.appID, token: strangerToken, configuration: configuration)
        try await a.bucket(Self.bucket).put("safe-code", ["code": "4711"])
        try await stranger.bucket(Self.bucket).put("planted", ["status": "fake"])
        let (moverLAN, intruderLAN) = (LocalNetworkTransport(configuration: Self.lan()), LocalNetworkTransport(configuration: Self.lan()))
        let mover = PeerSync(client: a, bucket: Self.bucket, transport: moverLAN)
        let intruder = PeerSync(client: stranger, bucket: Self.bucket, transport: intruderLAN)
        try await mover.start()
        try await intruder.start()
        intruderLAN.connect(host: "127.0.0.1", port: try #require(moverLAN.port))

        // Long enough for several dial attempts (every 200 ms) to be refused.
        try await Task.sleep(for: .seconds(1.5))
        #expect(mover.connectedPeers.isEmpty && intruder.connectedPeers.isEmpty)
        #expect(try stranger.bucket(Self.bucket).get("safe-code") == nil)
        #expect(try a.bucket(Self.bucket).get("planted") == nil)

        await intruder.stop()
        await mover.stop()
        await a.close()
        await stranger.close()
        await server.stop()
    }

    @Test("a link that does not prove itself in time, or sends what does not open, is closed")
    func stallingAndGarbledLinksAreClosed() async throws {
        let server = try await TestServer.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try server.client(store: store, token: try await server.createUser())
        let pipes = PipeTransport()
        let sync = PeerSync(
            client: client, bucket: Self.bucket, transport: pipes, configuration: .init(handshakeTimeout: .milliseconds(300)))
        try await sync.start()

        let (stalling, silent) = PipeLink.pair()
        pipes.accept(stalling)
        var fromSync = silent.incoming.makeAsyncIterator()
        #expect(try await fromSync.next() != nil, "the hello")
        let started = ContinuousClock.now
        #expect(try await fromSync.next() == nil, "closed")
        #expect(ContinuousClock.now - started < .seconds(5))

        let (garbled, meddler) = PipeLink.pair()
        pipes.accept(garbled)
        var fromSyncAgain = meddler.incoming.makeAsyncIterator()
        let hello = try #require(try await fromSyncAgain.next())
        var theirs = try #require(try JSONValue(parsing: hello).objectValue)
        theirs["peer"] = "meddler"
        try await meddler.send(JSONValue.object(theirs).jsonBytes)
        try await meddler.send(Array(repeating: 0x42, count: 64))
        _ = try await fromSyncAgain.next()  // its want
        #expect(try await fromSyncAgain.next() == nil, "closed")
        #expect(sync.connectedPeers.isEmpty)

        await sync.stop()
        await client.close()
        await server.stop()
    }

    @Test("with no peer key stored and no server in reach, peer sync says so")
    func noKeyOffline() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: URL(string: "http://127.0.0.1:9")!, app: "app", token: "token")
        let sync = PeerSync(client: client, bucket: Self.bucket, transport: PipeTransport())
        await #expect(throws: PeerSyncError.noPeerKey(bucket: Self.bucket)) { try await sync.start() }
        #expect(sync.connectedPeers.isEmpty)
        await client.close()
    }

    @Test("peers find each other by multicast announcements", .enabled("multicast reaches this host") { await multicastWorks() })
    func multicastDiscovery() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let stores = (0..<2).map { _ in temporaryStore() }
        defer { stores.forEach(removeStore) }
        let clients = try stores.map { try server.client(store: $0, token: token) }
        let group = try SocketAddress(ipAddress: "239.255.76.83", port: Int.random(in: 40_000...60_000))
        let peers = clients.map { client in
            PeerSync(client: client, bucket: Self.bucket, transport: LocalNetworkTransport(configuration: Self.lan(multicastGroup: group)))
        }
        for sync in peers { try await sync.start() }
        try await clients[0].bucket(Self.bucket).put("found", ["by": "multicast"])
        try await eventually("the peers found each other and synced", timeout: .seconds(10)) {
            try clients[1].bucket(Self.bucket).get("found") == ["by": "multicast"]
        }
        for sync in peers { await sync.stop() }
        for client in clients { await client.close() }
        await server.stop()
    }

    /// Loopback only, unless peers must be reachable at the address their announcements come from.
    static func lan(multicastGroup: SocketAddress? = nil) -> LocalNetworkTransport.Configuration {
        LocalNetworkTransport.Configuration(
            host: multicastGroup == nil ? "127.0.0.1" : "0.0.0.0", multicastGroup: multicastGroup, announceInterval: .milliseconds(200))
    }

    static func contents(_ bucket: Bucket) throws -> [String: JSONObject] {
        Dictionary(uniqueKeysWithValues: try bucket.list().map { ($0.key, $0.object) })
    }
}

/// Whether a datagram sent to a multicast group comes back to a socket of this host that
/// joined it (not on hosts whose only interface is loopback, nor where a firewall drops it).
func multicastWorks() async -> Bool {
    do {
        let group = try SocketAddress(ipAddress: "239.255.76.83", port: Int.random(in: 40_000...60_000))
        let probe = LocalNetworkTransport(configuration: PeerSyncTests.lan(multicastGroup: group))
        let heard = LocalNetworkTransport(configuration: PeerSyncTests.lan(multicastGroup: group))
        // Two transports with the same tag: the smaller id dials the other once it hears it.
        let links = try await probe.start(advertising: PeerAdvertisement(peerID: "a", tag: "probe"))
        _ = try await heard.start(advertising: PeerAdvertisement(peerID: "b", tag: "probe"))
        let linked = await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in links { return true }; return false }
            group.addTask { try? await Task.sleep(for: .seconds(2)); return false }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        await probe.stop()
        await heard.stop()
        return linked
    } catch {
        return false
    }
}
