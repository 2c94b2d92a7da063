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
                    appID: app, token: request.headers[.simperiumToken], actingUserID: request.headers[.simperiumUser])
                let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
                guard let secret = try await services.store.peerSecret(appID: scope.appID) else {
                    throw AccountError(.notFound, "there is no app \(scope.appID)")
                }
                return Response.json(.object(["key": .string(PeerKey.derive(secret: secret, scope: scope))]))
            }
        }
    }
}

/// The derivation of a scope's peer key: HMAC-SHA256 of the scope under the app's secret.
enum PeerKey {
    static func derive(secret: String, scope: BucketScope) -> String {
        let message = Array("lockstep peer key v1\u{0}\(scope.appID)\u{0}\(scope.ownerKey)\u{0}\(scope.bucket)".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return Hex.encode(mac)
    }
}
