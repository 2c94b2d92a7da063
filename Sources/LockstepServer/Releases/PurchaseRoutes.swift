import HTTPTypes
import Hummingbird
import LockstepCore

/// `POST /1/{app}/purchase`: buys the item a slot shows, while it shows it.
///
/// Request (with `X-Simperium-Token`; times in milliseconds since the Unix epoch, server time):
/// `{"id":"p-7f3a","store":"main","slot":3,"start":1717200020000,"item":"sword"}`, where `id`
/// is chosen by the client (1 to 256 of `a-z A-Z 0-9 . _ % @ -`) and makes retries safe, and
/// `start` names the showing, as the window gives it.
///
/// Accepted only in `[start, end)` by the server's clock: `201` with the purchase
/// `{"end":…,"id":"p-7f3a","item":"sword","purchasedAt":…,"slot":3,"start":…,"store":"main"}`,
/// recorded as object `id` of the buyer's `purchases` bucket, so it syncs to all their devices.
/// The same request again answers `200` with the same purchase, even after the showing ended.
///
/// Refusals (``ReleaseError``): `404` unknown_store, unknown_slot, unknown_entry (no showing
/// starts then), unknown_item (not in the store's catalog); `409` not_yet (before `start`),
/// wrong_item (the slot shows something else), purchase_id_reused (the id bought something
/// else); `410` expired (at or after `end`).
///
/// Before `start` every request for a slot answers not_yet, whatever it names: neither the
/// item nor whether a showing starts then is checked, so nothing about what comes next can be
/// learnt by asking early.
///
/// Only the server writes the `purchases` bucket while a store is configured
/// (``ReleaseService/purchasesBucket``): a user cannot plant a record that this route would
/// then replay as a purchase.
struct PurchaseRoutes<Context: RequestContext> {
    let services: LockstepServices
    static var bucket: String { ReleaseService.purchasesBucket }

    func add(to router: Router<Context>) {
        router.post("/1/{app}/purchase") { request, context in try await purchase(request, context) }
    }

    private func purchase(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        guard let releases = services.releases else {
            throw ReleaseError(.noStores, "this server has no store: start it with --store-config FILE and a seed")
        }
        let wanted = try Purchase(json: try await request.jsonObjectBody(limit: services.limits.maximumRequestBytes))
        let identity = try await mappingServiceErrors {
            try await services.accounts.authenticate(
                appID: try context.parameters.require("app"), token: request.accessToken,
                actingUserID: request.headers[.simperiumUser])
        }
        return try await mappingServiceErrors {
            let scope = try await services.scope(for: identity, bucket: Self.bucket, writing: false)
            let record: JSONObject
            do throws(ReleaseError) {
                record = try check(wanted, releases: releases)
            } catch {
                // A refusal may be a retry of a purchase made while it could be made.
                return try await replay(wanted, in: scope, orElse: error)
            }
            let change = IncomingChange(
                key: wanted.id, changeID: "purchase-" + wanted.id, clientID: "lockstep-store",
                operation: .modify(diff: nil, fullData: record), sourceVersion: nil, editTime: releases.now())
            do {
                // Only if no purchase has the id yet, checked in the group commit: so a first
                // purchase, the rush's every one, reads nothing but its group does.
                try await services.buckets.apply(change, to: scope, by: .trusted, onlyIfAbsent: true, isPurchase: true)
            } catch let rejection as ChangeRejection where rejection.reason == .duplicate || rejection.reason == .emptyChange {
                // The id is taken: by an earlier purchase (or another request with the same id
                // that got there first), found by its change id or its key.
                guard let earlier = try await services.store.object(scope, key: wanted.id) else { throw rejection }
                return try replay(earlier.data, of: wanted)
            }
            return .json(.object(record), status: .created)
        }
    }

    /// The purchase recorded under `wanted`'s id, answered again (or refused as another
    /// purchase's id); `refusal` when there is none.
    private func replay(_ wanted: Purchase, in scope: BucketScope, orElse refusal: ReleaseError) async throws -> Response {
        guard let earlier = try await services.store.object(scope, key: wanted.id), !earlier.isDeleted else { throw refusal }
        return try replay(earlier.data, of: wanted)
    }

