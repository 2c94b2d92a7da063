import LockstepCore
import Synchronization
import Testing

/// Checks the frames of one connection against the streaming protocol's promise: after
/// `init`, a change reaches a channel once and in feed order. Each `N:c:[…]` change that
/// carries a `cv` must carry a later one than every change before it on that channel; a
/// break is recorded as an issue of the test that made the connection.
final class FeedOrderCheck: Sendable {
    private let last = Mutex<[Int: String]>([:])

    func check(_ frame: String) {
        guard let colon = frame.firstIndex(of: ":"), let channel = Int(frame[..<colon]) else { return }
        let rest = frame[frame.index(after: colon)...]
        if rest.hasPrefix("auth:") {
            // A channel initialized again starts over.
            last.withLock { $0[channel] = nil }
            return
        }
        guard rest.hasPrefix("c:"), let changes = (try? JSONValue(parsing: String(rest.dropFirst(2))))?.arrayValue else { return }
        for change in changes {
            guard let cv = change["cv"]?.stringValue else { continue }
            let previous = last.withLock { last -> String? in
                defer { if last[channel].map({ cv > $0 }) ?? true { last[channel] = cv } }
                return last[channel]
            }
            if let previous, cv <= previous {
                Issue.record("channel \(channel) received \(change["id"] ?? "?") at cv \(cv) after cv \(previous): a change twice or out of feed order")
            }
        }
    }
}
