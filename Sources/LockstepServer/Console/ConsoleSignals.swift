import Synchronization

/// Something the console shows may have moved in an app: the admin channel's feeds
/// (``AdminChannel``) read their report again when told, instead of the page asking each second.
enum ConsoleSignal: Sendable, Equatable {
    /// The app took a change (on any node); `bucket` is `nil` when the notice did not say.
    case change(bucket: String?)
    /// A streaming connection of the app opened or closed on this node.
    case connection
    /// This node recorded or released presence claims in the app.
    case claims
    /// The app's webhook endpoints changed, or this node finished an attempt of a delivery.
    case webhooks
}

/// Who wants to hear of an app's ``ConsoleSignal``s: the console's admin channels, by app.
///
/// Fed from hooks the server has already (``ChangeHub/observeCommits(_:)``, the
/// ``ConnectionRegistry``'s events, the ``PresenceService``'s claims), so nothing the console
/// does costs a client anything: with no console open, a signal finds no watcher and stops.
final class ConsoleSignals: Sendable {
    struct Watch: Sendable, Hashable {
        let appID: String
        let id: Int
    }

    private struct State {
        var nextID = 0
        var watchers: [String: [Int: @Sendable (ConsoleSignal) -> Void]] = [:]
    }

    private let state = Mutex(State())

    /// Calls `watcher` with each later signal of `appID`, until ``unwatch(_:)``. It must only
    /// record or enqueue: it runs on whichever task raised the signal.
    func watch(appID: String, _ watcher: @escaping @Sendable (ConsoleSignal) -> Void) -> Watch {
        state.withLock { state in
            state.nextID += 1
            state.watchers[appID, default: [:]][state.nextID] = watcher
            return Watch(appID: appID, id: state.nextID)
        }
    }

    func unwatch(_ watch: Watch) {
        state.withLock { state in
            state.watchers[watch.appID]?[watch.id] = nil
            if state.watchers[watch.appID]?.isEmpty == true { state.watchers[watch.appID] = nil }
        }
    }

    func signal(_ appID: String, _ signal: ConsoleSignal) {
        let watchers = state.withLock { $0.watchers[appID].map { Array($0.values) } ?? [] }
        for watcher in watchers { watcher(signal) }
    }

    /// Raises the signals of changes and connections from the hooks that announce them.
    func follow(hub: ChangeHub, connections: ConnectionRegistry) {
        hub.observeCommits { [self] appID, bucket in signal(appID, .change(bucket: bucket)) }
        connections.observe { [self] event in
            switch event {
            case .opened(let info): signal(info.appID, .connection)
            case .closed(let end): signal(end.connection.appID, .connection)
            case .authenticated, .changeAccepted, .spaceLeft: break
            }
        }
    }
}
