import CommandLineSupport
import NIOCore

/// Reads what a Lockstep server sends a benchmark subscriber (``StreamSubscription``): the
/// HTTP answer to its upgrade request, then WebSocket frames (RFC 6455), whole messages put
/// back together from their fragments. Only what a subscriber meets is read: text, ping and
/// close frames from a server, which never masks them.
struct ServerFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = StreamSubscription.Inbound

    private var isUpgraded = false
    /// A text message whose last fragment has not come yet.
    private var fragments: ByteBuffer?

    private static let headerEnd = Array("\r\n\r\n".utf8)

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard isUpgraded else { return readUpgradeAnswer(context: context, buffer: &buffer) }
        guard let (fin, opcode, payload) = try readFrame(&buffer) else { return .needMoreData }
        switch opcode {
        case 0x1, 0x0:
            var message = fragments ?? context.channel.allocator.buffer(capacity: payload.readableBytes)
            var payload = payload
            message.writeBuffer(&payload)
            if fin {
                fragments = nil
                context.fireChannelRead(wrapInboundOut(.text(message)))
            } else {
                fragments = message
            }
        case 0x9: context.fireChannelRead(wrapInboundOut(.ping(payload)))
        case 0x8: context.fireChannelRead(wrapInboundOut(.close))
        default: break
        }
        return .continue
    }

    private mutating func readUpgradeAnswer(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        let end = buffer.withUnsafeReadableBytes { bytes in
            bytes.indices.dropLast(3).first { index in (0..<4).allSatisfy { bytes[index + $0] == Self.headerEnd[$0] } }
        }
        guard let end, let header = buffer.readString(length: end + 4) else { return .needMoreData }
        // "HTTP/1.1 101 Switching Protocols"
        let status = header.split(separator: " ", maxSplits: 2).dropFirst().first ?? ""
        isUpgraded = true
        context.fireChannelRead(wrapInboundOut(.upgraded(status: status)))
        return .continue
    }

    /// One frame: whether it is a message's last, its opcode and its payload; `nil` until all of
    /// it has arrived.
    private func readFrame(_ buffer: inout ByteBuffer) throws -> (fin: Bool, opcode: UInt8, payload: ByteBuffer)? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else { return nil }
        guard second & 0x80 == 0 else { throw CommandError("the server sent a masked frame") }
        var headerBytes = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            (length, headerBytes) = (Int(extended), 4)
        } else if length == 127 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            (length, headerBytes) = (Int(extended), 10)
        }
        guard buffer.readableBytes >= headerBytes + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headerBytes)
        let payload = buffer.readSlice(length: length)!
        return (first & 0x80 != 0, first & 0x0F, payload)
    }
}

/// A frame from a client: always masked (RFC 6455 §5.3), here with the key 0, which leaves the
/// payload as it is.
enum ClientFrame {
    static func masked(_ payload: [UInt8], opcode: UInt8) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.writeInteger(0x80 | opcode)
        switch payload.count {
        case ..<126:
            frame.writeInteger(0x80 | UInt8(payload.count))
        case ..<65536:
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(payload.count))
        default:
            frame.writeInteger(UInt8(0x80 | 127))
            frame.writeInteger(UInt64(payload.count))
        }
        frame.writeInteger(UInt32(0))
        frame.writeBytes(payload)
        return frame
    }
}
