import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Sends one webhook request and reads the start of its answer: HTTP/1.1 over a connection of
/// its own, to an address it checked.
///
/// The host is resolved here and the connection made to one of its addresses, each checked
/// against ``PublicAddresses`` first (unless private ones are allowed): a name that resolved to
/// a public address when the endpoint was added and resolves to a private one now (DNS
/// rebinding) is refused at this request. TLS verifies the certificate against the system's
/// roots and the URL's host name. Redirects are answers like any other (a 3xx is not a 2xx):
/// none is followed. The whole exchange, connecting included, has ``WebhookLimits/timeoutSeconds``;
/// of the response's body only ``WebhookLimits/responseBytesKept`` bytes are read, then the
/// connection is closed.
final class WebhookSender: Sendable {
    /// A loop of its own, made at the first request: requests to endpoints never share the
    /// event loops that serve clients, and a server that sends none starts no thread.
    private let group = Mutex<MultiThreadedEventLoopGroup?>(nil)
    private let limits: WebhookLimits
    /// `nil` when the system's trust roots could not be loaded: then https requests fail, saying so.
    private let tls: NIOSSLContext?
    private let tlsProblem: String?

    struct Request: Sendable {
        var url: WebhookURL
        /// Beyond `Host`, `Content-Length`, `Content-Type` and `Connection`, which are set here.
        var headers: [(String, String)]
        var body: [UInt8]
    }

    struct Response: Sendable {
        var status: Int
        /// The body's first bytes.
        var body: [UInt8]
    }

    init(limits: WebhookLimits) {
        self.limits = limits
        do {
            tls = try NIOSSLContext(configuration: .makeClientConfiguration())
            tlsProblem = nil
        } catch {
            tls = nil
            tlsProblem = "TLS is not available: \(error)"
        }
    }

    deinit {
        group.withLock { $0 }?.shutdownGracefully { _ in }
    }

    private var loop: any EventLoop {
        group.withLock { group in
            if let group { return group.next() }
            let made = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            group = made
            return made.next()
        }
    }

    /// The addresses of the URL's host that requests may go to; throws the reason when none may.
    func allowedAddresses(_ url: WebhookURL) async throws(WebhookSendError) -> [SocketAddress] {
        do {
            return try await PublicAddresses.reachableAddresses(
                of: url.host, port: url.port, allowingPrivate: limits.allowPrivateAddresses, option: "--webhooks-allow-private")
        } catch {
            switch error.reason {
            case .resolution: throw .resolution(error.description)
            case .refused: throw .refused(error.description)
            }
        }
    }

    func send(_ request: Request) async throws(WebhookSendError) -> Response {
        let deadline = NIODeadline.now() + .nanoseconds(Int64(limits.timeoutSeconds * 1e9))
        let addresses = try await allowedAddresses(request.url)
        var failures: [String] = []
        for address in addresses {
            do {
                return try await send(request, to: address, deadline: deadline)
            } catch .connection(let problem) {
                // Another address of the host may answer.
                failures.append(problem)
                continue
            }
        }
        throw .connection(failures.joined(separator: "; "))
    }

    private func send(_ request: Request, to address: SocketAddress, deadline: NIODeadline) async throws(WebhookSendError) -> Response {
        if request.url.isSecure, tls == nil { throw .tls(tlsProblem ?? "TLS is not available") }
        let tls = request.url.isSecure ? tls : nil
        let serverName = IPAddress(request.url.host) == nil ? request.url.host : nil
        let keep = limits.responseBytesKept
        let loop = self.loop
        let answer = loop.makePromise(of: Response.self)
        let remaining = deadline - .now()
        guard remaining > .zero else { throw .timeout(limits.timeoutSeconds) }
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(remaining)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(answer: answer, keep: keep))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(to: address).get()
        } catch {
            answer.fail(error)
            if let error = error as? ChannelError, case .connectTimeout = error { throw .timeout(limits.timeoutSeconds) }
            throw .connection("connecting to \(address) failed: \(error)")
        }
        let timeout = loop.scheduleTask(deadline: deadline) {
            answer.fail(WebhookSendError.timeout(self.limits.timeoutSeconds))
            channel.close(promise: nil)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: request.url.hostHeader)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(request.body.count))
        headers.add(name: "Connection", value: "close")
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: request.url.target, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: request.body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            timeout.cancel()
            channel.close(promise: nil)
        }
        do {
            // A server that stops does not wait for the request.
            return try await withTaskCancellationHandler {
                try await answer.futureResult.get()
            } onCancel: {
                answer.fail(WebhookSendError.connection("the server is stopping"))
                channel.close(promise: nil)
            }
        } catch let error as WebhookSendError {
            throw error
        } catch let error as NIOSSLError {
            throw .tls("\(error)")
        } catch let error as BoringSSLError {
            throw .tls("\(error)")
        } catch {
            throw .protocolError("\(error)")
        }
    }
}

/// Why a webhook request got no response.
enum WebhookSendError: Error, Sendable, CustomStringConvertible {
    /// The host's addresses are not allowed (``PublicAddresses``).
    case refused(String)
    case resolution(String)
    case connection(String)
    case timeout(Double)
    case tls(String)
    case protocolError(String)

    var description: String {
        switch self {
        case .refused(let why): "refused: \(why)"
        case .resolution(let why): why
        case .connection(let why): why
        case .timeout(let seconds): "no response within \(seconds.formatted()) s"
        case .tls(let why): "TLS failed: \(why)"
        case .protocolError(let why): "the response was not HTTP/1.1: \(why)"
        }
    }
}

/// Reads a response's status and the first bytes of its body, then answers.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let answer: EventLoopPromise<WebhookSender.Response>
    private let keep: Int
    private var status: Int?
    private var body: [UInt8] = []
    private var answered = false

    init(answer: EventLoopPromise<WebhookSender.Response>, keep: Int) {
        self.answer = answer
        self.keep = keep
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            if keep == 0 { finish(context) }
        case .body(var buffer):
            let wanted = min(keep - body.count, buffer.readableBytes)
            if wanted > 0, let bytes = buffer.readBytes(length: wanted) { body += bytes }
            // What is past the kept bytes is never read.
            if body.count >= keep { finish(context) }
        case .end:
            finish(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !answered {
            answered = true
            answer.fail(WebhookSendError.connection("the connection closed before a complete response"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !answered {
            answered = true
            answer.fail(error)
        }
        context.close(promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext) {
        answered = true
        answer.succeed(WebhookSender.Response(status: status ?? 0, body: body))
        context.close(promise: nil)
    }
}
