import NIOCore

/// Splits a TCP stream into messages, each sent as a 4-byte big-endian length and its bytes.
struct LengthPrefixedFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maximumFrameBytes: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        // Refused before it is buffered, so a peer cannot make this device hold a huge message.
        guard Int(length) <= maximumFrameBytes else { throw PeerSyncError.messageTooLarge(Int(length)) }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        guard let frame = buffer.readSlice(length: Int(length)) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}

struct LengthPrefixedFrameEncoder: MessageToByteEncoder {
    typealias OutboundIn = ByteBuffer

    func encode(data: ByteBuffer, out: inout ByteBuffer) throws {
        out.writeInteger(UInt32(data.readableBytes))
        out.writeImmutableBuffer(data)
    }
}
