@testable import LockstepServer
import Synchronization
import Testing

/// How a connection's tokens meet revocations that race their check (``ConnectionRegistry``):
/// a socket is never left open on a token revoked after its check passed, and never closed for
/// a token whose check fails on its own (the client is told why instead).
@Suite("Security: token claims racing revocations")
struct TokenClaimTests {
    /// One open connection, with a record of how it was ended.
    final class Connection: Sendable {
        let registry = ConnectionRegistry()
        let id: SocketConnectionID
        private let record = EndRecord()

        init() {
            id = registry.open(appID: "app", remoteAddress: nil, at: 0).id
            registry.setTerminator(id) { [record] reason in record.reasons.withLock { $0.append(reason) } }
        }

        var ends: [SocketCloseReason] { record.reasons.withLock { $0 } }
    }

    final class EndRecord: Sendable {
        let reasons = Mutex<[SocketCloseReason]>([])
    }

    static func token(_ hash: String, expiresAt: Int64? = nil) -> TokenRecord {
        TokenRecord(tokenHash: hash, appID: "app", userID: "u", createdAt: 0, expiresAt: expiresAt)
    }

    @Test func aRevocationDuringACheckThatPassesEndsTheConnectionWhenItPasses() {
        let connection = Connection()
        connection.registry.claimToken("t", on: connection.id)
        #expect(connection.registry.tokensEnded(["t"]) == 0)
        #expect(connection.ends.isEmpty)
        connection.registry.confirmToken(Self.token("t"), on: connection.id)
        #expect(connection.ends == [.tokenRevoked])
    }

    @Test func aRevocationDuringACheckThatFailsLeavesTheConnectionOpen() {
        let connection = Connection()
        connection.registry.claimToken("t", on: connection.id)
        connection.registry.tokensEnded(["t"])
        connection.registry.releaseToken("t", on: connection.id)
        #expect(connection.ends.isEmpty)
        #expect(connection.registry.heldTokenHashes().isEmpty)
    }

    @Test func aRevocationAfterTheCheckEndsTheConnectionAtOnce() {
        let connection = Connection()
        connection.registry.claimToken("t", on: connection.id)
        connection.registry.confirmToken(Self.token("t"), on: connection.id)
        connection.registry.claimToken("other", on: connection.id)
        #expect(connection.registry.tokensEnded(["unrelated"]) == 0)
        #expect(connection.registry.tokensEnded(["t"]) == 1)
        #expect(connection.ends == [.tokenRevoked])
    }

    @Test func anExpiredTokenEndsItsConnection() {
        let connection = Connection()
        connection.registry.claimToken("t", on: connection.id)
        connection.registry.confirmToken(Self.token("t", expiresAt: 100), on: connection.id)
        #expect(connection.registry.closeConnections(expiredAt: 99) == 0)
        #expect(connection.registry.closeConnections(expiredAt: 100) == 1)
        #expect(connection.ends == [.tokenExpired])
    }
}
