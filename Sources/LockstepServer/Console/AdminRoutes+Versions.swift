import Hummingbird
import LockstepCore

extension AdminRoutes {
    /// The most versions one page holds.
    static var maximumVersionPage: Int { 100 }

    /// `GET versions/{bucket}/{id}?owner=&before=&limit=`: the object's retained versions before
    /// `before` (from its current one when absent), newest first, `limit` of them (20 unless
    /// asked, at most 100): `{"id","version","deleted","versions":[{"v","data"}],"before"?}`,
    /// `before` naming the next page while older versions may be retained.
    ///
    /// One request for what the console's history showed with one request per version. The
    /// store rebuilds each version from its nearest snapshot (``SyncStore/objectData(_:key:version:)``):
    /// a page costs `limit` small reads, in one round trip. A version no longer retained ends
    /// the history; a removal's version has no data and is left out.
    func versions(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let bucket = try context.parameters.require("bucket")
        let key = try context.parameters.require("id")
        guard SpaceBucketName.isValidBucket(bucket) else { throw HTTPError(.badRequest, message: "\"\(bucket)\" is not a valid bucket name") }
        guard EntityName.isValid(key) else {
            throw HTTPError(.badRequest, message: "\"\(key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        let limit = try request.queryInteger("limit", range: 1...Self.maximumVersionPage) ?? 20
        let before = try request.queryInteger("before", range: 1...Int.max)
        let scope = BucketScope(appID: app, ownerKey: request.query("owner") ?? "", bucket: bucket)
        guard let object = try await services.store.object(scope, key: key) else {
            throw HTTPError(.notFound, message: "there is no object \(key) in \(bucket) of owner \"\(scope.ownerKey)\"")
        }
        let newest = min(before.map { $0 - 1 } ?? object.version, object.version)
        var versions: [JSONValue] = []
        var version = newest
        var retained = true
        while version >= 1 && version > newest - limit {
            if let data = try await services.store.objectData(scope, key: key, version: version) {
                versions.append(["v": .integer(Int64(version)), "data": .object(data)])
            } else if !(object.isDeleted && version == object.version) {
                retained = false
                break
            }
            version -= 1
        }
        var body: JSONObject = [
            "id": .string(key), "version": .integer(Int64(object.version)), "deleted": .bool(object.isDeleted), "versions": .array(versions),
        ]
        if retained && version >= 1 { body["before"] = .integer(Int64(version + 1)) }
        return .json(.object(body))
    }
}
