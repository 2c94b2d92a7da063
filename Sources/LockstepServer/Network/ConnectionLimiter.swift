import Synchronization

/// Counts the connections open from each address and refuses those past a cap, so that one
/// client cannot hold every socket the server has (``Limits/maximumConnectionsPerAddress``).
///
/// Trusted proxies are not counted: every client behind one shares its address.
final class ConnectionLimiter: Sendable {
    let maximumPerAddress: Int
    let trustedProxies: TrustedProxies
    private let open = Mutex<[String: Int]>([:])

    init(maximumPerAddress: Int, trustedProxies: TrustedProxies) {
        self.maximumPerAddress = maximumPerAddress
        self.trustedProxies = trustedProxies
    }

    /// A connection from `address` opens: `false` when it is one too many. Each admitted
    /// connection is released with ``release(_:)`` when it closes.
    func admit(_ address: IPAddress?) -> Bool {
        guard let key = key(address) else { return true }
        return open.withLock { open in
            let count = open[key, default: 0]
            guard count < maximumPerAddress else { return false }
            open[key] = count + 1
            return true
        }
    }

    func release(_ address: IPAddress?) {
        guard let key = key(address) else { return }
        open.withLock { open in
            let count = open[key, default: 0] - 1
            open[key] = count > 0 ? count : nil
        }
    }

    /// The key an address is counted under; `nil` for connections not counted.
    private func key(_ address: IPAddress?) -> String? {
        guard maximumPerAddress > 0, let address, !trustedProxies.contains(address) else { return nil }
        return address.limitKey
    }
}
