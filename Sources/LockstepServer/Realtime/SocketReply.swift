import LockstepCore
import NIOCore

/// The text of what the server sends on a streaming connection.
enum SocketReply {
    /// `<channel>:<command>:<payload>`.
    static func channel(_ channel: Int, _ command: String, _ payload: String) -> ByteBuffer {
        ByteBuffer(string: "\(channel):\(command):\(payload)")
    }

    /// `<channel>:<command>:<json>`.
    static func channel(_ channel: Int, _ command: String, json: JSONValue) -> ByteBuffer {
        var buffer = ByteBuffer(string: "\(channel):\(command):")
        buffer.writeBytes(json.jsonBytes)
        return buffer
    }

    /// `<channel>:c:[…]` from change objects already encoded as JSON; `c:[]` when there are none.
    static func changes(_ channel: Int, _ encoded: [some Sequence<UInt8>]) -> ByteBuffer {
        var buffer = ByteBuffer(string: "\(channel):c:[")
        for (index, change) in encoded.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(change)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
        return buffer
    }

    /// Announcements of one channel, each `N:c:[change]`, as one `N:c:[change,…]`.
    static func merging(_ channel: Int, _ announcements: [ByteBuffer]) -> ByteBuffer {
        let prefixLength = "\(channel):c:[".utf8.count
        return changes(channel, announcements.map { $0.readableBytesView.dropFirst(prefixLength).dropLast() })
    }

    /// An error that the protocol has no message of its own for (an unknown command, a
    /// malformed request): `<channel>:?:{"code","message"}`, or `?:{…}` for the connection.
    ///
    /// `?` is the command simperium-ios logs as a "command error"; node-simperium and Android
    /// ignore commands they don't know, so none of them trips over it. (`error` would not do:
    /// node-simperium emits each command as an event, and an unhandled `error` event throws.)
    static func error(channel: Int?, code: Int, message: String) -> ByteBuffer {
        let body: JSONValue = ["code": .integer(Int64(code)), "message": .string(message)]
        guard let channel else {
            var buffer = ByteBuffer(string: "?:")
            buffer.writeBytes(body.jsonBytes)
            return buffer
        }
        return Self.channel(channel, "?", json: body)
    }
}
