import Synchronization

/// The buckets this client has a peer link open for now.
///
/// While a bucket has one, a local write hands its change to the peer log in the write's own
/// transaction (one flush, not a second one when the link's sender wakes up). Without one,
/// unsent edits to an object keep coalescing into one change for the server, as they did.
final class PeerLinks: Sendable {
    private let open = Mutex([String: Int]())

    func opened(bucket: String) {
        open.withLock { $0[bucket, default: 0] += 1 }
    }

    func closed(bucket: String) {
        open.withLock { open in
            open[bucket, default: 1] -= 1
            if open[bucket] == 0 { open[bucket] = nil }
        }
    }

    func isLinked(_ bucket: String) -> Bool {
        open.withLock { $0[bucket] != nil }
    }
}
