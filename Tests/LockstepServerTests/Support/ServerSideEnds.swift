import Foundation
import LockstepServer

/// How the server ended its streaming connections, and when it closed them: closing is the
/// server's act, timed where it happens rather than where a busy test notices it.
final class ServerSideEnds: Sendable {
    private let ends = Mailbox<SocketConnectionEnd>()
    private let clock: ServerClockSource

    init(_ server: TestServer) {
        let ends = ends
        clock = server.services.clock
        server.services.connections.observe { event in
            if case .closed(let end) = event { ends.deliver(end) }
        }
    }

    /// Server time now, to measure closes from.
    var now: Int64 { clock.now() }

    /// The next connection the server ended, why, and when it closed it (server time).
    func next(timeout: Duration = .seconds(10)) async -> (reason: SocketCloseReason, at: Int64)? {
        guard let end = await ends.next(timeout: timeout, where: { _ in true }) else { return nil }
        return (end.reason, end.serverClosedAt ?? .max)
    }
}

/// Nanoseconds as seconds, for messages.
func seconds(_ nanoseconds: Int64) -> String {
    String(format: "%.3f s", Double(nanoseconds) / 1e9)
}
