import HTTPTypes
import Hummingbird
import LockstepCore

/// History over HTTP, Lockstep's own routes beside Simperium's (see ``HistoryService``):
///
/// - `GET /1/{app}/{bucket}/i/{id}/versions?before=&limit=`: the object's retained versions,
///   newest first, each with who made it and when, as the admin API's versions route answers;
///   for anyone who may read the bucket.
/// - `GET /1/{app}/{bucket}/i/{id}/compare?from=&to=`: two retained versions compared
///   (`to` the current one when absent): `{"id","from","to","diff","text"}`.
/// - `POST /1/{app}/{bucket}/i/{id}/restore` `{"version"}` (`?clientid=&ccid=` as for writes):
///   the object put back to a retained version as a new change, for those who may write it:
///   `{"id","version","restoredFrom","changed"}`.
/// - `POST /1/{app}/{bucket}/restore` `{"at","dryRun"?}`: every object of the bucket put back
///   as it was at `at` (server time in milliseconds), as one group of changes committed
///   together; for the admin token, and for the owners of a space's bucket.
///
/// A bucket is named as everywhere (a space's is `__<space>.<bucket>`; the admin token names a
/// user's with `X-Simperium-User`), so a stranger to a space gets, byte for byte, the answer a
/// space that does not exist gets.
struct HistoryRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.get("/1/{app}/{bucket}/i/{id}/versions") { request, context in try await versions(request, context) }
        router.get("/1/{app}/{bucket}/i/{id}/compare") { request, context in try await compare(request, context) }
        router.post("/1/{app}/{bucket}/i/{id}/restore") { request, context in try await restore(request, context) }
        router.post("/1/{app}/{bucket}/restore") { request, context in try await restoreBucket(request, context) }
    }

    private func versions(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket) = try await caller(request, context)
        let key = try objectKey(context)
        let limit = try request.queryInteger("limit", range: 1...HistoryService.maximumVersionPage) ?? 20
        let before = try request.queryInteger("before", range: 1...Int.max)
        return try await answering {
            let access = try await services.access(for: identity, bucket: bucket)
            let page = try await services.history.versions(access.scope, key: key, before: before, limit: limit)
            try await services.confirm(access, for: identity)
            return .json(.object(page.json(showingEmail: identity.isAdmin || access.space != nil)))
        }
    }

    private func compare(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket) = try await caller(request, context)
        let key = try objectKey(context)
        guard let from = try request.queryInteger("from", range: 1...Int.max) else {
            throw HTTPError(.badRequest, message: "name the versions to compare: ?from=N (and &to=M; the current version by default)")
        }
        let to = try request.queryInteger("to", range: 1...Int.max)
        return try await answering {
            let access = try await services.access(for: identity, bucket: bucket)
            let (from, to, comparison) = try await services.history.compare(access.scope, key: key, from: from, to: to)
            try await services.confirm(access, for: identity)
            guard case .object(var body) = comparison.json else { return .json(comparison.json) }
            body["id"] = .string(key)
            body["from"] = .integer(Int64(from))
            body["to"] = .integer(Int64(to))
            return .json(.object(body))
        }
    }

    private func restore(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let (identity, bucket) = try await caller(request, context)
        let key = try objectKey(context)
        let body = try await request.jsonObjectBody(limit: 64 * 1024)
        guard let version = body["version"]?.integerValue, version > 0, let number = Int(exactly: version) else {
            throw HTTPError(.badRequest, message: "the body names the version to restore: {\"version\": N}, N a positive integer")
        }
        let clientID = try request.clientID()
        return try await answering {
            let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
            let restore = try await services.history.restore(
                scope, key: key, to: number, by: identity.author, clientID: clientID, changeID: request.query("ccid") ?? Secrets.randomHex())
            return .json(
                [
                    "id": .string(key), "version": .integer(Int64(restore.version)), "restoredFrom": .integer(Int64(restore.restoredFrom)),
                    "changed": .bool(restore.changed),
                ], headers: [.simperiumVersion: String(restore.version)])
        }
    }

    private func restoreBucket(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let (identity, bucket) = try await caller(request, context)
        let body = try await request.jsonObjectBody(limit: 64 * 1024)
        guard let at = body["at"]?.integerValue, at > 0 else {
            throw HTTPError(.badRequest, message: "the body names the moment to restore the bucket to: {\"at\": T}, T in milliseconds since the Unix epoch")
        }
        guard at <= Int64.max / 1_000_000 else { throw HTTPError(.badRequest, message: "\"at\" is in milliseconds since the Unix epoch: \(at) is too far off") }
        var dryRun = false
        if let value = body["dryRun"] {
            guard case .bool(let flag) = value else { throw HTTPError(.badRequest, message: "\"dryRun\" must be true or false") }
            dryRun = flag
        }
        let clientID = try request.clientID()
        return try await answering {
            let access = try await services.access(for: identity, bucket: bucket)
            try Self.authorizeBucketRestore(access, for: identity)
            let restore = try await services.history.restoreBucket(
                access.scope, at: at * 1_000_000, dryRun: dryRun, by: identity.author, clientID: clientID)
            return .json(.object(restore.json(bucket: bucket)))
        }
    }

    /// Restoring a whole bucket rewrites everyone's data in it: the admin's to do, and a space
    /// owner's for the space's buckets.
    static func authorizeBucketRestore(_ access: BucketAccess, for identity: AccountService.Identity) throws {
        guard !identity.isAdmin else { return }
        guard let space = access.space else {
            throw HistoryError(.forbidden, "only the app's admin token restores bucket \(access.scope.bucket) to a moment")
        }
        guard space.role.canManage else {
            throw HistoryError(
                .forbidden,
                "you are a \(space.role.rawValue) of space \(space.space.name): restoring its buckets to a moment needs the owner right")
        }
    }

    /// Who asks, and for which bucket.
    private func caller(_ request: Request, _ context: Context) async throws -> (AccountService.Identity, String) {
        let app = try context.parameters.require("app")
        let bucket = try context.parameters.require("bucket")
        let identity = try await mappingServiceErrors {
            try await services.accounts.authenticate(
                appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
        }
        return (identity, bucket)
    }

    private func objectKey(_ context: Context) throws -> String {
        let key = try context.parameters.require("id")
        guard EntityName.isValid(key) else {
            throw HTTPError(.badRequest, message: "\"\(key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        return key
    }

    /// Runs `body`, turning what the history and bucket services refuse into HTTP errors.
    private func answering(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await mappingServiceErrors(body)
        } catch let refusal as HistoryError {
            throw HTTPError(HTTPResponse.Status(code: refusal.status), message: refusal.message)
        }
    }
}
