import Foundation
import Logging

/// What both transports share: the replica, the HTTP API, settings, and the session's shared
/// state (which buckets are live, what the connection is doing).
struct SyncContext: Sendable {
    let replica: Replica
    let api: ServerAPI
    let socketURL: String
    let app: String
    let token: String
    let configuration: LockstepClient.Configuration
    let clock: ServerClock
    /// The clock's way over the socket, attached while a socket session runs.
    let clockSocket: SocketClockExchangeTransport
    let progress: Wakeup
    let shared: Locked<SharedState>
    /// Signalled when the app opens a bucket the running session does not sync yet.
    let bucketsChanged: Wakeup
    /// Runs the attachment upload queue beside the data sync.
    let uploader: AttachmentUploader

    struct SharedState {
        var state: SyncState = .stopped
        /// Buckets caught up with the server on the current connection.
        var live: Set<String> = []
    }

    var logger: Logger { configuration.logger }

    func setState(_ state: SyncState) {
        shared.withLock { shared in
            shared.state = state
            if state != .streaming && state != .polling { shared.live = [] }
        }
        progress.signal()
    }

    func isLive(_ bucket: String) -> Bool {
        shared.withLock { $0.live.contains(bucket) }
    }

    func setLive(_ bucket: String, _ live: Bool) {
        let changed = shared.withLock { shared in
            live ? shared.live.insert(bucket).inserted : shared.live.remove(bucket) != nil
        }
        if changed { progress.signal() }
    }

    /// Fetches objects whose ghosts fell out of step, and takes them in whole.
    func resync(bucket: String, keys: Set<String>) async throws {
        for key in keys {
            let fetched = try await api.object(bucket: bucket, key: key)
            try await replica.takeFetched(bucket: bucket, key: key, version: fetched?.version, data: fetched?.data)
        }
    }

    /// Everything that follows from changes the server sent, taken in one transaction; one
    /// outcome per batch.
    func take(_ batches: [ChangeBatch]) async throws -> [ReceiveOutcome] {
        let outcomes = try await replica.receive(batches)
        for (batch, outcome) in zip(batches, outcomes) where !outcome.resync.isEmpty {
            try await resync(bucket: batch.bucket, keys: outcome.resync)
        }
        progress.signal()
        return outcomes
    }
}

/// Ends a connection so that the loop reconnects at once (with the new set of buckets).
struct BucketsChanged: Error {}

extension SyncContext {
    /// Returns (by throwing) when a new bucket was opened after `generation`.
    func watchBuckets(after generation: UInt64) async throws {
        await bucketsChanged.wait(after: generation)
        try Task.checkCancellation()
        throw BucketsChanged()
    }
}

/// What a client's sync is doing: ``SyncSession/state``.
public enum SyncState: Sendable, Equatable {
    /// Not started, or stopped.
    case stopped
    /// Opening a connection (or waiting to retry).
    case connecting
    /// Connected over the streaming WebSocket: changes arrive as they happen.
    case streaming
    /// The socket could not be opened; syncing over HTTP (posting changes, long-polling the
    /// change feed) while the socket is retried in the background.
    case polling
    /// The server refused the token; sync stopped.
    case unauthorized(String)
}
