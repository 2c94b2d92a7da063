import Crypto
import Hummingbird
import LockstepCore

/// `GET /1/{app}/{bucket}/peerkey`: the key nearby devices use to prove to each other that they
/// may sync a bucket directly, with no server in reach.
///
/// The key is derived from the app's peer secret and the bucket's scope, so every device whose
/// credentials reach the same scope (the same user's bucket, or a shared bucket of the app) gets
/// the same key, and no other device can compute it. Devices fetch it while online and keep it.
/// Read-only buckets have no peer key: peers could only pass each other changes the server refuses.
struct PeerKeyRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.get("/1/{app}/{bucket}/peerkey") { request, context in
            let app = try context.parameters.require("app")
            let bucket = try context.parameters.require("bucket")
            return try await mappingServiceErrors {
                let identity = try await services.accounts.authenticate(
                    appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
                let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
                guard let secret = try await services.store.peerSecret(appID: scope.appID) else {
                    throw AccountError(.notFound, "there is no app \(scope.appID)")
                }
                var writers: [String]?
                if case .space(let spaceID) = scope.owner {
                    writers = try await services.store.spaceMembers(appID: scope.appID, spaceID: spaceID)
                        .filter(\.role.canWrite).compactMap(\.userID)
                }
                return Response.json(.object(["key": .string(PeerKey.derive(secret: secret, scope: scope, writers: writers))]))
            }
        }
    }
}

/// The derivation of a scope's peer key: HMAC-SHA256 of the scope under the app's secret.
///
/// A space's bucket has a key that names its writers too: when the space gains or loses a
/// writer (one removed, or made a reader), its key changes, so a device of someone taken off
/// the job can no longer join the team's phones once they have fetched the new key (as apps
/// do on each sync, ``PeerSync/prepare()``). Other buckets keep one key for good.
enum PeerKey {
    static func derive(secret: String, scope: BucketScope, writers: [String]? = nil) -> String {
        var text = "lockstep peer key v\(writers == nil ? 1 : 2)\u{0}\(scope.appID)\u{0}\(scope.ownerKey)\u{0}\(scope.bucket)"
        if let writers { text += "\u{0}" + writers.sorted().joined(separator: ",") }
        let message = Array(text.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return Hex.encode(mac)
    }
}
