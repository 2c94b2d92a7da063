#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import NIOCore

/// An IPv4 or IPv6 address as its bytes: what rate limits and connection caps count callers
/// by, and what trusted proxy ranges are matched against.
///
/// IPv4 addresses written as IPv6 (`::ffff:192.0.2.1`, what a dual-stack socket reports) are
/// taken as the IPv4 address they carry, so one caller has one form.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes for IPv4, sixteen for IPv6, in network order.
    public let bytes: [UInt8]

    /// Parses a textual address (`192.0.2.1`, `2001:db8::1`); `nil` for anything else, a
    /// host name or a port included.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(normalizing: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(normalizing: withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// The address of a socket peer; `nil` for a Unix domain socket.
    public init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            self.init(normalizing: withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            self.init(normalizing: withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }

    private init(normalizing bytes: [UInt8]) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        if bytes.count == 16 && Array(bytes.prefix(12)) == mappedPrefix {
            self.bytes = Array(bytes.suffix(4))
        } else {
            self.bytes = bytes
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The key under which limits count this caller: an IPv4 address as itself, an IPv6
    /// address by its /64 network, since one subscriber is handed a whole /64 and could
    /// otherwise take a fresh allowance with every address in it.
    public var limitKey: String {
        isIPv4 ? description : IPAddress(unchecked: Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)).description + "/64"
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An address from its 4 or 16 bytes in network order; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.init(normalizing: bytes)
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
