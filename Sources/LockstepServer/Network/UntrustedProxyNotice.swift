import Logging
import Synchronization

/// Warns, once per peer, when requests arrive with `X-Forwarded-For` from a peer that is not
/// a trusted proxy: a server put behind a proxy without `--trusted-proxy` counts every
/// caller behind it as the proxy, so the per-caller rate limit throttles them all as one.
///
/// A client may send the header itself, so the warning says what to do only if the peer is
/// the operator's proxy; at most ``maximumPeers`` peers are warned about, so a client that
/// varies the header cannot fill the log.
final class UntrustedProxyNotice: Sendable {
    static let maximumPeers = 16
    private let warned = Mutex<Set<String>>([])

    /// Logs the warning if `peer` has not been warned about yet.
    func saw(forwardedRequestFrom peer: IPAddress, logger: Logger) {
        let first = warned.withLock { warned in
            guard warned.count < Self.maximumPeers else { return false }
            return warned.insert(peer.description).inserted
        }
        guard first else { return }
        logger.warning("""
            requests from \(peer) carry X-Forwarded-For, but \(peer) is not a trusted proxy: every caller behind it counts \
            as \(peer) for the rate limits. If it is your proxy, start lockstep serve with --trusted-proxy \(peer) \
            (or LOCKSTEP_TRUSTED_PROXIES); if not, a client sent the header itself and nothing needs doing
            """)
    }
}
