import Foundation
package import Logging
import Synchronization
package import WSClient

/// Opens a WebSocket and runs `handler` on it, like `WebSocketClient.connect`, but gives up on
/// a server that has not answered the upgrade request within `limit`, and on cancellation
/// during the upgrade.
///
/// `WebSocketClient` allows the server to half-close the connection, and NIO's client upgrader
/// never fails its upgrade when the input closes: a server that closes a connection after its
/// upgrade request and before an answer (as a stopping `lockstep serve` sometimes does, or a
/// proxy) leaves `connect` waiting forever, deaf to cancellation. The sync session would never
/// reconnect, and ``SyncSession/stop()`` (and ``LockstepClient/close()``) would never return.
///
/// Such a connection attempt cannot be ended from here (the channel is not reachable), so it is
/// abandoned: its task and its socket, which the server has closed, stay until the process
/// ends. That costs one descriptor each time a server closes a connection mid-upgrade. An
/// abandoned upgrade that does complete later closes its socket at once.
///
/// Returns the server's close frame, if it sent one.
@discardableResult
package func connectWebSocket(
    url: String, configuration: WebSocketClientConfiguration, logger: Logger, upgradeLimit limit: Duration,
    handler: @escaping @Sendable (WebSocketInboundStream, WebSocketOutboundWriter) async throws -> Void
) async throws -> WebSocketCloseFrame? {
    let race = UpgradeRace()
    let connection = Task {
        do {
            let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                // Too late: the caller has gone on without this socket.
                guard race.open() else { return }
                try await handler(inbound, outbound)
            }
            race.end(.success(close))
        } catch {
            race.end(.failure(error))
        }
    }
    let timer = Task {
        try await Task.sleep(for: limit)
        race.abandon(because: UpgradeTimeout(limit: limit))
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await race.outcome()
    } onCancel: {
        // An open socket ends with its task; an upgrade does not hear the cancellation.
        connection.cancel()
        race.abandon(because: CancellationError())
    }
}

/// The server did not answer the WebSocket upgrade in time.
struct UpgradeTimeout: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "the server did not answer the socket's upgrade within \(limit)" }
}

/// Whichever ends a connection attempt first: the connection, or giving up on its upgrade.
private final class UpgradeRace: Sendable {
    private enum Phase {
        case upgrading
        case open
        /// Given up during the upgrade; the connection goes on alone.
        case abandoned
    }

    private struct State {
        var phase = Phase.upgrading
        var result: Result<WebSocketCloseFrame?, any Error>?
        var waiter: CheckedContinuation<WebSocketCloseFrame?, any Error>?
    }

    private let state = Mutex(State())

    /// The upgrade completed: `true` if the socket is still wanted.
    func open() -> Bool {
        state.withLock { state in
            guard state.phase == .upgrading else { return false }
            state.phase = .open
            return true
        }
    }

    /// Gives up with `error` if the upgrade has not completed.
    func abandon(because error: any Error) {
        settle { state in
            guard state.phase == .upgrading else { return nil }
            state.phase = .abandoned
            return .failure(error)
        }
    }

    /// The connection ended, with `result`: the outcome, unless it was abandoned.
    func end(_ result: Result<WebSocketCloseFrame?, any Error>) {
        settle { state in state.phase == .abandoned ? nil : result }
    }

    func outcome() async throws -> WebSocketCloseFrame? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketCloseFrame?, any Error>) in
            let result = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Records the result `decide` gives (if any, and if none came first), and hands it to the waiter.
    private func settle(_ decide: (inout State) -> Result<WebSocketCloseFrame?, any Error>?) {
        let (waiter, result) = state.withLock { state -> (CheckedContinuation<WebSocketCloseFrame?, any Error>?, Result<WebSocketCloseFrame?, any Error>?) in
            guard state.result == nil, let result = decide(&state) else { return (nil, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (state.waiter, result)
        }
        if let waiter, let result { waiter.resume(with: result) }
    }
}
