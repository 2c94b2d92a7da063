import HTTPTypes
import Hummingbird
import LockstepCore

/// `POST /1/{app}/create/`, `/authorize/` and the admin's `/token/` (Simperium's auth host), and
/// Lockstep's `/revoke/` and `/password/`.
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
                let identity = try await services.accounts.authenticate(appID: app, token: request.accessToken)
                guard identity.isAdmin, identity.userID == nil else {
                    throw AccountError(.forbidden, "only the app's admin token issues tokens")
                }
                return try await services.accounts.issueToken(appID: app, username: try Self.required("username", in: fields))
            }
            return Self.response(grant)
        }
        // Ends tokens: the one sent (signing out), with {"all": true} every token of its user,
        // or with the admin token and {"username": …} every token of that user.
        router.post("/1/{app}/revoke") { request, context in
            var request = request
            let app = try context.parameters.require("app")
            let fields = try await request.fields(limit: 64 * 1024, allowingEmpty: true)
            let revoked = try await mappingServiceErrors {
                let identity = try await services.accounts.authenticate(appID: app, token: request.accessToken)
                if identity.isAdmin {
                    guard let username = fields["username"] else {
                        throw AccountError(.badRequest, "the admin token revokes the tokens of a user: send {\"username\": …}")
                    }
                    return try await services.accounts.revokeTokens(appID: app, username: username)
                }
                guard let token = identity.token, let userID = identity.userID else {
                    throw AccountError(.forbidden, "only a user's token or the admin token revokes tokens")
                }
                guard !identity.isSignedByProvider else {
                    throw AccountError(
                        .forbidden, "a JWT of the app's identity provider is not Lockstep's to revoke: it holds until its exp; sign out at the provider")
                }
                if Self.flag(fields["all"]) { return try await services.accounts.revokeTokens(appID: app, userID: userID) }
                return try await services.accounts.revoke(tokenHash: token.tokenHash, appID: app) ? 1 : 0
            }
            return Response.json(["revoked": .integer(Int64(revoked))])
        }
        // A user changes their password with their token and the current password; every
        // other token of theirs ends.
        router.post("/1/{app}/password") { request, context in
            var request = request
            let app = try context.parameters.require("app")
            let fields = try await request.fields(limit: 64 * 1024)
            let revoked = try await mappingServiceErrors {
                let identity = try await services.accounts.authenticate(appID: app, token: request.accessToken)
                return try await services.accounts.changePassword(
                    of: identity, current: try Self.required("password", in: fields), new: try Self.required("new_password", in: fields))
            }
            return Response.json(["revoked": .integer(Int64(revoked))])
        }
    }

    /// A JSON `true` (read as the text "true") or a form's `1`/`true`.
    static func flag(_ value: String?) -> Bool {
        value == "true" || value == "1"
    }

    static func required(_ name: String, in fields: [String: String]) throws -> String {
        guard let value = fields[name] else { throw AccountError(.badRequest, "the body needs a \"\(name)\"") }
        return value
    }

    static func response(_ grant: AccountService.Grant) -> Response {
        .json(["username": .string(grant.username), "access_token": .string(grant.accessToken), "userid": .string(grant.userID)])
    }
}
