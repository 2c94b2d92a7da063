import HTTPTypes
import Hummingbird

/// CORS for the origins the server lists (``OriginPolicy``), and the admin token kept from
/// pages of the others.
///
/// A page of a listed origin has its preflights answered here (they go no further) and its
/// answers, refusals included, carry `Access-Control-Allow-Origin` with the headers a client
/// reads exposed, so its script sees what a native client sees: the status, the server's
/// message, `X-Simperium-Version`, tus's `Upload-Offset` and `Location`. A page of any other
/// origin gets no CORS header (its script reads nothing) and its preflights a 403 that says
/// why. Native clients and the server's own pages pass untouched.
///
/// The token travels in a header, never a cookie, so no answer allows credentials: a page
/// holds a token only if its user gave it one.
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: OriginPolicy
    let accounts: AccountService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller = policy.caller(origins: request.headers[values: .origin], host: request.head.authority)
        switch caller {
        case .native, .sameOrigin:
            return try await varying(next(request, context))
        case .foreign(let origin):
            if Self.isPreflight(request) {
                throw HTTPError(.forbidden, message: "pages of \(origin) may not call this server: list the origin with lockstep serve --allowed-origin")
            }
            try await refuseAdminToken(request, caller: caller)
            return try await varying(next(request, context))
        case .allowed(let origin):
            if Self.isPreflight(request) { return Self.preflightAnswer(origin) }
            var response: Response
            do {
                try await refuseAdminToken(request, caller: caller)
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = CrossOriginHeaders.exposed
            return varying(response)
        }
    }

    /// A browser's question before a request it may not send unasked (a method other than
    /// GET, HEAD or POST, or a header such as `X-Simperium-Token`).
    private static func isPreflight(_ request: Request) -> Bool {
        request.method == .options && request.headers[.accessControlRequestMethod] != nil
    }

    private static func preflightAnswer(_ origin: String) -> Response {
        Response(status: .noContent, headers: [
            .accessControlAllowOrigin: origin,
            .accessControlAllowMethods: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
            .accessControlAllowHeaders: CrossOriginHeaders.allowed,
            // The longest Chromium keeps an answer: a client asking per object URL would
            // otherwise ask before every request.
            .accessControlMaxAge: "7200",
            .vary: "Origin",
        ])
    }

    /// With origins listed, every answer says it varies by `Origin`, so that a cache (a CDN in
    /// front of the release windows) never hands one origin's answer to another.
    private func varying(_ response: Response) -> Response {
        guard !policy.allowed.isEmpty, !response.headers[values: .vary].contains("Origin") else { return response }
        var response = response
        response.headers[values: .vary].append("Origin")
        return response
    }

    /// 403 for the app's admin token from a page whose origin is not listed for it
    /// (`--allowed-admin-origin`): a page that got hold of it must not act as the admin.
    private func refuseAdminToken(_ request: Request, caller: OriginPolicy.Caller) async throws {
        guard let refusal = policy.adminTokenRefusal(from: caller), let token = request.headers[.simperiumToken] else { return }
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard path.count >= 2, path[0] == "1", try await accounts.isAdminToken(token, appID: String(path[1])) else { return }
        throw HTTPError(.forbidden, message: refusal)
    }
}

/// The headers a page of a listed origin may send and read.
enum CrossOriginHeaders {
    /// The request headers Lockstep's clients send: tokens, the admin's acting user, bodies,
    /// tus's upload fields, conditional and ranged reads.
    static let allowed = [
        "X-Simperium-Token", "X-Simperium-API-Key", "X-Simperium-User", "Content-Type", "Tus-Resumable", "Upload-Length",
        "Upload-Metadata", "Upload-Offset", "If-None-Match", "Range",
    ].joined(separator: ", ")

    /// The answer headers a client reads beyond those CORS always shows.
    static let exposed = [
        "X-Simperium-Version", "Location", "Upload-Offset", "Upload-Length", "Tus-Resumable", "Tus-Version", "Tus-Extension",
        "Tus-Max-Size", "ETag", "Content-Location", "Content-Range", "Accept-Ranges", "Retry-After", "WWW-Authenticate",
    ].joined(separator: ", ")
}
