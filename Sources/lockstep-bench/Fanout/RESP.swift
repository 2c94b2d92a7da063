import NIOCore

/// The little of RESP (the Redis serialization protocol, version 2) that the fan-out
/// benchmark's Redis baseline speaks: commands out as arrays of bulk strings, and any reply in.
enum RESPValue: Sendable {
    case simple(String)
    case error(String)
    case integer(Int)
    /// `nil`: the null bulk string.
    case bulk(ByteBuffer?)
    /// `nil`: the null array.
    case array([RESPValue]?)

    /// The text of a simple or bulk string.
    var text: String? {
        switch self {
        case .simple(let text): text
        case .bulk(let bytes?): String(buffer: bytes)
        default: nil
        }
    }
}

enum RESP {
    /// A command as Redis reads it: `*<n>\r\n` then each part as `$<length>\r\n<bytes>\r\n`.
    static func command(_ parts: [String], into buffer: inout ByteBuffer) {
        buffer.writeString("*\(parts.count)\r\n")
        for part in parts {
            buffer.writeString("$\(part.utf8.count)\r\n")
            buffer.writeString(part)
            buffer.writeString("\r\n")
        }
    }
}

/// Reads replies off a Redis connection, each once all of it has arrived.
struct RESPDecoder: ByteToMessageDecoder {
    typealias InboundOut = RESPValue

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        var peek = buffer
        guard let value = try Self.value(from: &peek) else { return .needMoreData }
        buffer = peek
        context.fireChannelRead(wrapInboundOut(value))
        return .continue
    }

    /// The value at the front of `buffer`, consumed; `nil` (and `buffer` in an unknown state)
    /// when not all of it has arrived yet.
    private static func value(from buffer: inout ByteBuffer) throws -> RESPValue? {
        guard let kind = buffer.readInteger(as: UInt8.self), let line = readLine(&buffer) else { return nil }
        switch kind {
        case UInt8(ascii: "+"): return .simple(line)
        case UInt8(ascii: "-"): return .error(line)
        case UInt8(ascii: ":"):
            guard let number = Int(line) else { throw Malformed(description: "integer \(line)") }
            return .integer(number)
        case UInt8(ascii: "$"):
            guard let length = Int(line) else { throw Malformed(description: "bulk length \(line)") }
            guard length >= 0 else { return .bulk(nil) }
            guard buffer.readableBytes >= length + 2, let bytes = buffer.readSlice(length: length) else { return nil }
            buffer.moveReaderIndex(forwardBy: 2)
            return .bulk(bytes)
        case UInt8(ascii: "*"):
            guard let count = Int(line) else { throw Malformed(description: "array length \(line)") }
            guard count >= 0 else { return .array(nil) }
            var elements: [RESPValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                guard let element = try value(from: &buffer) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        default:
            throw Malformed(description: "reply type \(kind)")
        }
    }

    /// The text up to the next CRLF, consumed with it.
    private static func readLine(_ buffer: inout ByteBuffer) -> String? {
        // The view's indices are the buffer's own: its first is the reader index.
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\r")) else { return nil }
        let length = end - buffer.readerIndex
        guard buffer.readableBytes >= length + 2, let line = buffer.readString(length: length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }
}
