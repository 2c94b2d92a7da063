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
///     case .opened, .authenticated: break
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

    /// The user tokens one connection holds: how many channels claimed each (by hash), and
    /// when each expires once known.
    private struct HeldTokens {
        var claims: [String: Int] = [:]
        var expiries: [String: Int64] = [:]
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
    /// always finds the connection (see ``TokenWatch``); ``releaseToken(_:on:)`` undoes it
    /// when the check fails or the token turns out to be the admin's.
    func claimToken(_ hash: String, on id: SocketConnectionID) {
        state.withLock { state in
            guard state.open[id] != nil else { return }
            state.tokens[id, default: HeldTokens()].claims[hash, default: 0] += 1
        }
    }

    func releaseToken(_ hash: String, on id: SocketConnectionID) {
        state.withLock { state in
            guard var held = state.tokens[id], let count = held.claims[hash] else { return }
            if count > 1 {
                held.claims[hash] = count - 1
            } else {
                held.claims[hash] = nil
                held.expiries[hash] = nil
            }
            state.tokens[id] = held
        }
    }

    /// A channel of `id` was opened with `token`: the connection ends when the token expires.
    func holdToken(_ token: TokenRecord, on id: SocketConnectionID) {
        guard let expiresAt = token.expiresAt else { return }
        state.withLock { state in
            guard state.tokens[id]?.claims[token.tokenHash] != nil else { return }
            state.tokens[id]?.expiries[token.tokenHash] = expiresAt
        }
    }

    /// Every token hash some open connection holds.
    func heldTokenHashes() -> Set<String> {
        state.withLock { state in
            state.tokens.values.reduce(into: Set<String>()) { hashes, held in hashes.formUnion(held.claims.keys) }
        }
    }

    /// Ends every connection holding one of `hashes`; returns how many.
    @discardableResult
    func closeConnections(holding hashes: Set<String>, because reason: SocketCloseReason) -> Int {
        guard !hashes.isEmpty else { return 0 }
        return end(because: reason) { held in held.claims.keys.contains(where: hashes.contains) }
    }

    /// Ends every connection holding a token that expired at or before `now`; returns how many.
    @discardableResult
    func closeConnections(expiredAt now: Int64) -> Int {
        end(because: .tokenExpired) { held in held.expiries.values.contains { $0 <= now } }
    }

    private func end(because reason: SocketCloseReason, where matches: (HeldTokens) -> Bool) -> Int {
        let terminators = state.withLock { state in
            state.tokens.compactMap { id, held in matches(held) ? state.terminators[id] : nil }
        }
        for terminate in terminators { terminate(reason) }
        return terminators.count
    }
}
