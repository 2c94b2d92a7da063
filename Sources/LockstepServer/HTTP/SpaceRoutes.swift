import Foundation
import HTTPTypes
import Hummingbird
import LockstepCore

/// `/1/{app}/__spaces__…`: spaces made, listed, shared, left and deleted (see ``SpaceService``).
///
/// Under `__spaces__`, which no bucket can be named (``SpaceBucketName``), so these paths never
/// shadow a bucket's routes. Every route takes a user's token, or the admin token (acting for
/// the user named by `X-Simperium-User`, when given).
///
/// | request | answer |
/// |---|---|
/// | `POST /__spaces__` `{"name"}` | `{"name","role"}`: made, the caller its owner |
/// | `GET /__spaces__` | `[{"name","role"}]`: the caller's spaces |
/// | `GET /__spaces__/{space}` | `{"name","role","members":[{"email","role"}]}` |
/// | `POST /__spaces__/{space}/members` `{"email","role"}` | `{"email","role"}`: invited, or role changed |
/// | `DELETE /__spaces__/{space}/members/{email}` | `{}`: removed |
/// | `POST /__spaces__/{space}/leave` | `{}`: left |
/// | `DELETE /__spaces__/{space}` | `{}`: deleted, with all it held |
struct SpaceRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.post("/1/{app}/__spaces__") { request, context in
            var request = request
            let identity = try await caller(request, context)
            let body = try await request.jsonObjectBody(limit: 64 * 1024)
            return try await mappingServiceErrors {
                guard let name = body["name"]?.stringValue else { throw AccountError(.badRequest, "a space needs a \"name\"") }
                return Response.json(Self.json(try await services.spaces.create(name: name, by: identity)), status: .created)
            }
        }
        router.get("/1/{app}/__spaces__") { request, context in
            let identity = try await caller(request, context)
            return try await mappingServiceErrors { Response.json(.array(try await services.spaces.list(for: identity).map(Self.json))) }
        }
        router.get("/1/{app}/__spaces__/{space}") { request, context in
            let (identity, space) = (try await caller(request, context), try context.parameters.require("space"))
            return try await mappingServiceErrors {
                let (grant, members) = try await services.spaces.members(of: space, for: identity)
                let json: JSONValue = [
                    "name": .string(space), "role": .string(grant.role.rawValue),
                    "members": .array(members.map { ["email": .string($0.email), "role": .string($0.role.rawValue)] }),
                ]
                return Response.json(json)
            }
        }
        router.post("/1/{app}/__spaces__/{space}/members") { request, context in
            var request = request
            let (identity, space) = (try await caller(request, context), try context.parameters.require("space"))
            let body = try await request.jsonObjectBody(limit: 64 * 1024)
            return try await mappingServiceErrors {
                let role = try SpaceRole(parsing: body["role"]?.stringValue)
                let email = try await services.spaces.invite(body["email"]?.stringValue, as: role, to: space, by: identity)
                let json: JSONValue = ["email": .string(email), "role": .string(role.rawValue)]
                return Response.json(json)
            }
        }
        router.delete("/1/{app}/__spaces__/{space}/members/{email}") { request, context in
            let (identity, space) = (try await caller(request, context), try context.parameters.require("space"))
            let email = try context.parameters.require("email")
            return try await mappingServiceErrors {
                try await services.spaces.remove(email.removingPercentEncoding ?? email, from: space, by: identity)
                return Response.json(.object([:]))
            }
        }
        router.post("/1/{app}/__spaces__/{space}/leave") { request, context in
            let (identity, space) = (try await caller(request, context), try context.parameters.require("space"))
            return try await mappingServiceErrors {
                try await services.spaces.leave(space, identity: identity)
                return Response.json(.object([:]))
            }
        }
        router.delete("/1/{app}/__spaces__/{space}") { request, context in
            let (identity, space) = (try await caller(request, context), try context.parameters.require("space"))
            return try await mappingServiceErrors {
                try await services.spaces.delete(space, by: identity)
                return Response.json(.object([:]))
            }
        }
    }

    private func caller(_ request: Request, _ context: Context) async throws -> AccountService.Identity {
        let app = try context.parameters.require("app")
        return try await mappingServiceErrors {
            try await services.accounts.authenticate(
                appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
        }
    }

    private static func json(_ listing: SpaceListing) -> JSONValue {
        ["name": .string(listing.space.name), "role": listing.role.map { .string($0.rawValue) } ?? .null]
    }
}
