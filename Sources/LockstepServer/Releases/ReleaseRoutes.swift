import Foundation
import HTTPTypes
import Hummingbird
import LockstepCore
import NIOCore

/// The timed store over HTTP. Public and cacheable, so a CDN can take the rush:
///
/// - `GET /releases`: the stores and the timing constants;
/// - `GET /releases/{store}/windows/{start}`: the window starting at `start` (ms, a whole
///   minute), immutable, from its start until it ends; `…/windows/latest` is the current one;
/// - `GET /releases/{store}/keys/{time}`: the key released at `time` (ms, rounded down to the
///   second), 404 before that moment, immutable after; `…/keys/latest` is the newest.
///
/// And `POST /1/{app}/purchase` (``PurchaseRoutes``), which needs a user's token.
struct ReleaseRoutes<Context: RequestContext> {
    let services: LockstepServices

    /// How long clients and caches may keep a window: it never changes, and is of use for
    /// as long as it covers.
    static var windowCacheControl: String { "public, max-age=\(ReleaseWindow.lengthMilliseconds / 1000), immutable" }

    func add(to router: Router<Context>) {
        router.get("/releases") { _, _ in try manifest() }
        router.get("/releases/{store}/windows/{start}") { request, context in try await window(request, context) }
        router.get("/releases/{store}/keys/{time}") { request, context in try await key(request, context) }
        PurchaseRoutes(services: services).add(to: router)
    }

    private func service() throws(ReleaseError) -> ReleaseService {
        guard let releases = services.releases else {
            throw ReleaseError(.noStores, "this server has no store: start it with --store-config FILE and a seed")
        }
        return releases
    }

    private func manifest() throws -> Response {
        let releases = try service()
        let stores: [JSONValue] = releases.configuration.stores.map { store in
            [
                "id": .string(store.id), "slots": .integer(Int64(store.slots)),
                "shelfLife": ["min": .integer(Int64(store.shelfLife.minimumSeconds)), "max": .integer(Int64(store.shelfLife.maximumSeconds))],
            ]
        }
        return .json(
            [
                "format": .string(ReleaseWindow.format), "stores": .array(stores),
                "windowMs": .integer(ReleaseWindow.lengthMilliseconds), "stepMs": .integer(ReleaseWindow.stepMilliseconds),
                "tickMs": .integer(ReleaseKeyChain.tickMilliseconds), "epochMs": .integer(ReleaseKeyChain.epochMilliseconds),
            ], headers: [.cacheControl: "public, max-age=60"])
    }

    private func window(_ request: Request, _ context: Context) async throws -> Response {
        let releases = try service()
        let schedule = try releases.schedule(try context.parameters.require("store"))
        let now = releases.nowMilliseconds
        let text = try context.parameters.require("start")
        let latest = text == "latest"
        let start = try latest ? ReleaseWindow.start(containing: now) : Self.milliseconds(text, name: "a window start")
        guard start % ReleaseWindow.stepMilliseconds == 0 else {
            throw ReleaseError(.badRequest, "windows start on whole minutes (multiples of \(ReleaseWindow.stepMilliseconds) ms); \(start) is not one")
        }
        guard start <= now else {
            throw ReleaseError(.notYet, "the window \(start) opens in \(start - now) ms", details: ["start": .integer(start), "now": .integer(now)])
        }
        guard now < start + ReleaseWindow.lengthMilliseconds else {
            throw ReleaseError(.expired, "the window \(start) ended \(now - start - ReleaseWindow.lengthMilliseconds) ms ago; ask for \(ReleaseWindow.start(containing: now))",
                details: ["start": .integer(start), "now": .integer(now)])
        }
        let file = await releases.window(schedule, start: start)
        var headers: HTTPFields = [.eTag: file.etag]
        if latest {
            let secondsLeft = (start + ReleaseWindow.stepMilliseconds - now) / 1000
            headers[.cacheControl] = "public, max-age=\(secondsLeft)"
            headers[.contentLocation] = "/releases/\(schedule.store.id)/windows/\(start)"
        } else {
            headers[.cacheControl] = Self.windowCacheControl
        }
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == file.etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.buffer))
    }

    private func key(_ request: Request, _ context: Context) async throws -> Response {
        let releases = try service()
        let schedule = try releases.schedule(try context.parameters.require("store"))
        let now = releases.nowMilliseconds
        let text = try context.parameters.require("time")
        let latest = text == "latest"
        let position = ChainPosition(releasedAt: try latest ? now : Self.milliseconds(text, name: "a key time"))
        let time = position.releaseTime
        guard time <= now else {
            throw ReleaseError(.notReleased, "the key for \(time) is released at \(time) server time, in \(time - now) ms",
                details: ["releasesAt": .integer(time), "now": .integer(now)])
        }
        guard position.epoch > ChainPosition(releasedAt: now).epoch - ReleaseService.keyHistoryEpochs else {
            throw ReleaseError(.expired, "keys are kept for \(ReleaseService.keyHistoryEpochs) hours; \(time) is older")
        }
        let chain = await releases.chain(schedule.store.id, epoch: position.epoch)
        let key = ReleasedKey(store: schedule.store.id, position: position, key: chain.key(at: position.index))
        let cacheControl = latest ? "public, max-age=1" : "public, max-age=31536000, immutable"
        return .json(key.json, headers: [.cacheControl: cacheControl])
    }

    static func milliseconds(_ text: String, name: String) throws(ReleaseError) -> Int64 {
        guard let value = Int64(text), ReleaseService.validTimes.contains(value) else {
            throw ReleaseError(.badRequest, "\(name) is a time in milliseconds since the Unix epoch (or latest), not \(text)")
        }
        return value
    }
}
