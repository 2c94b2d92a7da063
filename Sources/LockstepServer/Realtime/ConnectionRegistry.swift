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
            return state.observers
        }
        LockstepMetrics.socketConnections.record(Self.openInProcess.subtract(1, ordering: .relaxed).newValue)
        for observer in observers { observer(.closed(end)) }
    }
}
