import Crypto
import LockstepCore
import Synchronization

/// The running SHA-256 of uploads under way on this node, so that an upload sent as many
/// `PATCH` requests is hashed once, as it arrives, and not read back from disk at each one.
///
/// A state is kept with the offset it reached; a `PATCH` that starts elsewhere (it went to
/// another node, or this node restarted) hashes what is on disk first. Bounded: past
/// ``capacity`` uploads the oldest state is forgotten, which costs a re-read, never a wrong hash.
final class UploadHashes: Sendable {
    struct Key: Hashable {
        var appID: String
        var uploader: String
        var hash: BlobHash
    }

    private struct Entry {
        var offset: Int64
        var hasher: SHA256
        var use: UInt64
    }

    private let entries = Mutex<(states: [Key: Entry], uses: UInt64)>(([:], 0))
    let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The hasher of the upload's first `offset` bytes, if this node has it (taken: a second
    /// request at the same offset does not get it too).
    func take(_ key: Key, at offset: Int64) -> SHA256? {
        entries.withLock { entries in
            guard let entry = entries.states.removeValue(forKey: key), entry.offset == offset else { return nil }
            return entry.hasher
        }
    }

    /// Keeps the hasher of the upload's first `offset` bytes.
    func keep(_ hasher: SHA256, for key: Key, at offset: Int64) {
        entries.withLock { entries in
            entries.uses += 1
            entries.states[key] = Entry(offset: offset, hasher: hasher, use: entries.uses)
            if entries.states.count > capacity, let oldest = entries.states.min(by: { $0.value.use < $1.value.use })?.key {
                entries.states.removeValue(forKey: oldest)
            }
        }
    }

    func forget(_ key: Key) {
        _ = entries.withLock { $0.states.removeValue(forKey: key) }
    }
}
