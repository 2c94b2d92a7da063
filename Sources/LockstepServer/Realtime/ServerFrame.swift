import NIOCore
import NIOWebSocket

/// The bytes of a WebSocket frame the server sends (RFC 6455 §5.2): unmasked, so the same
/// bytes serve every socket, and one announcement framed once goes to a thousand sockets as
/// it is (``ChangeEncodingCache``).
enum ServerFrame {
    /// `payload` framed whole: its header and its bytes in one buffer.
    static func framing(_ payload: ByteBuffer, opcode: WebSocketOpcode = .text, fin: Bool = true) -> ByteBuffer {
        let length = payload.readableBytes
        var frame = ByteBuffer()
        frame.reserveCapacity(length + 10)
        frame.writeInteger((fin ? 0x80 : 0) | UInt8(webSocketOpcode: opcode))
        switch length {
        case ..<126:
            frame.writeInteger(UInt8(length))
        case ..<65_536:
            frame.writeInteger(UInt8(126))
            frame.writeInteger(UInt16(length))
        default:
            frame.writeInteger(UInt8(127))
            frame.writeInteger(UInt64(length))
        }
        var payload = payload
        frame.writeBuffer(&payload)
        return frame
    }

    /// A text message as frames of at most `fragmentBytes` each: small frames suit every
    /// client's frame limit.
    static func fragments(of text: ByteBuffer, fragmentBytes: Int) -> [ByteBuffer] {
        guard text.readableBytes > fragmentBytes else { return [framing(text)] }
        var text = text
        var frames: [ByteBuffer] = []
        var opcode = WebSocketOpcode.text
        while text.readableBytes > fragmentBytes, let fragment = text.readSlice(length: fragmentBytes) {
            frames.append(framing(fragment, opcode: opcode, fin: false))
            opcode = .continuation
        }
        frames.append(framing(text, opcode: opcode))
        return frames
    }
}
