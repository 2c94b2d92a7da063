import ServiceLifecycle

/// Closes the streaming connections left when the server stops, and waits for them to wind down.
///
/// Upgraded sockets are served on the event loop with no task of their own
/// (``StreamingChannel``). A graceful stop closes them as the HTTP server quiesces
/// (``SocketFrameReader``); a cancelled server does not quiesce, and this closes what is left.
/// Either way it waits (up to ``patience``) until each connection has handled what it read, so
/// that nothing of a stopped server still runs against its store.
struct StreamingShutdown: Service {
    let connections: ConnectionRegistry
    var patience: Duration = .seconds(5)

    func run() async throws {
        try? await gracefulShutdown()
        // Not cancelled with this task: a cancelled server still lets its connections wind down.
        await Task { [connections, patience] in await connections.closeAll(within: patience) }.value
    }
}
