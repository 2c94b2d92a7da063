import Foundation
import LockstepCore
import LockstepPostgres
import LockstepServer
import Testing

/// What a copy of the database gives without the server key: no peer secret to derive peer
/// keys from, no password hash to guess passwords against.
@Suite("Security: secrets at rest", .timeLimit(.minutes(2)))
struct SecretsAtRestTests {
    @Test(arguments: StoreKind.allCases)
    func peerSecretsAndPasswordHashesAreStoredSealed(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let secret = try #require(try await store.peerSecret(appID: app))
            let hash = "scrypt$1024$8$1$c2FsdA==$a2V5"
            try await store.insertUser(UserRecord(appID: app, id: "u1", username: "ann", passwordHash: hash, createdAt: 1))
            let raw = try await RawRows.read(kind, store, "SELECT peer_secret FROM apps WHERE id = '\(app)'")
            #expect(raw.first?.hasPrefix(ServerKey.sealedPrefix) == true, "\(raw)")
            #expect(raw.first?.contains(secret) == false)
            let rawHash = try await RawRows.read(kind, store, "SELECT password_hash FROM users WHERE id = 'u1'")
            #expect(rawHash.first?.hasPrefix(ServerKey.sealedPrefix) == true, "\(rawHash)")
            #expect(try await store.user(appID: app, id: "u1")?.passwordHash == hash)
            // A sealed hash copied into another user's row does not open there.
            try await store.insertUser(UserRecord(appID: app, id: "u2", username: "bob", passwordHash: "scrypt$other", createdAt: 2))
            try await RawRows.execute(kind, store, "UPDATE users SET password_hash = '\(rawHash[0])' WHERE id = 'u2'")
            await #expect(throws: ServerKeyError.self) { try await store.user(appID: app, id: "u2") }
        }
    }

    @Test func secretsStoredBeforeSealingAreSealedOnOpenAndPeerKeysStayTheSame() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-legacy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lockstep.sqlite").path
        let key = ServerKey.random()
        let legacySecret = Secrets.randomHex(byteCount: 32)
        let app: String
        do {
            let store = try SQLiteStore(path: path, serverKey: key)
            app = try await insertTestApp(store)
            // As a server before sealing left them: in the clear.
            try await RawRows.execute(.sqlite, store, "UPDATE apps SET peer_secret = '\(legacySecret)' WHERE id = '\(app)'")
            try await RawRows.execute(.sqlite, store, """
                INSERT INTO users (app_id, id, username, canonical_username, password_hash, created_at)
                VALUES ('\(app)', 'u1', 'ann', 'ann', 'scrypt$legacy', 1)
                """)
        }
        let reopened = try SQLiteStore(path: path, serverKey: key)
        #expect(try await reopened.peerSecret(appID: app) == legacySecret, "devices keep the peer keys they have")
        #expect(try await reopened.user(appID: app, id: "u1")?.passwordHash == "scrypt$legacy")
        let raw = try await RawRows.read(.sqlite, reopened, "SELECT peer_secret FROM apps UNION ALL SELECT password_hash FROM users")
        #expect(raw.count == 2 && raw.allSatisfy { $0.hasPrefix(ServerKey.sealedPrefix) }, "\(raw)")
        // The database alone, with another key, opens to nothing.
        let otherKey = ServerKey.random()
        #expect(throws: StoreError.wrongServerKey(expected: key.id, given: otherKey.id)) {
            try SQLiteStore(path: path, serverKey: otherKey)
        }
    }

    @Test func aPostgreSQLNodeWithAnotherKeyRefusesToStart() async throws {
        try await TestStores.withPostgresSchema { configuration in
            let first = try await PostgresStore.connect(configuration, serverKey: TestStores.serverKey, logger: TestStores.quietLogger)
            await first.shutdown()
            let otherKey = ServerKey.random()
            await #expect(throws: StoreError.wrongServerKey(expected: TestStores.serverKey.id, given: otherKey.id)) {
                let second = try await PostgresStore.connect(configuration, serverKey: otherKey, logger: TestStores.quietLogger)
                await second.shutdown()
            }
        }
    }

    @Test func theServerKeyFileIsMadePrivateAndNeverReplaced() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-key-\(UUID().uuidString)")
        try PrivateFiles.createDirectory(directory.path)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.key").path
        let (made, created) = try ServerKey.loadOrCreate(path: path)
        #expect(created)
        #expect(PrivateFiles.mode(of: path) == 0o600)
        let (read, createdAgain) = try ServerKey.loadOrCreate(path: path)
        #expect(!createdAgain && read.id == made.id)
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try ServerKey.loadOrCreate(path: path) }
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self) == "not a key")
    }

    /// Servers that start together (two instances of the systemd unit) all make the key at
    /// once: one key wins, and every other reads it whole, never a file still being written.
    @Test func serversMakingTheKeyAtOnceAllReadTheOneThatWon() async throws {
        for _ in 0..<20 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-key-\(UUID().uuidString)")
            try PrivateFiles.createDirectory(directory.path)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("server.key").path
            let keys = try await withThrowingTaskGroup(of: (id: String, created: Bool).self) { group in
                for _ in 0..<8 {
                    group.addTask { try await onOwnThread { let (key, created) = try ServerKey.loadOrCreate(path: path); return (key.id, created) } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(keys.map(\.id)).count == 1, "servers started together hold different keys")
            #expect(keys.filter(\.created).count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["server.key"], "a draft was left behind")
        }
    }
}
