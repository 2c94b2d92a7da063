/// One text message from a streaming client, split the way Simperium clients build them.
///
/// ```
/// channel message    := <int channel> ":" <command> [":" <payload>]
/// connection message := "h:" <int> | "t:" <int> | "release:" | "log:" <payload>
/// ```
///
/// Only the first two colons separate: the payload keeps its own (JSON, `key.version`,
/// an index request's `data:mark:offset:limit`).
enum SocketMessage: Equatable {
    /// `h:<n>`, a heartbeat; `nil` when `n` is not a number.
    case heartbeat(Int?)
    /// `t:<t1>`, a clock exchange: the client's send time in nanoseconds since the Unix epoch;
    /// `nil` when it is not an integer.
    case clock(Int64?)
    /// `release:`, Lockstep's subscription to key releases: from then on the server pushes
    /// `release:{"store","epoch","index","key","time"}` at each release of the timed store.
    case releases
    /// `log:…`, remote logging, which the server does not ask for and ignores.
    case log
    /// `<channel>:<command>[:<payload>]`.
    case channel(Int, command: String, payload: String?)
    /// Anything else, kept for the error message.
    case unknown(String)

    /// Channel numbers are small (clients count them from 0); more digits are not a channel.
    static let maximumChannelDigits = 9

    init(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else {
            self = .unknown(text)
            return
        }
        let prefix = text[..<colon]
        let rest = text[text.index(after: colon)...]
        switch prefix {
        case "h":
            self = .heartbeat(Int(rest))
        case "t":
            self = .clock(Int64(rest))
        case "release":
            self = .releases
        case "log":
            self = .log
        default:
            guard !prefix.isEmpty, prefix.utf8.count <= Self.maximumChannelDigits,
                prefix.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let channel = Int(prefix)
            else {
                self = .unknown(text)
                return
            }
            if let second = rest.firstIndex(of: ":") {
                self = .channel(channel, command: String(rest[..<second]), payload: String(rest[rest.index(after: second)...]))
            } else {
                self = .channel(channel, command: String(rest), payload: nil)
            }
        }
    }
}
