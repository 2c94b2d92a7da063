extension SocketMessage {
    /// Whether a received message is a change (`<channel>:c:…`), told from its first bytes
    /// without reading the rest.
    static func isChange(_ message: SocketInput) -> Bool {
        guard case .text(let text) = message else { return false }
        var digits = 0
        for byte in text.utf8.prefix(maximumChannelDigits + 3) {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: ":"): return digits > 0 && text.utf8.dropFirst(digits + 1).starts(with: "c:".utf8)
            default: return false
            }
        }
        return false
    }
}
