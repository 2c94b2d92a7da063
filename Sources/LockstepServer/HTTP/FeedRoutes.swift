import HTTPTypes
import Hummingbird
import LockstepCore

/// `GET /index`, `GET|POST /changes` and the admin's `GET /all` of a bucket.
struct FeedRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.get("/1/{app}/{bucket}/index") { request, context in try await index(request, context) }
        router.get("/1/{app}/{bucket}/changes") { request, context in try await changes(request, context) }
        router.post("/1/{app}/{bucket}/changes") { request, context in try await postChanges(request, context) }
        router.get("/1/{app}/{bucket}/all") { request, context in try await all(request, context) }
    }

    private func index(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket) = try await caller(request, context)
        let limits = services.limits
        let limit = try request.queryInteger("limit", range: 1...limits.maximumIndexPage) ?? limits.defaultIndexPage
        return try await mappingServiceErrors {
            let access = try await services.access(for: identity, bucket: bucket)
            var changedAfter: Int64?
            if let since = request.query("since") {
                guard let cursor = ChangeVersion(since) else { throw HTTPError(.badRequest, message: "since must be a change version") }
                changedAfter = cursor.sequence
            }
            let page = try await IndexResponse.page(
                of: access.scope, in: services.store, mark: request.query("mark"), changedAfter: changedAfter, limit: limit,
                includeData: request.flag("data"))
            try await services.confirm(access, for: identity)
            return .json(page.json)
        }
    }

    private func changes(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket) = try await caller(request, context)
        let limit = try request.queryInteger("limit", range: 1...services.limits.maximumIndexPage) ?? services.limits.defaultIndexPage
        return try await mappingServiceErrors {
            let access = try await services.access(for: identity, bucket: bucket)
            let scope = access.scope
            let waiter = ChangeWaiter(hub: services.hub, scope: scope)
            defer { waiter.cancel() }
            let current = try await services.store.currentVersion(of: scope)
            var cursor = ChangeVersion(epoch: current.epoch, sequence: 0)
            if let text = request.query("cv") {
                guard let parsed = ChangeVersion(text) else { throw HTTPError(.notFound, message: "cv \(text) is not known") }
                cursor = parsed
            }
            guard var records = try await services.store.feed(scope, after: cursor, limit: limit) else {
                throw HTTPError(.notFound, message: "cv \(cursor) is not known for this bucket; index it again")
            }
            if records.isEmpty {
                await waiter.wait(seconds: services.limits.changesLongPollSeconds)
                records = try await services.store.feed(scope, after: cursor, limit: limit) ?? []
                // The token may have been revoked, or have expired, while the request waited:
                // what was written meanwhile is its to read only if it still holds.
                _ = try await caller(request, context)
            }
            try await services.confirm(access, for: identity)
            let extensions = request.flag("lockstep")
            return .json(.array(records.map {
                ChangeEvent(scope: scope, change: $0, version: ChangeVersion(epoch: cursor.epoch, sequence: $0.sequence))
                    .wireJSON(extensions: extensions)
            }))
        }
    }

    private func postChanges(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let (identity, bucket) = try await caller(request, context)
        let body = try await request.jsonBody(limit: services.limits.maximumRequestBytes)
        guard case .array(let messages) = body else { throw HTTPError(.badRequest, message: "the body must be a JSON array of changes") }
        let clientID = try request.clientID()
        return try await mappingServiceErrors {
            let scope = try await services.scope(for: identity, bucket: bucket, writing: true)
            var results: [JSONValue] = []
            for message in messages {
                do {
                    let change = try ChangeMessage.parse(message, clientID: clientID)
                    results.append(try await services.buckets.apply(change, to: scope, by: identity.author).wireJSON(extensions: request.flag("lockstep")))
                } catch let rejection as ChangeRejection {
                    results.append(ChangeMessage.rejection(
                        rejection, key: message["id"]?.stringValue ?? "", changeID: message["ccid"]?.stringValue ?? "",
                        clientID: clientID))
                }
            }
            return .json(.array(results))
        }
    }

    private func all(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, bucket) = try await caller(request, context)
        guard identity.isAdmin, identity.userID == nil else { throw HTTPError(.forbidden, message: "only the app's admin token reads /all") }
        if let name = SpaceBucketName(bucket) {
            // The feed is by bucket name across owners, spaces included.
            throw HTTPError(.badRequest, message: "/all follows a bucket name across its owners: read /1/\(identity.appID)/\(name.bucket)/all, "
                + "which includes the changes of every space's \(name.bucket), with ids space:<space id>/<object id>")
        }
        let limit = try request.queryInteger("batch", range: 1...services.limits.maximumIndexPage) ?? services.limits.defaultIndexPage
        var cursor: Int64 = 0
        if let text = request.query("cv") {
            guard let parsed = ChangeVersion(text) else { throw HTTPError(.notFound, message: "cv \(text) is not known") }
            cursor = parsed.sequence
        }
        let skipped = Set(request.uri.queryParameters.getAll("skip_clientid"))
        var entries: [AppFeedEntry]
        if let newest = try request.queryInteger("newest", range: 1...services.limits.maximumIndexPage) {
            // Lockstep's: the last `newest` changes at once, for a reader that follows on from
            // the last one's cv (the console's recent purchases), instead of the whole feed.
            guard request.query("cv") == nil else { throw HTTPError(.badRequest, message: "newest reads the end of the feed: send it without cv") }
            entries = try await services.store.newestAppFeed(appID: identity.appID, bucket: bucket, limit: newest)
        } else {
            let deadline = ContinuousClock.now + .seconds(services.limits.changesLongPollSeconds)
            entries = try await services.store.appFeed(appID: identity.appID, bucket: bucket, after: cursor, limit: limit)
            while entries.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                entries = try await services.store.appFeed(appID: identity.appID, bucket: bucket, after: cursor, limit: limit)
            }
        }
        if request.flag("most_recent") {
            // Only each object's latest change in this page.
            var latest: [String: Int64] = [:]
            for entry in entries { latest["\(entry.ownerKey)/\(entry.change.key)"] = entry.appSequence }
            entries = entries.filter { latest["\($0.ownerKey)/\($0.change.key)"] == $0.appSequence }
        }
        var results: [JSONValue] = []
        for entry in entries where !skipped.contains(entry.change.clientID) {
            let scope = BucketScope(appID: identity.appID, ownerKey: entry.ownerKey, bucket: bucket)
            var json = ChangeEvent(scope: scope, change: entry.change, version: ChangeVersion(epoch: 0, sequence: entry.appSequence))
                .wireJSON.objectValue!
            json["id"] = .string(entry.ownerKey.isEmpty ? entry.change.key : "\(entry.ownerKey)/\(entry.change.key)")
            if request.flag("username"), !entry.ownerKey.isEmpty {
                json["username"] = (try await services.store.user(appID: identity.appID, id: entry.ownerKey)?.username).map(JSONValue.string)
            }
            if request.flag("data"), let object = try await services.store.object(scope, key: entry.change.key), !object.isDeleted {
                json["d"] = .object(object.data)
            }
            results.append(.object(json))
        }
        return .json(.array(results))
    }

    private func caller(_ request: Request, _ context: Context) async throws -> (AccountService.Identity, String) {
        let app = try context.parameters.require("app")
        let bucket = try context.parameters.require("bucket")
        let identity = try await mappingServiceErrors {
            try await services.accounts.authenticate(
                appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
        }
        return (identity, bucket)
    }
}
