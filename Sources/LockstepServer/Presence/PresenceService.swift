import Foundation
import LockstepCore
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
/// ``PresenceClaim``s, so the objects of connections that died with their server are deleted
/// by a server that lives: every half heartbeat timeout each server looks for the claims of
/// servers that are gone (another node of a PostgreSQL store, or an earlier run).
///
/// `user` presence counts every server's connections: each server records which users it has
/// connections of (``SyncStore/markUserConnected(_:)``), and a user's objects go when their
/// last connection to any server closes, or with the last server that had one.
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
        /// The options ``options`` read lately, if it did: what the connection events are
        /// sorted by before the service's task is woken.
        var cachedOptions: @Sendable (_ appID: String, _ bucket: String) -> BucketOptions?
        var clock: ServerClockSource
        var logger: Logger
        /// How often the claims of servers that are gone are looked for.
        var orphanSweepInterval: Duration
        /// Told of each app whose claims this service recorded or released (the console's
        /// presence view follows them live).
        var claimsChanged: @Sendable (_ appID: String) -> Void = { _ in }
        /// Records `presence` webhook events; `nil` records none.
        var webhooks: WebhookRecorder? = nil
    }

    init(environment: PresenceEnvironment, connections: ConnectionRegistry) {
        self.services = environment
        (events, input) = AsyncStream.makeStream(of: ConnectionRegistry.Event.self)
        let cachedOptions = environment.cachedOptions
        connections.observe { [input] event in
            // Only a creation in a presence bucket can make a claim: the service's task is not
            // woken for the rest (a bucket's options not read lately are left to the task).
            if case .changeAccepted(_, let change, _) = event {
                guard Self.mayClaim(change) else { return }
                if let options = cachedOptions(change.scope.appID, change.scope.bucket), options.presence == nil { return }
            }
            input.yield(event)
        }
    }

    /// Whether an accepted change creates an object, the one kind of change that claims it.
    private static func mayClaim(_ change: ChangeEvent) -> Bool {
        change.change.operation == .modify && change.change.sourceVersion == nil
    }

    /// Removes the orphans of earlier runs, then follows connections until the server stops.
    public func run() async throws {
        await removeOrphans()
        for waiter in ready.withLock({ waiters in defer { waiters = nil }; return waiters ?? [] }) { waiter.resume() }
        var book = PresenceBook()
        // A claim is released only when two sweeps in a row find it orphaned: a node whose
        // relay is reconnecting (a moment without its listening connection) keeps its objects.
        let sweeping = Task { [self] in
            var suspects = Set<PresenceClaim>()
            while (try? await Task.sleep(for: services.orphanSweepInterval)) != nil {
                guard let orphans = await orphans() else { continue }
                await release(orphans.intersection(suspects))
                suspects = orphans.subtracting(suspects)
            }
        }
        await withGracefulShutdownHandler {
            for await event in events {
                await handle(event, &book)
            }
        } onGracefulShutdown: { [input] in
            input.finish()
        }
        sweeping.cancel()
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
            guard book.connected(connection, userID: userID) else { return }
            do {
                try await services.store.markUserConnected(userID)
            } catch {
                services.logger.error("presence: recording that user \(userID) is connected failed: \(error)")
            }
        case .changeAccepted(let connection, let change, let userID):
            guard Self.mayClaim(change) else { return }
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
                services.claimsChanged(claim.scope.appID)
                await presenceEvent(claim, "joined", client: change.change.clientID, userID: userID)
            } catch {
                services.logger.error("presence: recording \(claim.scope)/\(claim.key) failed: \(error)")
            }
        case .closed(let end):
            for holder in book.disconnected(end.connection.id) {
                let held = book.claims.removeValue(forKey: holder) ?? []
                guard case .user(let userID) = holder else {
                    await release(held)
                    continue
                }
                await userLeft(userID, held)
            }
        case .spaceLeft(let appID, let spaceID, let userID?):
            await release(book.take(in: BucketScope.Owner.space(spaceID).key, appID: appID, heldBy: userID))
        case .spaceLeft(let appID, let spaceID, nil):
            // The space's buckets, and the claims on them, are deleted with it.
            _ = book.take(in: BucketScope.Owner.space(spaceID).key, appID: appID, heldBy: nil)
        }
    }

    /// The user's last connection to this server closed: their objects go, unless another
    /// server has a connection of theirs (that server releases them, with all this one's, when
    /// the user's last connection to it closes).
    private func userLeft(_ userID: String, _ held: Set<PresenceClaim>) async {
        do {
            try await services.store.markUserDisconnected(userID)
            guard try await !services.store.isUserConnectedElsewhere(userID) else { return }
            await release(held.union(try await services.store.presenceClaims(heldBy: userID)))
        } catch {
            services.logger.error("presence: releasing the objects of user \(userID) failed: \(error)")
            await release(held)
        }
    }

    private func removeOrphans() async {
        guard let orphans = await orphans(), !orphans.isEmpty else { return }
        services.logger.info("presence: removing \(orphans.count) objects of connections whose server is gone")
        await release(orphans)
    }

    private func orphans() async -> Set<PresenceClaim>? {
        do {
            return Set(try await services.store.orphanedPresenceClaims())
        } catch {
            services.logger.error("presence: reading the claims of servers that are gone failed: \(error)")
            return nil
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
        for claim in claims {
            let userID: String? = if case .user(let id) = claim.holder { id } else { nil }
            await presenceEvent(claim, "left", client: nil, userID: userID)
        }
        for appID in Set(claims.map(\.scope.appID)) { services.claimsChanged(appID) }
    }
}

extension PresenceService {
    /// Records a `presence` event: `claim`'s object was claimed (`joined`) or released (`left`).
    private func presenceEvent(_ claim: PresenceClaim, _ action: String, client: String?, userID: String?) async {
        guard let webhooks = services.webhooks, webhooks.mayWant(appID: claim.scope.appID, .presence),
            let (bucket, owner) = await webhooks.describe(claim.scope)
        else { return }
        await webhooks.record(appID: claim.scope.appID, .presence, bucket: bucket) {
            [
                "app": .string(claim.scope.appID), "bucket": .string(claim.scope.bucket), "owner": owner, "id": .string(claim.key),
                "action": .string(action), "holder": .string("\(claim.holder)@\(claim.nodeID)"),
                "user": userID.map(JSONValue.string) ?? .null, "client": client.map(JSONValue.string) ?? .null,
                "at": .integer(webhooks.nowMilliseconds),
            ]
        }
    }
}

/// Who is connected, and what each holder keeps alive: the presence service's own state.
struct PresenceBook {
    var claims: [PresenceClaim.Holder: Set<PresenceClaim>] = [:]
    private var usersOfConnection: [SocketConnectionID: Set<String>] = [:]
    private var connectionsOfUser: [String: Set<SocketConnectionID>] = [:]

    /// Records the connection as the user's; whether it is the user's first on this server.
    mutating func connected(_ connection: SocketConnectionID, userID: String) -> Bool {
        usersOfConnection[connection, default: []].insert(userID)
        return connectionsOfUser[userID, default: []].insert(connection).inserted && connectionsOfUser[userID]?.count == 1
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
