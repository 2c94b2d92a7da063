import Hummingbird
import LockstepCore

/// The admin API the console reads, under `/1/{app}/__admin__/` (no bucket name begins with
/// `__` but a space's, which holds a dot, so none of these paths is a bucket's). Every route
/// takes the app's admin token alone (``LockstepServices/requireAdmin(_:app:)``):
///
/// - `GET stats`: version, uptime, open streaming connections, the store and its nodes, and
///   the app's change count (the console charts changes per second from it);
/// - `GET users?prefix=&after=&limit=`: users by name, with how many tokens each holds;
/// - `POST users` `{"username","password"?}`: makes a user (201); a token is issued with the
///   existing `POST /1/{app}/token`, and a user's tokens end with `POST /1/{app}/revoke`;
/// - `GET buckets`: every bucket of every owner, with object counts and options;
/// - `GET objects/{bucket}?owner=&prefix=&after=&limit=`: a bucket's objects by key;
/// - `GET presence`: the presence buckets, who holds each presence object, and the open
///   connections of this node;
/// - `GET versions/{bucket}/{id}?owner=&before=&limit=`: an object's retained versions, newest
///   first, a page at a time (``versions(_:_:)``).
struct AdminRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        let group = router.group("/1/{app}/__admin__")
        group.get("stats") { request, context in try await stats(request, context) }
        group.get("users") { request, context in try await users(request, context) }
        group.post("users") { request, context in try await createUser(request, context) }
        group.get("buckets") { request, context in try await buckets(request, context) }
        group.get("objects/{bucket}") { request, context in try await objects(request, context) }
        group.get("presence") { request, context in try await presence(request, context) }
        group.get("versions/{bucket}/{id}") { request, context in try await versions(request, context) }
    }

    func admin(_ request: Request, _ context: Context) async throws -> String {
        try await services.requireAdmin(request, app: try context.parameters.require("app")).appID
    }

    private func stats(_ request: Request, _ context: Context) async throws -> Response {
        .json(try await AdminReports(services: services).stats(appID: try await admin(request, context)))
    }

    private func users(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let limit = try request.queryInteger("limit", range: 1...services.limits.maximumIndexPage) ?? 50
        let users = try await services.store.consoleUsers(appID: app, prefix: request.query("prefix") ?? "", after: request.query("after"), limit: limit)
        var body: JSONObject = [
            "users": .array(users.map { user in
                [
                    "id": .string(user.id), "username": .string(user.username), "createdAt": .integer(user.createdAt / 1_000_000),
                    "password": .bool(user.hasPassword), "tokens": .integer(Int64(user.tokens)),
                ]
            })
        ]
        if users.count == limit, let last = users.last { body["after"] = .string(last.canonicalUsername) }
        return .json(.object(body))
    }

    private func createUser(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let app = try await admin(request, context)
        let body = try await request.jsonObjectBody(limit: 64 * 1024)
        guard let username = body["username"]?.stringValue else { throw HTTPError(.badRequest, message: "the body needs a \"username\"") }
        var password: String?
        if let value = body["password"], !value.isNull {
            guard let text = value.stringValue else { throw HTTPError(.badRequest, message: "\"password\" must be a string (or null: no password)") }
            password = text
        }
        let user = try await mappingServiceErrors { try await services.accounts.createUser(appID: app, username: username, password: password) }
        return .json(["id": .string(user.id), "username": .string(user.username)], status: .created)
    }

    private func buckets(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let buckets = try await services.store.consoleBuckets(appID: app)
        var names: [String: String] = [:]
        var spaceNames: [String: String]?
        var options: [String: JSONObject] = [:]
        var listed: [JSONValue] = []
        for bucket in buckets {
            if options[bucket.name] == nil { options[bucket.name] = try await services.store.bucketOptions(appID: app, bucket: bucket.name) ?? [:] }
            var entry: JSONObject = [
                "name": .string(bucket.name), "owner": .string(bucket.ownerKey), "objects": .integer(Int64(bucket.objects)),
                "changes": .integer(bucket.lastSequence), "options": .object(options[bucket.name] ?? [:]),
            ]
            let scope = BucketScope(appID: app, ownerKey: bucket.ownerKey, bucket: bucket.name)
            if case .user(let id) = scope.owner {
                if names[id] == nil { names[id] = try await services.store.user(appID: app, id: id)?.username ?? "" }
                entry["ownerName"] = .string(names[id] ?? "")
            } else if case .space(let id) = scope.owner {
                // The name a client reaches the bucket by (`__<space>.<bucket>`) needs the space's name.
                if spaceNames == nil {
                    spaceNames = Dictionary(
                        try await services.store.spaces(appID: app, memberID: nil).map { ($0.space.id, $0.space.name) }) { first, _ in first }
                }
                entry["ownerName"] = .string(spaceNames?[id] ?? "")
            }
            listed.append(.object(entry))
        }
        return .json(["buckets": .array(listed)])
    }

    private func objects(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let bucket = try context.parameters.require("bucket")
        guard SpaceBucketName.isValidBucket(bucket) else { throw HTTPError(.badRequest, message: "\"\(bucket)\" is not a valid bucket name") }
        let limit = try request.queryInteger("limit", range: 1...services.limits.maximumIndexPage) ?? 50
        let scope = BucketScope(appID: app, ownerKey: request.query("owner") ?? "", bucket: bucket)
        let objects = try await services.store.consoleObjects(scope, prefix: request.query("prefix") ?? "", after: request.query("after"), limit: limit)
        var body: JSONObject = [
            "objects": .array(objects.map { ["id": .string($0.key), "v": .integer(Int64($0.version)), "deleted": .bool($0.isDeleted)] })
        ]
        if objects.count == limit, let last = objects.last { body["after"] = .string(last.key) }
        return .json(.object(body))
    }

    private func presence(_ request: Request, _ context: Context) async throws -> Response {
        .json(try await AdminReports(services: services).presence(appID: try await admin(request, context)))
    }
}
