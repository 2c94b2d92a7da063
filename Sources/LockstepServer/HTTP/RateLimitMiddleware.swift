import HTTPTypes
import Hummingbird

/// Refuses requests past a caller's rate with 429, so one client cannot starve the rest.
///
/// A caller is its access token once the token has proved real (``VerifiedTokens``), and
/// otherwise its address: the peer's, or behind a trusted proxy the one `X-Forwarded-For`
/// names (``TrustedProxies``). Made-up tokens are charged to the address that sends them,
/// so they buy nothing. A token not seen lately is looked up only when its address has run
/// out, so that a real user behind an address someone else floods is still served. `create/` and `authorize/` are also charged to a per-address budget
/// of their own (``Limits/accountRequestsPerMinute``), since each costs a password hash.
///
/// Release windows and keys are not limited: they are immutable, served from memory, and a
/// release brings every player for the same key at once.
struct RateLimitMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let requests: RateLimiter
    let accountRequests: RateLimiter
    let trustedProxies: TrustedProxies
    let accounts: AccountService
    let untrustedProxies = UntrustedProxyNotice()

    init(limits: Limits, trustedProxies: TrustedProxies, accounts: AccountService) {
        requests = RateLimiter(ratePerSecond: limits.httpRequestsPerSecond)
        accountRequests = RateLimiter(ratePerSecond: limits.accountRequestsPerMinute / 60, burst: limits.accountRequestsPerMinute * 2)
        self.trustedProxies = trustedProxies
        self.accounts = accounts
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        if request.method == .get && path.first == "releases" { return try await next(request, context) }

        let peer = context.remoteAddress.flatMap(IPAddress.init)
        let forwardedFor = request.headers[values: .xForwardedFor]
        if let peer, !forwardedFor.isEmpty, !trustedProxies.contains(peer) {
            untrustedProxies.saw(forwardedRequestFrom: peer, logger: context.logger)
        }
        let client = trustedProxies.client(peer: peer, forwardedFor: forwardedFor)
        let address = "address:" + (client?.limitKey ?? "unknown")
        let tokenHash = request.accessToken.map(Secrets.hash)
        var allowed: Bool
        if let tokenHash, accounts.verifiedTokens.contains(tokenHash) {
            allowed = requests.allow("token:" + tokenHash)
        } else {
            allowed = requests.allow(address)
            if !allowed, let tokenHash, try await accounts.recognizes(tokenHash: tokenHash) {
                allowed = requests.allow("token:" + tokenHash)
            }
        }
        guard allowed else {
            throw HTTPError(
                .tooManyRequests, headers: [.retryAfter: "1"],
                message: "more than \(Int(requests.ratePerSecond)) requests per second; slow down")
        }
        if request.method == .post, path.count == 3, path[0] == "1", path[2] == "create" || path[2] == "authorize" {
            guard accountRequests.allow(address) else {
                throw HTTPError(
                    .tooManyRequests, headers: [.retryAfter: "60"],
                    message: "more than \(Int(accountRequests.ratePerSecond * 60)) sign-ups and sign-ins a minute from your address; wait a minute")
            }
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
