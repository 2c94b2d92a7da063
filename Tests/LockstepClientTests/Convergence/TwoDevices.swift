import Foundation
import LockstepClient

/// Two devices of one user on a fresh server, each with a store of its own, syncing over the
/// socket, with edit times the test sets: how the convergence checker's finds are replayed by
/// hand.
struct TwoDevices {
    let server: TestServer
    /// The user's token, which both devices use.
    let token: String
    let stores: [URL]
    let times: [ManualEditTimes]
    let clients: [LockstepClient]
    /// Each device's copy of the bucket the test works in.
    let buckets: [Bucket]

    /// Starts the server and both clients (not yet syncing), their edit times at 1 µs.
    static func start(bucket: String) async throws -> TwoDevices {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let stores = [temporaryStore(), temporaryStore()]
        let times = [ManualEditTimes(1_000), ManualEditTimes(1_000)]
        let clients = try (0..<2).map { try server.client(store: stores[$0], token: token, transport: .socket, editTimes: times[$0]) }
        return TwoDevices(server: server, token: token, stores: stores, times: times, clients: clients, buckets: try clients.map { try $0.bucket(bucket) })
    }

    func stop() async {
        for client in clients { await client.close() }
        await server.stop()
        stores.forEach(removeStore)
    }
}
