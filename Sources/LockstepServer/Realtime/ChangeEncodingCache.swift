import LockstepCore
import Synchronization

/// Encodes an announced change as JSON once for all the channels that send it.
///
/// The hub hands one change to every subscriber of its bucket in turn, so remembering the
/// last change encoded turns a thousand encodings of a broadcast into one.
final class ChangeEncodingCache: Sendable {
    private struct Entry {
        var scope: BucketScope
        var version: ChangeVersion
        var extensions: Bool
        var bytes: [UInt8]
    }

    private let last = Mutex<Entry?>(nil)

    init() {}

    /// The change's wire JSON (``ChangeEvent/wireJSON(extensions:)``), encoded.
    func bytes(for event: ChangeEvent, extensions: Bool) -> [UInt8] {
        if let hit = last.withLock({ entry in
            entry.flatMap { $0.version == event.version && $0.scope == event.scope && $0.extensions == extensions ? $0.bytes : nil }
        }) {
            return hit
        }
        let bytes = event.wireJSON(extensions: extensions).jsonBytes
        last.withLock { $0 = Entry(scope: event.scope, version: event.version, extensions: extensions, bytes: bytes) }
        return bytes
    }
}
