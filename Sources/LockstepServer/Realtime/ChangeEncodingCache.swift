import LockstepCore
import NIOCore
import Synchronization

/// Encodes an announced change once for all the channels that send it.
///
/// The hub hands one change to every subscriber of its bucket in turn, so remembering the
/// last change encoded turns a thousand encodings of a broadcast into one, and a thousand
/// messages `N:c:[change]` and their WebSocket frames into one per channel number (most
/// clients use the same few), each a buffer every socket's write shares without copying it.
final class ChangeEncodingCache: Sendable {
    /// One change as channel ``channel`` announces it.
    struct Announcement: Sendable {
        let channel: Int
        /// `N:c:[change]`.
        let text: ByteBuffer
        /// ``text`` as WebSocket frames (``ServerFrame``): one, unless it is long enough to go
        /// in fragments (``SocketOutbox/fragmentBytes``).
        let frames: [ByteBuffer]
    }

    private struct Entry {
        let scope: BucketScope
        let version: ChangeVersion
        let extensions: Bool
        let change: [UInt8]
        var announcements: [Int: Announcement] = [:]

        init(_ event: ChangeEvent, extensions: Bool) {
            scope = event.scope
            version = event.version
            self.extensions = extensions
            change = event.wireJSONBytes(extensions: extensions)
        }

        func describes(_ event: ChangeEvent, extensions: Bool) -> Bool {
            version == event.version && scope == event.scope && self.extensions == extensions
        }

        mutating func announcement(on channel: Int) -> Announcement {
            if let built = announcements[channel] { return built }
            let text = SocketReply.changes(channel, [change])
            let built = Announcement(
                channel: channel, text: text, frames: ServerFrame.fragments(of: text, fragmentBytes: SocketOutbox.fragmentBytes))
            announcements[channel] = built
            return built
        }
    }

    private let last = Mutex<Entry?>(nil)

    init() {}

    /// The change announced on `channel`: `N:c:[change]`, the change as
    /// ``ChangeEvent/wireJSONBytes(extensions:)`` encodes it.
    func announcement(of event: ChangeEvent, channel: Int, extensions: Bool) -> Announcement {
        last.withLock { last in
            // Taken out and put back, so that adding a channel's frame does not copy the others.
            var entry = last.take().flatMap { $0.describes(event, extensions: extensions) ? $0 : nil } ?? Entry(event, extensions: extensions)
            let announcement = entry.announcement(on: channel)
            last = entry
            return announcement
        }
    }
}
