import Logging
public import ServiceLifecycle

/// Closes the streaming connections of tokens that no longer hold: revoked (signed out, a
/// password changed, the admin) or expired. Their HTTP requests need no watch: every request
/// checks its token against the store.
///
/// A token revoked through this node closes its connections at once (``revoked(_:)``). Tokens
/// revoked by another node sharing the database, or by `lockstep tokens revoke`, are found by
/// a short poll: every ``Limits/tokenCheckIntervalSeconds`` the watch reads the store's
/// revocation count (one tiny query), and only when it has moved does it ask which of the
/// tokens its connections hold still exist. Expiry needs no query at all: each connection's
/// expiry times are known from when its channels opened.
///
/// Connections claim a token before checking it (``ConnectionRegistry/claimToken(_:on:selfContained:)``),
/// so a revocation committed after the check moves the count after the claim, and the next
/// look finds the connection: closed if its check had passed, marked to close if the check
/// passes later, left alone if the check fails (the client hears why).
public final class TokenWatch: Service {
    private let store: any SyncStore
    private let connections: ConnectionRegistry
    private let clock: ServerClockSource
    private let interval: Duration
    private let logger: Logger

    init(store: any SyncStore, connections: ConnectionRegistry, clock: ServerClockSource, limits: Limits, logger: Logger) {
        self.store = store
        self.connections = connections
        self.clock = clock
        self.interval = .nanoseconds(Int64(max(limits.tokenCheckIntervalSeconds, 0.01) * 1e9))
        self.logger = logger
    }

    /// Tokens revoked through this node: their connections close now.
    func revoked(_ hashes: [String]) {
        connections.tokensEnded(Set(hashes))
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.watch() }
    }

    private func watch() async {
        // The first look checks every held token: connections may have opened before it.
        var seen: Int64?
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            connections.closeConnections(expiredAt: clock.now())
            do {
                let count = try await store.tokenRevocations()
                if count != seen {
                    let held = connections.heldTokenHashes()
                    let existing = try await store.existingTokens(among: Array(held))
                    connections.tokensEnded(held.subtracting(existing))
                }
                seen = count
            } catch {
                // Looked for again at the next tick, from the same count.
                logger.warning("could not look for revoked tokens: \(error)")
            }
        }
    }
}
