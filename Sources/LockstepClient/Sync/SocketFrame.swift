/// One text frame of the streaming protocol: `h:<n>` for the connection, or
/// `<channel>:<command>[:<payload>]` for a bucket's channel (the payload may hold colons).
enum SocketFrame: Equatable {
    case heartbeat(Int)
    case channel(Int, command: String, payload: String)
    case other(String)

    init(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else {
            self = .other(text)
            return
        }
        let prefix = text[..<colon]
        let rest = text[text.index(after: colon)...]
        if prefix == "h" {
            self = .heartbeat(Int(rest) ?? 0)
        } else if let channel = Int(prefix) {
            if let second = rest.firstIndex(of: ":") {
                self = .channel(channel, command: String(rest[..<second]), payload: String(rest[rest.index(after: second)...]))
            } else {
                self = .channel(channel, command: String(rest), payload: "")
            }
        } else {
            self = .other(text)
        }
    }
}
