import HTTPTypes
import Hummingbird
import LockstepCore

/// `POST /1/{app}/create/`, `/authorize/` and the admin's `/token/`: Simperium's auth host.
struct AuthRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.post("/1/{app}/create") { request, context in
            var request = request
            let app = try context.parameters.require("app")
            let fields = try await request.fields(limit: 64 * 1024)
            let grant = try await mappingServiceErrors {
                try await services.accounts.createUser(
                    appID: app, apiKey: request.headers[.simperiumAPIKey] ?? fields["client_id"],
                    username: try Self.required("username", in: fields), password: try Self.required("password", in: fields))
            }
            return Self.response(grant)
        }
        router.post("/1/{app}/authorize") { request, context in
            var request = request
            let app = try context.parameters.require("app")
            let fields = try await request.fields(limit: 64 * 1024)
            let grant = try await mappingServiceErrors {
                try await services.accounts.authorize(
                    appID: app, apiKey: request.headers[.simperiumAPIKey] ?? fields["client_id"],
                    username: try Self.required("username", in: fields), password: try Self.required("password", in: fields))
            }
            return Self.response(grant)
        }
        // A token for a user without a password, on the admin's say-so.
        router.post("/1/{app}/token") { request, context in
            var request = request
            let app = try context.parameters.require("app")
            let fields = try await request.fields(limit: 64 * 1024)
            let grant = try await mappingServiceErrors {
                let identity = try await services.accounts.authenticate(appID: app, token: request.headers[.simperiumToken])
                guard identity.isAdmin, identity.userID == nil else {
                    throw AccountError(.forbidden, "only the app's admin token issues tokens")
                }
                return try await services.accounts.issueToken(appID: app, username: try Self.required("username", in: fields))
            }
            return Self.response(grant)
        }
    }

    static func required(_ name: String, in fields: [String: String]) throws -> String {
        guard let value = fields[name] else { throw AccountError(.badRequest, "the body needs a \"\(name)\"") }
        return value
    }

    static func response(_ grant: AccountService.Grant) -> Response {
        .json(["username": .string(grant.username), "access_token": .string(grant.accessToken), "userid": .string(grant.userID)])
    }
}
