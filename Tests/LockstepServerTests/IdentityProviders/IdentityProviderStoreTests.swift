import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// Each store keeps an app's identity provider, and every node reading the store follows it:
/// set on one, accepted on another; cleared on one, refused on the other within the token
/// check interval.
@Suite("Identity providers: stored and shared between nodes", .timeLimit(.minutes(2)))
struct IdentityProviderStoreTests {
    @Test(arguments: StoreKind.allCases)
    func settingsAreKeptPerAppAndFollowedByEveryNode(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var limits = TestServer.testLimits
            limits.tokenCheckIntervalSeconds = 0.05
            let clock = ServerClockSource()
            let one = AccountService(store: store, limits: limits, now: { clock.now() })
            let other = AccountService(store: store, limits: limits, now: { clock.now() })
            let app = try await one.createApp(name: "jwt")
            let neighbour = try await one.createApp(name: "other")
            let signer = TestSigner.p256()
            #expect(try await store.identityProvider(appID: app.appID) == nil)
            try await one.identityProviders.set(appID: app.appID, settings: TestSigner.settings([signer]))
            #expect(try await store.identityProvider(appID: app.appID) == TestSigner.settings([signer]).json)
            #expect(try await store.identityProvider(appID: neighbour.appID) == nil)

            let token = try signer.token(TestSigner.claims(sub: "node-user", ["email": "node@example.com"]))
            let first = try await other.authenticate(appID: app.appID, token: token)
            #expect(first.username == "node@example.com")
            #expect(try await one.authenticate(appID: app.appID, token: token).userID == first.userID, "one user, whichever node saw them first")
            await #expect(throws: AccountError.self, "another app does not take this app's provider") {
                try await other.authenticate(appID: neighbour.appID, token: token)
            }

            #expect(try await one.identityProviders.clear(appID: app.appID))
            #expect(try await !one.identityProviders.clear(appID: app.appID))
            try await waitUntil(within: .seconds(5)) {
                do {
                    _ = try await other.authenticate(appID: app.appID, token: token)
                    return false
                } catch let error as AccountError {
                    return error.status == .unauthorized && error.message.contains("accepts no JWTs")
                }
            }
        }
    }
}
