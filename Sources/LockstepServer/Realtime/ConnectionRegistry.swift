import Synchronization

/// Names one streaming connection for as long as the server runs.
public struct SocketConnectionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "ws-\(rawValue)" }
}

/// What the server knows about a streaming connection when it opens.
public struct SocketConnectionInfo: Sendable, Equatable {
    public var id: SocketConnectionID
    /// The app named in the socket's path, `/sock/1/{app}/websocket`.
    public var appID: String
    /// The peer's address, for logs.
    public var remoteAddress: String?
    /// Server time when the connection opened, in nanoseconds since the Unix epoch.
    public var openedAt: Int64
}

/// Why a streaming connection ended.
public enum SocketCloseReason: Sendable, Equatable {
    /// The peer closed the socket, stopped answering the server's pings, or went away; or the
    /// server is shutting down.
    case ended
    /// The peer did not take what the server sent: its outgoing queue passed
    /// ``Limits/outgoingBufferBytes``, or no message got through for ``Limits/heartbeatTimeoutSeconds``.
    case slowReader
    /// A token a channel was opened with was revoked (signed out, password changed, or by
    /// the admin).
    case tokenRevoked
    /// A token a channel was opened with expired.
    case tokenExpired
    /// No channel was opened with a valid token within ``Limits/socketInitTimeoutSeconds``.
    case noInit
}

/// The end of a streaming connection, as the registry reports it.
public struct SocketConnectionEnd: Sendable, Equatable {
    public var connection: SocketConnectionInfo
    public var reason: SocketCloseReason
    /// The most bytes that ever waited in the connection's outgoing queue.
    public var peakQueuedBytes: Int
    /// Server time when the server closed the socket (for every ``reason`` but a peer's own
    /// ending); the connection's tasks wind down after it.
    public var serverClosedAt: Int64?
}

/// Every open streaming connection, and the hooks that follow their lives.
///
/// Features that depend on who is connected observe the registry instead of reaching into
/// connections. Presence, for one, removes what a connection created once it goes away:
///
/// ```swift
/// services.connections.observe { event in
///     switch event {
///     case .changeAccepted(let id, let change, _): created.remember(change, by: id)
///     case .closed(let end): removals.enqueue(created.take(end.connection.id))
///     case .opened, .authenticated, .spaceLeft: break
///     }
/// }
/// ```
///
/// Observers are called synchronously on the connection's task, so like ``ChangeHub``
/// subscribers they must only record or enqueue, never wait.
public final class ConnectionRegistry: Sendable {
    public enum Event: Sendable {
        case opened(SocketConnectionInfo)
        /// A channel of the connection was opened with a user's token.
        case authenticated(SocketConnectionID, userID: String)
        /// A change that this connection sent, with a token of `userID` (`nil`: the admin's),
        /// was applied (and announced to the bucket).
        case changeAccepted(SocketConnectionID, ChangeEvent, userID: String?)
        case closed(SocketConnectionEnd)
        /// `userID` was removed from a space (`nil`: the space was deleted): what their
        /// connections hold in its buckets must go, though the connections stay.
        case spaceLeft(appID: String, spaceID: String, userID: String?)
    }

    public typealias Observer = @Sendable (Event) -> Void

    private struct State {
        var lastID: UInt64 = 0
        var open: [SocketConnectionID: SocketConnectionInfo] = [:]
        var observers: [Observer] = []
        /// How each open connection is ended from outside (a revoked or expired token).
        var terminators: [SocketConnectionID: @Sendable (SocketCloseReason) -> Void] = [:]
        /// The tokens each connection's channels were opened with.
        var tokens: [SocketConnectionID: HeldTokens] = [:]
    }

    /// The user tokens one connection holds, by hash: how many channels claimed each, which
    /// passed their check, when those expire, and which ended while still being checked.
    private struct HeldTokens {
        var claims: [String: Int] = [:]
        var confirmed: Set<String> = []
        var expiries: [String: Int64] = [:]
        /// Ended (revoked) while a channel was checking it: if the check passes regardless (it
        /// read the store before the revocation), the connection ends then.
        var doomed: Set<String> = []
        /// JWTs of the app's identity provider: not stored, so never looked for among the
        /// store's tokens; they end when they expire.
        var selfContained: Set<String> = []
    }

    private let state = Mutex(State())
    /// Open connections across every server in the process, for the metrics gauge.
    private static let openInProcess = Atomic<Int>(0)

    public init() {}

    /// Adds an observer that sees every later connection event.
    public func observe(_ observer: @escaping Observer) {
        state.withLock { $0.observers.append(observer) }
    }

    /// The connections open now, oldest first.
    public var openConnections: [SocketConnectionInfo] {
        state.withLock { $0.open.values.sorted { $0.id < $1.id } }
    }

    public var count: Int {
        state.withLock { $0.open.count }
    }

    func open(appID: String, remoteAddress: String?, at time: Int64) -> SocketConnectionInfo {
        let (info, observers) = state.withLock { state in
            state.lastID += 1
            let info = SocketConnectionInfo(
                id: SocketConnectionID(rawValue: state.lastID), appID: appID, remoteAddress: remoteAddress, openedAt: time)
            state.open[info.id] = info
            return (info, state.observers)
        }
        LockstepMetrics.socketConnections.record(Self.openInProcess.add(1, ordering: .relaxed).newValue)
        for observer in observers { observer(.opened(info)) }
        return info
    }

    func authenticated(_ connection: SocketConnectionID, userID: String) {
        for observer in state.withLock({ $0.observers }) { observer(.authenticated(connection, userID: userID)) }
    }

    func accepted(_ change: ChangeEvent, on connection: SocketConnectionID, userID: String?) {
        for observer in state.withLock({ $0.observers }) { observer(.changeAccepted(connection, change, userID: userID)) }
    }

