/// A block of addresses in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`, or one address
/// alone): how trusted proxies are configured.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// Parses `address/prefix` or a bare address (a block of one); `nil` when it is neither.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed) else { return nil }
            length = parsed
        }
        self.network = address
        self.prefixLength = length
    }

    /// Whether `address` is in the block; an IPv4 address is never in an IPv6 block nor the
    /// other way round.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (candidate, reference) in zip(address.bytes, network.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if candidate & mask != reference & mask { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String { "\(network)/\(prefixLength)" }
}
