#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix

/// Finds the addresses of a host name (the system's resolver, on NIO's thread pool: it blocks),
/// so that a webhook request or a JWKS fetch connects to an address that was checked
/// (``PublicAddresses``), not to whatever the name resolves to when the connection is made
/// (DNS rebinding).
enum HostResolver {
    /// The host's addresses with `port`; an address literal is itself.
    static func addresses(of host: String, port: Int) async throws(UnreachableHost) -> [SocketAddress] {
        if IPAddress(host) != nil {
            do {
                return [try SocketAddress(ipAddress: host, port: port)]
            } catch {
                throw UnreachableHost(.resolution, "\(host) is not an address: \(error)")
            }
        }
        let result: Result<[SocketAddress], UnreachableHost>
        do {
            result = try await NIOThreadPool.singleton.runIfActive { lookUp(host, port: port) }
        } catch {
            throw UnreachableHost(.resolution, "looking \(host) up failed: \(error)")
        }
        return try result.get()
    }

    private static func lookUp(_ host: String, port: Int) -> Result<[SocketAddress], UnreachableHost> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(UnreachableHost(.resolution, "\(host) does not resolve: \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let raw = current.pointee.ai_addr {
                switch Int32(raw.pointee.sa_family) {
                case AF_INET:
                    raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(UnreachableHost(.resolution, "\(host) has no IPv4 or IPv6 address")) : .success(addresses)
    }
}