    /// The purchase record when `wanted` may be bought now, or the reason it may not.
    private func check(_ wanted: Purchase, releases: ReleaseService) throws(ReleaseError) -> JSONObject {
        let schedule = try releases.schedule(wanted.store)
        guard (0..<schedule.store.slots).contains(wanted.slot) else {
            throw ReleaseError(.unknownSlot, "the store \(wanted.store) has slots 0 to \(schedule.store.slots - 1), not \(wanted.slot)")
        }
        // Compared in nanoseconds, the clock's own unit, so the bounds are exact. Checked
        // before the catalog and the schedule, so an early request learns nothing from them.
        let now = releases.now()
        guard now >= wanted.start * 1_000_000 else {
            throw ReleaseError(
                .notYet, "nothing in slot \(wanted.slot) can be bought before \(wanted.start), in \(wanted.start - now / 1_000_000) ms",
                details: ["start": .integer(wanted.start), "now": .integer(now / 1_000_000)])
        }
        guard releases.configuration.items(of: schedule.store).contains(where: { $0.id == wanted.item }) else {
            throw ReleaseError(.unknownItem, "the store \(wanted.store) does not sell \(wanted.item)")
        }
        let entry = schedule.entry(slot: wanted.slot, at: wanted.start)
        guard entry.start == wanted.start else {
            throw ReleaseError(.unknownEntry, "slot \(wanted.slot) of \(wanted.store) has no showing that starts at \(wanted.start)")
        }
        let times: JSONObject = ["start": .integer(entry.start), "end": .integer(entry.end), "now": .integer(now / 1_000_000)]
        guard now < entry.end * 1_000_000 else {
            throw ReleaseError(.expired, "the showing in slot \(wanted.slot) ended at \(entry.end)", details: times)
        }
        guard let item = entry.item, item.id == wanted.item else {
            throw ReleaseError(.wrongItem, "slot \(wanted.slot) shows \(entry.item?.id ?? "nothing"), not \(wanted.item)", details: times)
        }
        return [
            "id": .string(wanted.id), "store": .string(wanted.store), "slot": .integer(Int64(wanted.slot)), "item": .string(item.id),
            "start": .integer(entry.start), "end": .integer(entry.end), "purchasedAt": .integer(now / 1_000_000),
        ]
    }

    private func replay(_ record: JSONObject, of wanted: Purchase) throws(ReleaseError) -> Response {
        guard record["store"]?.stringValue == wanted.store, record["slot"]?.integerValue == Int64(wanted.slot),
            record["start"]?.integerValue == wanted.start, record["item"]?.stringValue == wanted.item
        else { throw ReleaseError(.purchaseIDReused, "the purchase id \(wanted.id) was used for another purchase") }
        return .json(.object(record), status: .ok)
    }

    /// What a purchase request asks for.
    struct Purchase {
        var id: String
        var store: String
        var slot: Int
        var start: Int64
        var item: String

        init(json: JSONObject) throws(ReleaseError) {
            guard let id = json["id"]?.stringValue, EntityName.isValid(id) else {
                throw ReleaseError(.badRequest, "a purchase needs an id of 1 to 256 of a-z A-Z 0-9 . _ % @ - (chosen by the client; retries reuse it)")
            }
            guard let store = json["store"]?.stringValue, let slot = json["slot"]?.integerValue, let start = json["start"]?.integerValue,
                let item = json["item"]?.stringValue
            else { throw ReleaseError(.badRequest, "a purchase needs store (string), slot (integer), start (ms, from the window) and item (string)") }
            guard let slotIndex = Int(exactly: slot) else { throw ReleaseError(.unknownSlot, "there is no slot \(slot)") }
            guard ReleaseService.validTimes.contains(start) else {
                throw ReleaseError(.unknownEntry, "no showing starts at \(start)")
            }
            self.id = id
            self.store = store
            self.slot = slotIndex
            self.start = start
            self.item = item
        }
    }
}