    func spaceLeft(appID: String, spaceID: String, userID: String?) {
        for observer in state.withLock({ $0.observers }) { observer(.spaceLeft(appID: appID, spaceID: spaceID, userID: userID)) }
    }

    func close(_ end: SocketConnectionEnd) {
        let observers = state.withLock { state in
            state.open[end.connection.id] = nil
            state.terminators[end.connection.id] = nil
            state.tokens[end.connection.id] = nil
            return state.observers
        }
        LockstepMetrics.socketConnections.record(Self.openInProcess.subtract(1, ordering: .relaxed).newValue)
        for observer in observers { observer(.closed(end)) }
    }

    /// Ends every open connection, as the server stops, and waits until each has handled what
    /// it read and let go of what it held, or until `patience` runs out.
    func closeAll(within patience: Duration) async {
        let terminators = state.withLock { Array($0.terminators.values) }
        for terminate in terminators { terminate(.ended) }
        // Polled: it runs once, as the server stops.
        let deadline = ContinuousClock.now + patience
        while count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: Tokens held by connections

    /// How to end connection `id` from outside; set once as it opens.
    func setTerminator(_ id: SocketConnectionID, _ terminate: @escaping @Sendable (SocketCloseReason) -> Void) {
        state.withLock { state in
            guard state.open[id] != nil else { return }
            state.terminators[id] = terminate
        }
    }

    /// Connection `id` is about to open a channel with the token whose hash is `hash`.
    ///
    /// Claimed before the token is checked, so that a revocation committed after the check
    /// always finds the connection (see ``TokenWatch``). A revocation that finds the claim
    /// still unchecked marks it: ``confirmToken(_:on:)`` then ends the connection, since its
    /// check may have read the store before the revocation. ``releaseToken(_:on:)`` undoes a
    /// claim whose check failed, or whose token is the admin's.
    ///
    /// A `selfContained` token (a JWT) is not the store's: ``heldTokenHashes()`` leaves it out,
    /// so that a revocation elsewhere does not read it as revoked.
    func claimToken(_ hash: String, on id: SocketConnectionID, selfContained: Bool = false) {
        state.withLock { state in
            guard state.open[id] != nil else { return }
            state.tokens[id, default: HeldTokens()].claims[hash, default: 0] += 1
            if selfContained { state.tokens[id]?.selfContained.insert(hash) }
        }
    }

    func releaseToken(_ hash: String, on id: SocketConnectionID) {
        state.withLock { state in
            guard var held = state.tokens[id], let count = held.claims[hash] else { return }
            if count > 1 {
                held.claims[hash] = count - 1
            } else {
                held.claims[hash] = nil
                held.confirmed.remove(hash)
                held.expiries[hash] = nil
                held.doomed.remove(hash)
                held.selfContained.remove(hash)
            }
            state.tokens[id] = held
        }
    }

    /// A channel of `id` was opened with `token`, which passed its check: the connection ends
    /// when the token expires or is revoked, or now if it was revoked during the check.
    func confirmToken(_ token: TokenRecord, on id: SocketConnectionID) {
        let terminate = state.withLock { state -> (@Sendable (SocketCloseReason) -> Void)? in
            guard var held = state.tokens[id], held.claims[token.tokenHash] != nil else { return nil }
            held.confirmed.insert(token.tokenHash)
            if let expiresAt = token.expiresAt { held.expiries[token.tokenHash] = expiresAt }
            state.tokens[id] = held
            return held.doomed.contains(token.tokenHash) ? state.terminators[id] : nil
        }
        terminate?(.tokenRevoked)
    }

    /// Every stored token's hash some open connection holds or is checking (JWTs left out).
    func heldTokenHashes() -> Set<String> {
        state.withLock { state in
            state.tokens.values.reduce(into: Set<String>()) { hashes, held in
                hashes.formUnion(held.claims.keys.filter { !held.selfContained.contains($0) })
            }
        }
    }

    /// The tokens `hashes` ended: connections holding one close; those still checking one
    /// close if the check passes all the same. Returns how many closed now.
    @discardableResult
    func tokensEnded(_ hashes: Set<String>) -> Int {
        guard !hashes.isEmpty else { return 0 }
        let terminators = state.withLock { state in
            var terminators: [@Sendable (SocketCloseReason) -> Void] = []
            for (id, held) in state.tokens {
                let ended = hashes.intersection(held.claims.keys)
                if ended.isEmpty { continue }
                if ended.isDisjoint(with: held.confirmed) {
                    state.tokens[id]?.doomed.formUnion(ended)
                } else if let terminate = state.terminators[id] {
                    terminators.append(terminate)
                }
            }
            return terminators
        }
        for terminate in terminators { terminate(.tokenRevoked) }
        return terminators.count
    }

    /// Ends every connection holding a token that expired at or before `now`; returns how many.
    @discardableResult
    func closeConnections(expiredAt now: Int64) -> Int {
        end(because: .tokenExpired) { held in held.expiries.values.contains { $0 <= now } }
    }

    /// Ends connection `id` if it holds a token that expired at or before `now`.
    func closeConnection(_ id: SocketConnectionID, ifHoldingATokenExpiredAt now: Int64) {
        end(because: .tokenExpired, only: id) { held in held.expiries.values.contains { $0 <= now } }
    }

    @discardableResult
    private func end(because reason: SocketCloseReason, only: SocketConnectionID? = nil, where matches: (HeldTokens) -> Bool) -> Int {
        let terminators = state.withLock { state in
            state.tokens.compactMap { id, held in (only ?? id) == id && matches(held) ? state.terminators[id] : nil }
        }
        for terminate in terminators { terminate(reason) }
        return terminators.count
    }
}
