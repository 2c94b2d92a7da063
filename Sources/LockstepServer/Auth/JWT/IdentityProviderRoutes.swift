import Hummingbird
import LockstepCore

/// The admin API of an app's identity provider, `/1/{app}/__admin__/jwt`, for the app's admin
/// token alone (as every admin route):
///
/// - `GET`: the settings, with the keys the server holds (and for a JWKS, how long ago it was
///   fetched, how often, and the last failure); 404 when the app accepts no JWTs;
/// - `PUT` ``IdentityProviderSettings``' JSON: sets them, after fetching the JWKS (400 saying
///   why when it cannot be), and answers as `GET` does;
/// - `DELETE`: the app accepts no more JWTs (204; 404 when it accepted none).
struct IdentityProviderRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        let path = RouterPath("/1/{app}/__admin__/jwt")
        router.get(path) { request, context in try await show(request, context) }
        router.put(path) { request, context in try await set(request, context) }
        router.delete(path) { request, context in try await clear(request, context) }
    }

    private var providers: IdentityProviders { services.accounts.identityProviders }

    private func admin(_ request: Request, _ context: Context) async throws -> String {
        try await services.requireAdmin(request, app: try context.parameters.require("app")).appID
    }

    private func show(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        guard let report = try await providers.report(appID: app) else {
            throw HTTPError(.notFound, message: "app \(app) accepts no JWTs: PUT its identity provider's settings here first")
        }
        return .json(.object(report))
    }

    private func set(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let app = try await admin(request, context)
        let body = try await request.jsonObjectBody(limit: 256 * 1024)
        try await mappingServiceErrors {
            try await providers.set(appID: app, settings: try IdentityProviderSettings(json: body))
        }
        return .json(.object(try await providers.report(appID: app) ?? [:]))
    }

    private func clear(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        guard try await providers.clear(appID: app) else {
            throw HTTPError(.notFound, message: "app \(app) accepted no JWTs")
        }
        return .empty(status: .noContent)
    }
}
