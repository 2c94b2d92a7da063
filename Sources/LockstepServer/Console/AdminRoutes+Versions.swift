import Hummingbird
import LockstepCore

extension AdminRoutes {
    /// `GET versions/{bucket}/{id}?owner=&before=&limit=`: the object's retained versions before
    /// `before` (from its current one when absent), newest first, `limit` of them (20 unless
    /// asked, at most 100), each with who made it and when (``VersionRecord/json(showingEmail:)``,
    /// emails included): `{"id","version","deleted","versions":[…],"before"?}`, `before` naming
    /// the next page while older versions are retained. A removal's version is listed too,
    /// without data.
    ///
    /// One request for a page, which the store rebuilds in one pass from the nearest snapshot
    /// before it (``HistoryService/versions(_:key:before:limit:)``).
    func versions(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let bucket = try context.parameters.require("bucket")
        let key = try context.parameters.require("id")
        guard SpaceBucketName.isValidBucket(bucket) else { throw HTTPError(.badRequest, message: "\"\(bucket)\" is not a valid bucket name") }
        guard EntityName.isValid(key) else {
            throw HTTPError(.badRequest, message: "\"\(key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        let limit = try request.queryInteger("limit", range: 1...HistoryService.maximumVersionPage) ?? 20
        let before = try request.queryInteger("before", range: 1...Int.max)
        let scope = BucketScope(appID: app, ownerKey: request.query("owner") ?? "", bucket: bucket)
        guard try await services.store.object(scope, key: key) != nil else {
            throw HTTPError(.notFound, message: "there is no object \(key) in \(bucket) of owner \"\(scope.ownerKey)\"")
        }
        let page = try await services.history.versions(scope, key: key, before: before, limit: limit)
        return .json(.object(page.json(showingEmail: true)))
    }
}
