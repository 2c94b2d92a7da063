import LockstepServer
import Testing

/// A store reads what authenticating a token needs at once (``SyncStore/tokenAuthentication(appID:tokenHash:)``),
/// and gives exactly what the three reads apart would: a token of another app is no token.
@Suite("Token authentication read (SQLite and PostgreSQL)")
struct TokenAuthenticationTests {
    @Test(arguments: StoreKind.allCases)
    func readsAppTokenAndUsernameAtOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let first = try await insertTestApp(store, id: "a-app")
            let second = try await insertTestApp(store, id: "b-app")
            let app = try #require(try await store.app(id: first))
            try await store.insertUser(UserRecord(appID: first, id: "u1", username: "alice@example.com", passwordHash: nil, createdAt: 1))
            try await store.insertUser(UserRecord(appID: second, id: "u2", username: "bob@example.com", passwordHash: nil, createdAt: 1))
            let alices = TokenRecord(tokenHash: "h1", appID: first, userID: "u1", createdAt: 2, expiresAt: 5)
            try await store.insertToken(alices)
            try await store.insertToken(TokenRecord(tokenHash: "h2", appID: second, userID: "u2", createdAt: 2, expiresAt: nil))

            #expect(try await store.tokenAuthentication(appID: first, tokenHash: "h1") == TokenAuthentication(
                app: app, token: alices, username: "alice@example.com"))
            // Expired tokens are found: the caller refuses them, with its own message.
            #expect(try await store.tokenAuthentication(appID: first, tokenHash: "h1").token?.expiresAt == 5)
            #expect(try await store.tokenAuthentication(appID: "nope", tokenHash: "h1") == TokenAuthentication())
            #expect(try await store.tokenAuthentication(appID: first, tokenHash: "h2") == TokenAuthentication(app: app))
            #expect(try await store.tokenAuthentication(appID: first, tokenHash: "h3") == TokenAuthentication(app: app))
            #expect(try await store.tokenAuthentication(appID: first, tokenHash: app.adminTokenHash) == TokenAuthentication(app: app))
        }
    }
}
