import NIOCore

/// Which addresses the server connects to on its users' word — webhook endpoints, identity
/// providers' JWKS — unless `serve --webhooks-allow-private` or `--jwks-allow-private`:
/// public unicast ones. A server must not be a way into its own network, so loopback, private,
/// link-local (cloud metadata services live there), shared, multicast and reserved addresses
/// are refused, and IPv6 forms that carry an IPv4 address (NAT64, 6to4) are judged by it.
public enum PublicAddresses {
    /// The blocks refused, each with the name a refusal gives it.
    static let refused: [(range: AddressRange, name: String)] = [
        ("0.0.0.0/8", "\"this network\""), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "shared (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private"), ("192.0.0.0/24", "IETF protocol"),
        ("192.0.2.0/24", "documentation"), ("192.88.99.0/24", "6to4 relay"), ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"), ("198.51.100.0/24", "documentation"), ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("100::/64", "discard"), ("2001:db8::/32", "documentation"),
        ("fc00::/7", "private (unique local)"), ("fe80::/10", "link-local"), ("fec0::/10", "site-local"), ("ff00::/8", "multicast"),
    ].map { (AddressRange($0.0)!, $0.1) }

    /// Why `address` is refused, or `nil` when it is public.
    public static func refusal(_ address: IPAddress) -> String? {
        if let embedded = embeddedIPv4(address) { return refusal(embedded) }
        guard let block = refused.first(where: { $0.range.contains(address) }) else { return nil }
        return "\(address) is a \(block.name) address"
    }

    /// The addresses of `host` the server may connect to: every one when `allowingPrivate`,
    /// else its public ones. The caller connects to one of these, not to the name, so a name
    /// that resolves elsewhere by the time the connection is made (DNS rebinding) reaches
    /// nothing that was not checked. Throws why there is none; `option` names the `serve` flag
    /// that allows private addresses.
    static func reachableAddresses(
        of host: String, port: Int, allowingPrivate: Bool, option: String
    ) async throws(UnreachableHost) -> [SocketAddress] {
        let addresses = try await HostResolver.addresses(of: host, port: port)
        guard !allowingPrivate else { return addresses }
        var refusals: [String] = []
        let allowed = addresses.filter { address in
            guard let ip = IPAddress(address), let refusal = refusal(ip) else { return true }
            refusals.append(refusal)
            return false
        }
        guard !allowed.isEmpty else {
            throw UnreachableHost(.refused, "\(host) resolves to \(refusals.joined(separator: ", ")): start the server with \(option) to allow it")
        }
        return allowed
    }

    /// The IPv4 address an IPv6 address stands for: NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`),
    /// IPv4-compatible (`::a.b.c.d`).
    private static func embeddedIPv4(_ address: IPAddress) -> IPAddress? {
        let bytes = address.bytes
        guard bytes.count == 16 else { return nil }
        let nat64: [UInt8] = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        // `::` and `::1` are IPv6's own unspecified and loopback addresses.
        let compatible = bytes.prefix(12).allSatisfy { $0 == 0 } && !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1)
        if Array(bytes.prefix(12)) == nat64 || compatible { return IPAddress(bytes: Array(bytes.suffix(4))) }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }
}
