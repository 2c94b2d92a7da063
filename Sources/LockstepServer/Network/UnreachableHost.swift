/// Why the server will not connect to a host it was asked to reach (a webhook endpoint, an
/// identity provider's JWKS): its name does not resolve, or every address it has is one
/// ``PublicAddresses`` refuses.
struct UnreachableHost: Error, Sendable, CustomStringConvertible {
    enum Reason: Sendable {
        /// The name has no address, or looking it up failed.
        case resolution
        /// Its addresses are all loopback, private, link-local or otherwise refused.
        case refused
    }

    var reason: Reason
    var description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
