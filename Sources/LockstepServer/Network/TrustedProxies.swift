import Foundation

/// The proxies whose `X-Forwarded-For` the server believes: behind nginx, every connection
/// comes from nginx, and only the header says who the caller is. From anyone else the
/// header is the caller's own claim, and believing it would let one client pose as a
/// thousand and take a thousand allowances, so it is ignored.
///
/// `lockstep serve --trusted-proxy 127.0.0.1 --trusted-proxy 10.0.0.0/8` (or
/// `LOCKSTEP_TRUSTED_PROXIES="127.0.0.1 10.0.0.0/8"`); none by default.
public struct TrustedProxies: Sendable, Hashable {
    public var ranges: [AddressRange]

    public init(_ ranges: [AddressRange] = []) {
        self.ranges = ranges
    }

    /// Parses a list of CIDR blocks separated by commas or spaces; throws naming the entry
    /// that is not one.
    public init(parsing text: String) throws(TrustedProxyError) {
        var ranges: [AddressRange] = []
        for entry in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            guard let range = AddressRange(entry) else { throw TrustedProxyError(entry: String(entry)) }
            ranges.append(range)
        }
        self.init(ranges)
    }

    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Who is calling: the peer of the connection, or, when the peer is a trusted proxy, the
    /// nearest address in `X-Forwarded-For` (read from the right, as each proxy appends
    /// the address it took the request from) that is not itself a trusted proxy.
    ///
    /// An entry that is not an address ends the walk at the proxy that wrote it: whatever
    /// lies to its left was written by the caller and proves nothing.
    public func client(peer: IPAddress?, forwardedFor headers: [String]) -> IPAddress? {
        guard let peer, contains(peer) else { return peer }
        let hops = headers.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { break }
            client = address
            if !contains(address) { break }
        }
        return client
    }
}

/// A `--trusted-proxy` entry that is not an address or a CIDR block.
public struct TrustedProxyError: Error, CustomStringConvertible {
    public var entry: String
    public var description: String { "trusted proxy \"\(entry)\" is not an address or a CIDR block such as 10.0.0.0/8" }
}
