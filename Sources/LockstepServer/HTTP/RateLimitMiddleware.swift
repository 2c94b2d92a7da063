import Hummingbird

/// Refuses requests past the per-caller rate with 429, so one client cannot starve the rest.
/// A caller is its access token when it sends one, otherwise its address.
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller: String
        if let token = request.headers[.simperiumToken] {
            caller = "token:" + Secrets.hash(token)
        } else if let address = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress {
            caller = "address:" + address
        } else {
            caller = "anonymous"
        }
        guard limiter.allow(caller) else {
            throw HTTPError(
                .tooManyRequests, headers: [.retryAfter: "1"],
                message: "more than \(Int(limiter.ratePerSecond)) requests per second; slow down")
        }
        return try await next(request, context)
    }
}
