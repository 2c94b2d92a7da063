import Foundation
import Logging
public import ServiceLifecycle
import Synchronization

/// Removes what a connection or a user brought into a presence bucket once they go away.
///
/// The admin sets a bucket's `presence` option (``BucketOptions/Presence``). From then on every
/// object a streaming connection inserts into it is held by that connection (`client`) or by
/// its user (`user`), and is deleted when the connection closes, or when the user's last
/// connection to this server closes. The deletions are ordinary changes through
/// ``BucketService``, so every client, Simperium's included, sees them as deletes.
///
/// A clean close is handled at once; a silent drop as soon as the connection's heartbeat
/// timeout finds it (``Limits/heartbeatTimeoutSeconds``). Holders are recorded in the store as
/// ``PresenceClaim``s, so the objects of connections that died with the server are deleted
/// when it starts again.
///
/// The service hears connection events synchronously (``ConnectionRegistry/observe(_:)``) and
/// handles them one at a time, in order, in ``run()``: a claim is always recorded before the
/// close that releases it is handled.
public final class PresenceService: Service {
    private let services: PresenceEnvironment
    private let events: AsyncStream<ConnectionRegistry.Event>
    private let input: AsyncStream<ConnectionRegistry.Event>.Continuation
    private let ready = Mutex<[CheckedContinuation<Void, Never>]?>([])

    struct PresenceEnvironment: Sendable {
        var store: any SyncStore
        var buckets: BucketService
        var options: @Sendable (_ appID: String, _ bucket: String) async throws -> BucketOptions
        var clock: ServerClockSource
        var logger: Logger
    }

    init(environment: PresenceEnvironment, connections: ConnectionRegistry) {
        self.services = environment
        (events, input) = AsyncStream.makeStream(of: ConnectionRegistry.Event.self)
        connections.observe { [input] event in input.yield(event) }
    }

    /// Removes the orphans of earlier runs, then follows connections until the server stops.
    public func run() async throws {
        await removeOrphans()
        for waiter in ready.withLock({ waiters in defer { waiters = nil }; return waiters ?? [] }) { waiter.resume() }
        var book = PresenceBook()
        await withGracefulShutdownHandler {
            for await event in events {
                await handle(event, &book)
            }
        } onGracefulShutdown: { [input] in
            input.finish()
        }
    }

    /// Waits until the orphans of earlier runs are gone (tests; a server answers before then).
    public func waitUntilReady() async {
        await withCheckedContinuation { continuation in
            let waiting = ready.withLock { waiters in
                guard waiters != nil else { return false }
                waiters?.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    private func handle(_ event: ConnectionRegistry.Event, _ book: inout PresenceBook) async {
        switch event {
        case .opened:
            break
        case .authenticated(let connection, let userID):
            book.connected(connection, userID: userID)
        case .changeAccepted(let connection, let change, let userID):
            guard change.change.operation == .modify, change.change.sourceVersion == nil else { return }
            let presence: BucketOptions.Presence?
            do {
                presence = try await services.options(change.scope.appID, change.scope.bucket).presence
            } catch {
                return services.logger.error("presence: reading the options of bucket \(change.scope.bucket) failed: \(error)")
            }
            let holder: PresenceClaim.Holder
            switch presence {
            case nil: return
            case .client: holder = .connection(connection)
            case .user:
                guard let userID else { return }  // the admin's objects belong to no one's presence
                holder = .user(userID)
            }
            let claim = PresenceClaim(nodeID: services.store.nodeID, holder: holder, scope: change.scope, key: change.change.key)
            do {
                try await services.store.insertPresenceClaim(claim)
                book.claims[holder, default: []].insert(claim)
            } catch {
                services.logger.error("presence: recording \(claim.scope)/\(claim.key) failed: \(error)")
            }
        case .closed(let end):
            for holder in book.disconnected(end.connection.id) {
                await release(book.claims.removeValue(forKey: holder) ?? [])
            }
        case .spaceLeft(let appID, let spaceID, let userID?):
            await release(book.take(in: BucketScope.Owner.space(spaceID).key, appID: appID, heldBy: userID))
        case .spaceLeft(let appID, let spaceID, nil):
            // The space's buckets, and the claims on them, are deleted with it.
            _ = book.take(in: BucketScope.Owner.space(spaceID).key, appID: appID, heldBy: nil)
        }
    }

    private func removeOrphans() async {
        do {
            let orphans = try await services.store.orphanedPresenceClaims()
            if !orphans.isEmpty { services.logger.info("presence: removing \(orphans.count) objects of connections that ended with an earlier run") }
            await release(Set(orphans))
        } catch {
            services.logger.error("presence: reading the claims of earlier runs failed: \(error)")
        }
    }

    /// Deletes the claimed objects, then the claims. An object already deleted by someone
    /// else is left as it is.
    private func release(_ claims: Set<PresenceClaim>) async {
        guard !claims.isEmpty else { return }
        for claim in claims {
            let removal = IncomingChange(
                key: claim.key, changeID: "presence-\(UUID().uuidString.lowercased())", clientID: "lockstep-presence",
                operation: .remove, sourceVersion: nil, editTime: services.clock.now())
            do {
                try await services.buckets.apply(removal, to: claim.scope, by: .trusted)
            } catch let rejection as ChangeRejection where [.notFound, .removed].contains(rejection.reason) {
                // Deleted already, by its owner or by an earlier attempt of ours.
            } catch {
                services.logger.error("presence: removing \(claim.scope)/\(claim.key) failed: \(error)")
            }
        }
        do {
            try await services.store.deletePresenceClaims(Array(claims))
        } catch {
            services.logger.error("presence: forgetting \(claims.count) claims failed: \(error)")
        }
    }
}

/// Who is connected, and what each holder keeps alive: the presence service's own state.
struct PresenceBook {
    var claims: [PresenceClaim.Holder: Set<PresenceClaim>] = [:]
    private var usersOfConnection: [SocketConnectionID: Set<String>] = [:]
    private var connectionsOfUser: [String: Set<SocketConnectionID>] = [:]

    mutating func connected(_ connection: SocketConnectionID, userID: String) {
        usersOfConnection[connection, default: []].insert(userID)
        connectionsOfUser[userID, default: []].insert(connection)
    }

    /// Takes the claims on the buckets of owner `ownerKey` held by `userID` or by any of
    /// their connections (by anyone, when `nil`).
    mutating func take(in ownerKey: String, appID: String, heldBy userID: String?) -> Set<PresenceClaim> {
        let holders: [PresenceClaim.Holder] =
            if let userID { [.user(userID)] + (connectionsOfUser[userID] ?? []).map { .connection($0) } } else { Array(claims.keys) }
        var taken = Set<PresenceClaim>()
        for holder in holders {
            guard let held = claims[holder] else { continue }
            let inSpace = held.filter { $0.scope.appID == appID && $0.scope.ownerKey == ownerKey }
            taken.formUnion(inSpace)
            claims[holder] = held.subtracting(inSpace)
        }
        return taken
    }

    /// Forgets the connection; returns the holders that it was the last to keep alive.
    mutating func disconnected(_ connection: SocketConnectionID) -> [PresenceClaim.Holder] {
        var released: [PresenceClaim.Holder] = [.connection(connection)]
        for userID in usersOfConnection.removeValue(forKey: connection) ?? [] {
            connectionsOfUser[userID]?.remove(connection)
            if connectionsOfUser[userID]?.isEmpty ?? true {
                connectionsOfUser[userID] = nil
                released.append(.user(userID))
            }
        }
        return released
    }
}
