import NIOCore
import NIOHTTP1

/// Answers `GET /releases/{store}/windows/{start}` and `GET /releases/{store}/keys/{time}` on
/// the event loop, from what was computed once (a window's bytes, an hour's key chain), as a
/// static file server would: no task, no router, no middleware, one counter. A release brings
/// every player for the same window, then the same key, at once: these are the requests they
/// all make.
///
/// It answers only what it can answer exactly as ``ReleaseRoutes`` would, and lets everything
/// else through to Hummingbird: another path or method, a query, HTTP/1.0 or
/// `Connection: close`, a window or chain not computed yet, or a request that is refused (the
/// route says why). And it answers only when no request it let through is still waiting for
/// its response, so responses leave in the order their requests came.
///
/// A request from a web page (one with `Origin`) goes through to Hummingbird too, whose
/// ``CrossOriginMiddleware`` answers it for its origin; with origins listed, every answer here
/// says it varies by `Origin`, so that a cache in front never hands it to a page it would not
/// be given to.
///
/// Sits after ``FileBodyWriter``, so ``RequestGuard`` sees its requests and responses like any
/// other; a WebSocket upgrade's `101` takes it out of the pipeline.
final class ReleaseFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let releases: ReleaseService
    /// Whether answers vary by `Origin`: some origin is listed (``OriginPolicy``).
    private let varyByOrigin: Bool
    /// Requests let through whose response has not ended.
    private var unanswered = 0
    /// The answer to the request being read, once its end arrives; `nil` while letting one through.
    private var answering: (answer: ReleaseAnswer, notModified: Bool)?

    init(releases: ReleaseService, origins: OriginPolicy) {
        self.releases = releases
        self.varyByOrigin = !origins.allowed.isEmpty
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if unanswered == 0, let answer = answer(to: head) {
                answering = answer
                return
            }
            unanswered += 1
        case .body:
            // A GET's body means nothing to a window.
            if answering != nil { return }
        case .end:
            if let (answer, notModified) = answering {
                answering = nil
                return respond(answer, notModified: notModified, context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            // A WebSocket from here on: its frames are not HTTP parts (see RequestGuard).
            context.writeAndFlush(data, promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        case .end:
            unanswered = max(0, unanswered - 1)
        case .head, .body:
            break
        }
        context.write(data, promise: promise)
    }

    private func answer(to head: HTTPRequestHead) -> (answer: ReleaseAnswer, notModified: Bool)? {
        guard head.method == .GET, head.version == .http1_1, head.isKeepAlive, !head.uri.utf8.contains(UInt8(ascii: "?")),
            !head.headers.contains(name: "Origin")
        else { return nil }
        let path = head.uri.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        // "", "releases", store, "windows" or "keys", start or time
        guard path.count == 5, path[0].isEmpty, path[1].elementsEqual("releases".utf8),
            let store = String(path[2]), let time = String(path[4])
        else { return nil }
        let found: ReleaseAnswer?
        if path[3].elementsEqual("windows".utf8) {
            found = releases.windowAnswerAtHand(store: store, start: time)
        } else if path[3].elementsEqual("keys".utf8) {
            found = releases.keyAnswerAtHand(store: store, time: time)
        } else {
            found = nil
        }
        guard let answer = found else { return nil }
        let tags = head.headers[canonicalForm: "If-None-Match"].map(String.init).joined(separator: ",")
        return (answer, answer.isNotModified(ifNoneMatch: tags.isEmpty ? nil : tags))
    }

    private func respond(_ answer: ReleaseAnswer, notModified: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(answer.headers)
        headers.add(name: "Server", value: "Lockstep")
        if varyByOrigin { headers.add(name: "Vary", value: "Origin") }
        if notModified {
            headers.add(name: "Content-Length", value: "0")
        } else {
            headers.add(name: "Content-Type", value: ReleaseAnswer.contentType)
            headers.add(name: "Content-Length", value: String(answer.body.readableBytes))
        }
        let status: HTTPResponseStatus = notModified ? .notModified : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !notModified { context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        releases.answeredAtHand.add(1, ordering: .relaxed)
        LockstepMetrics.releasesAnsweredAtHand.increment()
    }
}
