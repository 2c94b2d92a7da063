import Foundation
import LockstepCore

/// The peer protocol over one link.
///
/// 1. Each side sends a hello in the clear: `{"lockstep-peer":1,"peer":…,"bucket":…,"nonce":…}`.
/// 2. Both derive the link's keys (``PeerKeys``); from here every message is sealed. The first
///    sealed message, `{"want":N}` (the last position of the other's log this side holds),
///    proves the sender has the peer key.
/// 3. Each side sends `{"changes":[{"seq":…,"change":…},…]}` from its log after the other's
///    `want`, then keeps sending as its log grows, until the link closes.
struct PeerSession {
    let link: any PeerLink
    let replica: Replica
    let bucket: String
    let peerKey: [UInt8]
    let configuration: PeerSync.Configuration
    let onAuthenticated: @Sendable (String) -> Void
    let onClosed: @Sendable (String) -> Void

    /// Runs the session until the link closes; returns the peer's client id.
    func run() async throws -> String {
        defer { link.close() }
        // A peer that stalls before proving itself is cut off, rather than held open for ever.
        let watchdog = Task { [link, timeout = configuration.handshakeTimeout] in
            try await Task.sleep(for: timeout)
            link.close()
        }
        defer { watchdog.cancel() }
        var incoming = link.incoming.makeAsyncIterator()
        let hello = PeerMessage.hello(clientID: replica.clientID, bucket: bucket)
        try await link.send(hello)
        guard let theirHello = try await incoming.next() else { throw PeerSyncError.protocolViolation("closed before its hello") }
        let peer = try PeerMessage.peer(inHello: theirHello, bucket: bucket, clientID: replica.clientID)
        var keys = link.isInitiator
            ? PeerKeys(peerKey: peerKey, isInitiator: true, initiatorHello: hello, acceptorHello: theirHello)
            : PeerKeys(peerKey: peerKey, isInitiator: false, initiatorHello: theirHello, acceptorHello: hello)

        // Noted before the first send, so that no change slips between the two.
        let seen = replica.outboxChanged.generation
        let cursor = try await replica.peerCursor(bucket: bucket, peer: peer)
        try await link.send(try keys.sealing.seal(PeerMessage.want(cursor)))
        guard let first = try await incoming.next() else { throw PeerSyncError.protocolViolation("closed before its first message") }
        let want = try PeerMessage.want(in: try keys.opening.open(first))
        watchdog.cancel()
        onAuthenticated(peer)
        defer { onClosed(peer) }

        let sealer = keys.sealing
        let opener = keys.opening
        let link = link
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await send(after: want, to: peer, sealer: sealer, changesAfter: seen)
                } catch {
                    link.close()  // which ends the receiving below
                    throw error
                }
            }
            defer { group.cancelAll() }
            try await receive(from: peer, opener: opener, incoming: &incoming)
        }
        return peer
    }

    /// Sends the log from `want` on, then whatever it gains: local edits and changes from other
    /// peers both signal the outbox. While it runs, local writes log their own changes; what
    /// was queued before is logged here.
    private func send(after want: Int64, to peer: String, sealer: PeerSealer, changesAfter generation: UInt64) async throws {
        var sealer = sealer
        var sentThrough = want
        var seen = generation
        replica.peerLinks.opened(bucket: bucket)
        defer { replica.peerLinks.closed(bucket: bucket) }
        repeat {
            try await replica.shareOwnChanges(bucket: bucket)
            while true {
                let batch = try await replica.peerChanges(
                    bucket: bucket, after: sentThrough, excludingSource: peer, limit: configuration.changesPerMessage)
                guard let last = batch.last else { break }
                let message = PeerMessage.changes(batch)
                guard message.count <= configuration.maximumMessageBytes else { throw PeerSyncError.messageTooLarge(message.count) }
                try await link.send(try sealer.seal(message))
                sentThrough = last.seq
            }
            seen = await replica.outboxChanged.wait(after: seen)
        } while !Task.isCancelled
    }

    private func receive(
        from peer: String, opener: PeerOpener, incoming: inout AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    ) async throws {
        var opener = opener
        while let frame = try await incoming.next() {
            guard frame.count <= configuration.maximumMessageBytes + 16 else { throw PeerSyncError.messageTooLarge(frame.count) }
            guard let changes = try PeerMessage.changes(in: try opener.open(frame), bucket: bucket) else { continue }
            try await replica.takeFromPeer(bucket: bucket, peer: peer, changes)
        }
    }
}
