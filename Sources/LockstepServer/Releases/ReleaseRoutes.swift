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
        let answer = try await service().windowAnswer(store: try context.parameters.require("store"), start: try context.parameters.require("start"))
        return Self.response(answer, to: request)
    }

    private func key(_ request: Request, _ context: Context) async throws -> Response {
        let answer = try await service().keyAnswer(store: try context.parameters.require("store"), time: try context.parameters.require("time"))
        return Self.response(answer, to: request)
    }

    private static func response(_ answer: ReleaseAnswer, to request: Request) -> Response {
        var headers = HTTPFields(answer.headers.compactMap { header in HTTPField.Name(header.name).map { HTTPField(name: $0, value: header.value) } })
        if answer.isNotModified(ifNoneMatch: request.headers[.ifNoneMatch]) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = ReleaseAnswer.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: answer.body))
    }
}
