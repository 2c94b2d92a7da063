import LockstepCore
import NIOCore
import NIOHTTP1

/// Holds each HTTP connection to deadlines and answers requests the parser refuses.
///
/// Sits right after the HTTP decoder, so it sees requests as the parser makes them and
/// responses as they leave; a ``RequestBytesWatcher`` before the decoder tells it when the
/// first bytes of a request arrive:
///
/// - **Idle deadline**: a connection with no request under way (just opened, or kept alive
///   after a response) is closed past ``Limits/idleConnectionTimeoutSeconds``. It is longer
///   than HTTP clients keep idle connections in their pools (60 s for AsyncHTTPClient), so a
///   client does not send a request on a connection the server is closing that moment.
/// - **Header deadline**: from a request's first bytes to the end of its header. A header sent
///   a few bytes at a time is closed past it, so half-sent requests cannot pile up.
/// - **Body deadline**: from the end of a request's header to the end of its body.
/// - **Refused requests**: a request the parser cannot take (a header over the size or count
///   limits, an unknown method, malformed syntax) is answered `431` or `400` with a JSON error
///   and `Connection: close`, and the connection is closed.
///
/// A WebSocket upgrade takes the guard (and its watcher) out of the pipeline with its `101`
/// response: the streaming connection has deadlines of its own
/// (``Limits/socketInitTimeoutSeconds``, the heartbeat timeout).
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let idleTimeout: TimeAmount?
    private let headerTimeout: TimeAmount?
    private let bodyTimeout: TimeAmount?
    private var context: ChannelHandlerContext?
    /// Requests whose header arrived and whose response has not ended.
    private var unanswered = 0
    /// Whether the last request read has ended, so that bytes arriving now begin the next.
    private var betweenRequests = true
    /// Whether bytes of a request whose header has not been read yet arrived.
    private var requestBegun = false
    private var deadline: Scheduled<Void>?
    private var isClosing = false
    /// Told when bytes arrive; removed with the guard at an upgrade.
    private(set) lazy var watcher = RequestBytesWatcher(requestGuard: self)

    init(limits: Limits) {
        func amount(_ seconds: Double) -> TimeAmount? { seconds > 0 ? .nanoseconds(Int64(seconds * 1e9)) : nil }
        idleTimeout = amount(limits.idleConnectionTimeoutSeconds)
        headerTimeout = amount(limits.requestHeaderTimeoutSeconds)
        bodyTimeout = amount(limits.requestBodyTimeoutSeconds)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        schedule(idleTimeout, context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    /// Bytes arrived (from ``RequestBytesWatcher``): a request begins, unless one is under way.
    func bytesArrived() {
        guard betweenRequests, !requestBegun, let context else { return }
        requestBegun = true
        // While a response is under way the next request's bytes wait in the decoder; its
        // header deadline starts once that response has ended.
        if unanswered == 0 { schedule(headerTimeout, context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            betweenRequests = false
            requestBegun = false
            schedule(bodyTimeout, context)
        case .body:
            break
        case .end:
            betweenRequests = true
            // Answered before its body was all in (a route that does not read it): the
            // connection waits for its next request now.
            if unanswered == 0 { schedule(idleTimeout, context) } else { cancelDeadline() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            // Flushed here: the flush that follows this write (the upgrader writes and
            // flushes at once) would reach this handler once removed, and go no further.
            context.writeAndFlush(data, promise: promise)
            cancelDeadline()
            context.pipeline.syncOperations.removeHandler(watcher, promise: nil)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        case .end:
            unanswered = max(0, unanswered - 1)
            if unanswered == 0 { schedule(requestBegun ? headerTimeout : idleTimeout, context) }
        case .head, .body:
            break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isClosing { return }
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        if unanswered == 0 {
            // No response is under way: this answer is the only thing on the wire.
            let (status, message) = Self.refusal(parserError)
            let body = context.channel.allocator.buffer(bytes: JSONValue.object(["error": ["message": .string(message)]]).jsonBytes)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(
                version: .http1_1, status: status,
                headers: ["Connection": "close", "Content-Type": "application/json", "Content-Length": String(body.readableBytes)]))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        close(context)
    }

    // MARK: Deadlines

    private func schedule(_ timeout: TimeAmount?, _ context: ChannelHandlerContext) {
        cancelDeadline()
        guard let timeout, !isClosing else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            deadline = nil
            close(context)
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }

    /// Ends the connection. The handlers after this one are told first that no more input
    /// comes, which is how they expect a connection to end: the upgrade handler, still
    /// waiting for a first request, then ends quietly instead of failing.
    private func close(_ context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        cancelDeadline()
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }

    /// The status and words for a request the parser refused.
    static func refusal(_ error: HTTPParserError) -> (HTTPResponseStatus, String) {
        switch error {
        case .headerOverflow:
            (.requestHeaderFieldsTooLarge, "the request's header is too large: at most 80 KB and 1000 fields")
        case .invalidMethod:
            (.badRequest, "the request's method is not one HTTP knows")
        case .invalidURL:
            (.badRequest, "the request's target is not a valid URL path")
        default:
            (.badRequest, "the request is not valid HTTP/1.1 (\(error))")
        }
    }
}

/// Tells a ``RequestGuard`` when a request's first bytes arrive. It sits before the HTTP
/// decoder, which passes a request on only once its whole header is in.
final class RequestBytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var requestGuard: RequestGuard?

    init(requestGuard: RequestGuard) {
        self.requestGuard = requestGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        requestGuard?.bytesArrived()
        context.fireChannelRead(data)
    }
}
