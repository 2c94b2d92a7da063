import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of a test server, for the timing a slow network makes:
/// it can hold what clients send (delivering it, in order, on release), drop everything both
/// ways without closing anything, and cut every connection at once.
final class HoldingProxy: Sendable {
    let port: Int
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let gate = Gate()
    private let isDropping = Atomic<Bool>(false)
    private let connections = Mutex<[any Channel]>([])
    private let serving: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init(port: Int, server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>) {
        self.port = port
        self.server = server
    }

    /// Starts a proxy to `targetPort` on 127.0.0.1.
    static func start(to targetPort: Int) async throws -> HoldingProxy {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let proxy = HoldingProxy(port: server.channel.localAddress?.port ?? 0, server: server)
        proxy.serving.withLock { $0 = Task { await proxy.serve(to: targetPort) } }
        return proxy
    }

    /// From now on, bytes from clients wait in the proxy.
    func hold() { gate.close() }

    /// Delivers what was held, and lets bytes through again.
    func release() { gate.open() }

    /// From now on, bytes either way are read and thrown away and no connection is closed: a
    /// peer whose network vanished (no FIN, no RST), as both ends see it.
    func dropEverything() { isDropping.store(true, ordering: .relaxed) }

    /// Closes every connection through the proxy, as a network that drops does.
    func cutAll() {
        for channel in connections.withLock({ $0 }) { channel.close(promise: nil) }
    }

    func stop() async {
        cutAll()
        serving.withLock { $0 }?.cancel()
        try? await server.channel.close()
    }

    private func serve(to targetPort: Int) async {
        try? await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await client in inbound {
                    group.addTask { try? await self.relay(client, to: targetPort) }
                }
            }
        }
    }

    private func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to targetPort: Int) async throws {
        let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: targetPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        connections.withLock { $0 += [client.channel, upstream.channel] }
        try await client.executeThenClose { clientIn, clientOut in
            try await upstream.executeThenClose { upstreamIn, upstreamOut in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await bytes in clientIn {
                            await self.gate.wait()
                            guard !self.isDropping.load(ordering: .relaxed) else { continue }
                            try await upstreamOut.write(bytes)
                        }
                    }
                    group.addTask {
                        for try await bytes in upstreamIn where !self.isDropping.load(ordering: .relaxed) {
                            try await clientOut.write(bytes)
                        }
                    }
                    // Either side ending ends both.
                    try await group.next()
                    group.cancelAll()
                    client.channel.close(promise: nil)
                    upstream.channel.close(promise: nil)
                }
            }
        }
    }
}

/// Open or closed; waiters pass when it opens.
private final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((true, []))

    func close() { state.withLock { $0.isOpen = false } }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let passes = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }
}
