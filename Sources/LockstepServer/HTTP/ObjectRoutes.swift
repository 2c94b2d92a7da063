import HTTPTypes
import Hummingbird
import LockstepCore

/// `GET|POST|DELETE /1/{app}/{bucket}/i/{id}[/v/{n}]`: one object over HTTP, and the
/// `__options__` bucket through which the admin sets bucket options.
struct ObjectRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        for path in ["/1/{app}/{bucket}/i/{id}", "/1/{app}/{bucket}/i/{id}/v/{version}"] {
            router.get(RouterPath(path)) { request, context in try await get(request, context) }
            router.post(RouterPath(path)) { request, context in try await post(request, context) }
            router.delete(RouterPath(path)) { request, context in try await delete(request, context) }
        }
    }

    private func get(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket, key, version) = try await target(request, context)
        return try await mappingServiceErrors {
            if bucket == "__options__" { return try await options(identity, bucket: key) }
            let access = try await services.access(for: identity, bucket: bucket)
            let scope = access.scope
            let object = try await services.store.object(scope, key: key)
            try await services.confirm(access, for: identity)
            guard let object, !object.isDeleted || version != nil else {
                throw ChangeRejection(.notFound, "there is no object \(key) in \(bucket)")
            }
            if let version, version != object.version {
                let data = try await services.store.objectData(scope, key: key, version: version)
                try await services.confirm(access, for: identity)
                guard let data else { throw ChangeRejection(.notFound, "version \(version) of \(key) is not retained") }
                return .json(.object(data), headers: [.simperiumVersion: String(version)])
            }
            if object.isDeleted { throw ChangeRejection(.notFound, "object \(key) was removed at version \(object.version)") }
            return .json(.object(object.data), headers: [.simperiumVersion: String(object.version)])
        }
    }

    private func post(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let (identity, bucket, key, version) = try await target(request, context)
        let body = try await request.jsonObjectBody(limit: services.limits.maximumRequestBytes)
        return try await mappingServiceErrors {
            if bucket == "__options__" { return try await setOptions(identity, bucket: key, body: body, replace: request.flag("replace")) }
            let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
            let change = IncomingChange(
                key: key, changeID: request.query("ccid") ?? Secrets.randomHex(), clientID: try request.clientID(),
                operation: request.flag("replace") ? .modify(diff: nil, fullData: body) : .merge(body),
                sourceVersion: version, editTime: nil)
            let event = try await services.buckets.apply(change, to: scope, by: identity.author)
            let headers: HTTPFields = [.simperiumVersion: String(event.change.endVersion)]
            guard request.flag("response") else { return .empty(headers: headers) }
            let object = try await services.store.objectData(scope, key: key, version: event.change.endVersion) ?? [:]
            return .json(.object(object), headers: headers)
        }
    }

    private func delete(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket, key, version) = try await target(request, context)
        return try await mappingServiceErrors {
            let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
            if let version, let current = try await services.store.object(scope, key: key), current.version != version {
                throw HTTPError(.conflict, message: "version \(version) of \(key) is not the latest (\(current.version))")
            }
            let change = IncomingChange(
                key: key, changeID: request.query("ccid") ?? Secrets.randomHex(), clientID: try request.clientID(),
                operation: .remove, sourceVersion: version, editTime: nil)
            let event = try await services.buckets.apply(change, to: scope, by: identity.author)
            return .empty(headers: [.simperiumVersion: String(event.change.endVersion)])
        }
    }

    /// Who is asking, and for which bucket, object and version.
    private func target(_ request: Request, _ context: Context) async throws -> (AccountService.Identity, String, String, Int?) {
        let app = try context.parameters.require("app")
        let bucket = try context.parameters.require("bucket")
        let key = try context.parameters.require("id")
        var version: Int?
        if let text = context.parameters.get("version") {
            guard let number = Int(text), number > 0 else { throw HTTPError(.badRequest, message: "a version must be a positive integer") }
            version = number
        }
        guard EntityName.isValid(key) else {
            throw HTTPError(.badRequest, message: "\"\(key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        let identity = try await mappingServiceErrors {
            try await services.accounts.authenticate(
                appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
        }
        return (identity, bucket, key, version)
    }

    // MARK: Bucket options

    /// Any user of the app may read a bucket's options (a client needs to know whether a bucket
    /// is shared or has presence); only the admin sets them.
    private func options(_ identity: AccountService.Identity, bucket: String) async throws -> Response {
        .json(.object(try await services.store.bucketOptions(appID: identity.appID, bucket: bucket) ?? [:]))
    }

    private func setOptions(_ identity: AccountService.Identity, bucket: String, body: JSONObject, replace: Bool) async throws -> Response {
        guard identity.isAdmin else { throw AccountError(.forbidden, "only the app's admin token sets bucket options") }
        let current = try await services.store.bucketOptions(appID: identity.appID, bucket: bucket) ?? [:]
        let options = replace ? body : current.merging(body) { _, new in new }
        _ = try BucketOptions(json: options)
        try await services.setOptions(appID: identity.appID, bucket: bucket, options: options)
        return .json(.object(options))
    }
}
