import LockstepCore
import Logging
import Synchronization

/// Records the events that are not changes (a space's members, a blob, presence) as they
/// happen, when an endpoint of their app wants them, and wakes the dispatcher.
///
/// Each is recorded just after what it tells of, in a transaction of its own (a change's
/// events alone go in the change's own transaction, ``ChangeEvents``): a server that dies
/// between the two loses that event. Whether one is wanted is decided before its `data` is
/// written, so an app without endpoints costs nothing more.
public final class WebhookRecorder: Sendable {
    private let store: any SyncStore
    private let clock: ServerClockSource
    private let logger: Logger
    /// Told of each app that recorded events (the dispatcher, once it is made).
    private let wake = Mutex<(@Sendable (String) -> Void)?>(nil)

    init(store: any SyncStore, clock: ServerClockSource, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    func onRecorded(_ wake: @escaping @Sendable (String) -> Void) {
        self.wake.withLock { $0 = wake }
    }

    /// Records an event of `type` about `bucket` with the `data` `payload` makes, when wanted.
    func record(appID: String, _ type: WebhookEventType, bucket: String? = nil, payload: () -> JSONObject) async {
        guard store.webhookInterest.wants(appID: appID, type, bucket: bucket) else { return }
        let event = NewWebhookEvent(type: type, bucket: bucket, createdAt: clock.now(), payload: JSONValue.object(payload()).description)
        do {
            try await store.recordWebhookEvents(appID: appID, [event])
        } catch {
            logger.error("webhooks: recording a \(type.rawValue) event of app \(appID) failed: \(error)")
            return
        }
        wake.withLock { $0 }?(appID)
    }

    /// Milliseconds since the Unix epoch, as events' times are written.
    var nowMilliseconds: Int64 { clock.now() / 1_000_000 }

    /// A bucket's name as clients address it (a space's as `__<space>.<bucket>`) and its owner
    /// as events write it (see ``ChangeEvents``); `nil` for a space that is gone.
    func describe(_ scope: BucketScope) async -> (bucket: String, owner: JSONValue)? {
        switch scope.owner {
        case .user(let id):
            return (scope.bucket, ["kind": "user", "id": .string(id)])
        case .shared:
            return (scope.bucket, ["kind": "shared"])
        case .space(let id):
            guard let name = try? await store.spaceName(appID: scope.appID, spaceID: id) else { return nil }
            return (SpaceBucketName(space: name, bucket: scope.bucket).description, ["kind": "space", "name": .string(name)])
        }
    }

    /// Whether an endpoint of the app may want events of `type` (of some bucket).
    func mayWant(appID: String, _ type: WebhookEventType) -> Bool {
        store.webhookInterest.hasEndpoints(appID: appID) && store.webhookInterest.wantsType(appID: appID, type)
    }
}
