import HTTPTypes
import Hummingbird
import HummingbirdCore
import LockstepCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The server's child channel: HTTP/1.1 served by Hummingbird's responder, and streaming
/// connections (`/sock/1/{app}/websocket`, the Simperium protocol) upgraded to WebSockets that
/// are served on the event loop with no task of their own.
///
/// An HTTP connection is served by a task, as Hummingbird serves it. An upgraded socket is not:
/// its frames are read by a channel handler (``SocketFrameReader``), its messages are handled
/// by a task only while some wait (``SocketInbox``), and what it sends is written by its
/// ``SocketOutbox`` on the event loop. So ten thousand idle sockets cost ten thousand channels
/// and their state, not ten thousand suspended tasks and their async frames.
struct StreamingChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        case socket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// The request asked for a WebSocket the server does not serve, or not to its page.
        case refusedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, UpgradeRefusal)
    }

    /// Why an upgrade was refused.
    enum UpgradeRefusal: Sendable {
        /// Not a socket's path, or no such app: 400.
        case notServed
        /// A page of an origin the server does not list (``OriginPolicy``): 403, saying so.
        case origin(String)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let services: LockstepServices
    /// Each event loop tells its own sockets' channels of a change (``ChangeHub/subscribe(_:on:_:)``),
    /// so each encodes it once, in a cache of its own.
    let encodings = PerEventLoop { _ in ChangeEncodingCache() }

    init(responder: @escaping HTTPChannelHandler.Responder, services: LockstepServices) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.services = services
    }

    /// A WebSocket upgrade is taken only as a connection's first request (NIO's upgrader reads
    /// no further). A later one, on a connection kept alive, is sent to the same address with
    /// `307` and the connection closed, so that the client asks again on a new connection.
    static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else { return try await responder(request, writer, channel) }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            try await writer.writeResponse(HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            throw LateUpgrade()
        }
    }

    /// Ends a connection whose later request asked for an upgrade.
    struct LateUpgrade: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let refusal = NIOLoopBoundBox(UpgradeRefusal?.none, eventLoop: channel.eventLoop)
            let limits = services.limits
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: Self.frameLimit(limits),
                shouldUpgrade: { [services] channel, head in
                    refusal.value = .notServed
                    guard head.method == .GET, let appID = Self.appID(inSocketPath: head.uri) else {
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    // CORS does not guard sockets: a page of any site may open one, so the
                    // server refuses those of origins it does not list.
                    if let refused = services.origins.socketRefusal(from: Self.caller(head, services.origins)) {
                        refusal.value = .origin(refused)
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    // Upgraded only for an app that exists; otherwise the client is answered 400
                    // with `Connection: close`, and holds no socket.
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    promise.completeWithTask { try await services.store.app(id: appID) != nil ? HTTPHeaders() : nil }
                    return promise.futureResult
                },
                upgradePipelineHandler: { [services, encodings] channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.serve(
                            channel, head: head, services: services, encoding: encodings.value(for: channel.eventLoop), logger: logger)
                        return .socket
                    }
                })
            let serverUpgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return refusal.value.map { .refusedUpgrade(asyncChannel, $0) } ?? .notUpgraded(asyncChannel)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: serverUpgrade)
            configuration.enablePipelining = false  // NIOAsyncChannel pipelines HTTP
            configuration.enableErrorHandling = false  // Hummingbird answers parser errors
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validate headers already
            // Hummingbird's bounds on a request's headers (RequestGuard answers past them with 431).
            let headerBounds = HTTP1Channel.Configuration().httpDecoder
            configuration.decoderConfiguration.maxHeaderFieldSize = headerBounds.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = headerBounds.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = headerBounds.maxHeaderFieldCount
            let upgradeResult = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            return Value(upgradeResult: upgradeResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .socket:
                // Served on the event loop from here on (``SocketConnection``).
                break
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refusedUpgrade(let http, let refusal):
                await Self.refuseUpgrade(http, because: refusal, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("the connection closed before its first request")
        } catch {
            logger.debug("a connection ended before it was served: \(error)")
        }
    }

    /// Who opens a socket, by its upgrade's `Origin` and `Host`.
    static func caller(_ head: HTTPRequestHead, _ origins: OriginPolicy) -> OriginPolicy.Caller {
        origins.caller(origins: head.headers["Origin"], host: head.headers.first(name: "Host"))
    }

    /// Frames up to what the server reads at all; longer ones close the socket with 1009.
    static func frameLimit(_ limits: Limits) -> Int {
        max(limits.maximumFrameBytes, limits.maximumMessageBytes)
    }

    /// The app of `/sock/1/{app}/websocket` (with or without a query), or `nil` for any other path.
    static func appID(inSocketPath uri: String) -> String? {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "sock", parts[2] == "1", !parts[3].isEmpty, parts[4] == "websocket"
        else { return nil }
        return String(parts[3]).removingPercentEncoding ?? String(parts[3])
    }

    /// On the event loop, once the `101` is written: the connection and the handler that reads it.
    private static func serve(
        _ channel: any Channel, head: HTTPRequestHead, services: LockstepServices, encoding: ChangeEncodingCache, logger: Logger
    ) throws {
        guard let appID = appID(inSocketPath: head.uri) else { throw ChannelError.inappropriateOperationForState }
        let peer = services.trustedProxies.client(
            peer: channel.remoteAddress.flatMap(IPAddress.init), forwardedFor: head.headers["X-Forwarded-For"])
        let pipeline = channel.pipeline.syncOperations
        let writer = SocketFrameWriter()
        try pipeline.addHandler(writer, position: .first)
        let info = services.connections.open(appID: appID, remoteAddress: peer?.description, at: services.clock.now())
        let connection = SocketConnection(
            info: info, services: services, encoding: encoding, channel: channel, writer: writer,
            caller: caller(head, services.origins), logger: logger)
        // The reader first: from here on, the socket's close ends the connection in the registry.
        try pipeline.addHandler(SocketFrameReader(connection: connection, messageLimit: frameLimit(services.limits)))
        try connection.start(on: pipeline)
    }

    /// Answers an upgrade the server does not serve with 400, or a page's it refuses with 403
    /// and a message, and closes the connection.
    private static func refuseUpgrade(
        _ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, because refusal: UpgradeRefusal, logger: Logger
    ) async {
        do {
            try await http.executeThenClose { _, outbound in
                switch refusal {
                case .notServed:
                    let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                    try await outbound.write(contentsOf: [.head(head), .end(nil)])
                case .origin(let message):
                    let body = ByteBuffer(bytes: JSONValue.object(["error": .object(["message": .string(message)])]).jsonBytes)
                    let head = HTTPResponse(status: .forbidden, headerFields: [
                        .connection: "close", .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes),
                    ])
                    try await outbound.write(contentsOf: [.head(head), .body(body), .end(nil)])
                }
            }
        } catch {
            logger.trace("could not answer a refused upgrade: \(error)")
        }
    }
}
