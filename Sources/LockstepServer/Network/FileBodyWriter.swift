#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOHTTP1

/// Sends a response's body straight from a file with `sendfile`, no byte of it passing through
/// the server's memory: how blob downloads keep up with a static file server.
///
/// Hummingbird's responses are written as `ByteBuffer`s, so a route cannot hand NIO a
/// `FileRegion` itself. Instead it answers with a body of the file's length that writes
/// nothing, and names the file in a header (``header``, `path;first;last`); this handler, on
/// the HTTP/1 side of the pipeline, takes the header out and writes the file's bytes as a
/// `FileRegion` before the response ends. Only routes of the server set the header.
final class FileBodyWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let header = "X-Lockstep-File-Body"

    private var pending: (path: String, first: Int, last: Int)?

    /// The header's value for bytes `range` of the file at `path`.
    static func value(path: String, range: ClosedRange<Int64>) -> String {
        "\(range.lowerBound);\(range.upperBound);\(path)"
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            // A WebSocket from here on: its frames are not HTTP parts (see RequestGuard).
            context.writeAndFlush(data, promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .head(var head):
            if let value = head.headers.first(name: Self.header) {
                head.headers.remove(name: Self.header)
                let parts = value.split(separator: ";", maxSplits: 2)
                if parts.count == 3, let first = Int(parts[0]), let last = Int(parts[1]) {
                    pending = (String(parts[2]), first, last)
                }
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard let file = pending else { return context.write(data, promise: promise) }
            pending = nil
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                // The response's length is promised already: all the client can learn is that it broke.
                promise?.fail(ChannelError.ioOnClosedChannel)
                return context.close(promise: nil)
            }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
            let region = FileRegion(fileHandle: handle, readerIndex: file.first, endIndex: file.last + 1)
            context.write(wrapOutboundOut(.body(.fileRegion(region)))).whenComplete { _ in try? handle.close() }
            context.write(data, promise: promise)
        }
    }
}
