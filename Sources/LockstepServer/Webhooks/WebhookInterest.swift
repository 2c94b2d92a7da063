import Synchronization

/// What each app's endpoints want, as the store's commit path asks it: a change's events are
/// recorded (in the change's own transaction) only when some endpoint of its app wants them,
/// so a server with no endpoints writes nothing more than before.
///
/// Each store keeps one, loaded when it opens and changed in the same write as the endpoints
/// themselves (SQLite's one writer orders both with every commit). Nodes sharing PostgreSQL
/// learn of each other's changes through the app's row: every change to an app's endpoints
/// moves its `webhook_generation` on, under the app's row lock that every commit to the app
/// takes, and a commit that finds another generation there than it knows reloads the app's
/// endpoints before it decides (``generation(of:)``).
public final class WebhookInterest: Sendable {
    private let state = Mutex<[String: App]>([:])
    /// How many apps have an endpoint: read without the lock by every commit's announcement.
    private let appsWithEndpoints = Atomic<Int>(0)

    package struct App: Sendable {
        package var generation: Int64
        package var filters: [WebhookFilter]
    }

    public init() {}

    /// Every app's filters, for one group's decisions; empty when no app has an endpoint.
    package func snapshot() -> [String: App] {
        guard hasAnyEndpoints else { return [:] }
        return state.withLock { apps in apps.filter { !$0.value.filters.isEmpty } }
    }

    /// The generation of the app's endpoints this registry holds; `nil` when it holds none.
    package func generation(of appID: String) -> Int64? {
        state.withLock { $0[appID]?.generation }
    }

    /// Replaces what the app's endpoints want, unless a later generation is known already.
    package func replace(appID: String, generation: Int64, filters: [WebhookFilter]) {
        state.withLock { apps in
            if let known = apps[appID], known.generation > generation { return }
            apps[appID] = App(generation: generation, filters: filters)
            appsWithEndpoints.store(apps.values.count { !$0.filters.isEmpty }, ordering: .relaxed)
        }
    }

    /// Whether any app has an endpoint.
    public var hasAnyEndpoints: Bool { appsWithEndpoints.load(ordering: .relaxed) > 0 }

    /// Whether the app has an endpoint.
    public func hasEndpoints(appID: String) -> Bool {
        guard hasAnyEndpoints else { return false }
        return state.withLock { apps in apps[appID].map { !$0.filters.isEmpty } ?? false }
    }

    /// Whether an endpoint of the app wants events of `type`, of some bucket or none.
    public func wantsType(appID: String, _ type: WebhookEventType) -> Bool {
        guard hasAnyEndpoints else { return false }
        return state.withLock { apps in apps[appID]?.filters.contains { $0.types.contains(type) } ?? false }
    }

    /// Whether an endpoint of the app wants an event of `type` about `bucket`.
    public func wants(appID: String, _ type: WebhookEventType, bucket: String?) -> Bool {
        guard hasAnyEndpoints else { return false }
        return state.withLock { apps in apps[appID]?.filters.contains { $0.wants(type, bucket: bucket) } ?? false }
    }
}

extension WebhookInterest.App {
    package func wants(_ type: WebhookEventType, bucket: String?) -> Bool {
        filters.contains { $0.wants(type, bucket: bucket) }
    }
}
