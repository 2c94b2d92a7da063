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
/// 4. When both hellos said `"blobs":1`, each side also asks for the attachment bytes it lacks
///    that its objects refer to (all of them when the link opens, then those of each change it
///    takes in) and serves what the other asks, in chunks (``PeerBlobMessage``,
///    ``PeerBlobDownloads``). Changes go before chunks, so a photo never delays an edit.
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
        let blobs = PeerMessage.offersBlobs(inHello: theirHello)
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
        let queue = PeerBlobQueue()
        let downloads = PeerBlobDownloads(replica: replica, logger: configuration.logger)
        defer { downloads.close() }
        if blobs { try await ask(for: try await replica.missingAttachments(bucket: bucket), downloads: downloads, queue: queue) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await send(after: want, to: peer, sealer: sealer, changesAfter: seen, blobs: queue)
                } catch {
                    link.close()  // which ends the receiving below
                    throw error
                }
            }
            defer { group.cancelAll() }
            try await receive(
                from: peer, opener: opener, incoming: &incoming, blobs: blobs ? (downloads, queue) : nil)
        }
        return peer
    }

    /// Sends the log from `want` on, then whatever it gains: local edits and changes from other
    /// peers both signal the outbox. While it runs, local writes log their own changes; what
    /// was queued before is logged here.
    ///
    /// Between runs of changes it sends what `blobs` holds: requests first, then one chunk at a
    /// time, going back to the log after each.
    private func send(
        after want: Int64, to peer: String, sealer: PeerSealer, changesAfter generation: UInt64, blobs: PeerBlobQueue
    ) async throws {
        var sealer = sealer
        var sentThrough = want
        var seen = generation
        var blobsSeen = blobs.wakeup.generation
        let chunkBytes = max(1, min(configuration.blobChunkBytes, configuration.maximumMessageBytes - PeerBlobMessage.chunkHeaderBytes))
        replica.peerLinks.opened(bucket: bucket)
        defer { replica.peerLinks.closed(bucket: bucket) }
        repeat {
            blobsSeen = blobs.wakeup.generation
            for message in blobs.takeMessages() { try await link.send(try sealer.seal(message)) }
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
            let files = replica.blobFiles
            if let chunk = try await Replica.offThePool({ try blobs.nextChunk(files: files, chunkBytes: chunkBytes) }) {
                try await link.send(try sealer.seal(chunk))
                continue
            }
            (seen, blobsSeen) = await Self.wait(replica.outboxChanged, after: seen, or: blobs.wakeup, after: blobsSeen)
        } while !Task.isCancelled
    }

    /// Waits until either wakeup passes the generation seen of it; returns both generations then.
    private static func wait(_ first: Wakeup, after firstSeen: UInt64, or second: Wakeup, after secondSeen: UInt64) async -> (UInt64, UInt64) {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.wait(after: firstSeen) }
            group.addTask { await second.wait(after: secondSeen) }
            await group.next()
            group.cancelAll()
        }
        // Read before the work the wakeup calls for, so a signal after this is not missed.
        return (first.generation, second.generation)
    }

    /// Starts fetching `attachments` the device lacks, and queues the request for the sender.
    private func ask(for attachments: [Attachment], downloads: PeerBlobDownloads, queue: PeerBlobQueue) async throws {
        let requests = try await downloads.requests(for: attachments)
        if !requests.isEmpty { queue.send(PeerBlobMessage.request(requests)) }
    }

    private func receive(
        from peer: String, opener: PeerOpener, incoming: inout AsyncThrowingStream<[UInt8], any Error>.AsyncIterator,
        blobs: (downloads: PeerBlobDownloads, queue: PeerBlobQueue)?
    ) async throws {
        var opener = opener
        while let frame = try await incoming.next() {
            guard frame.count <= configuration.maximumMessageBytes + 16 else { throw PeerSyncError.messageTooLarge(frame.count) }
            let bytes = try opener.open(frame)
            if let chunk = try PeerBlobMessage.chunk(in: bytes) {
                guard let blobs else { throw PeerSyncError.protocolViolation("a blob chunk on a link without blobs") }
                _ = try await blobs.downloads.take(chunk)
                blobs.queue.send(PeerBlobMessage.taken)
                continue
            }
            let message = try PeerMessage.json(bytes)
            if let changes = try PeerMessage.changes(inJSON: message, bucket: bucket) {
                try await replica.takeFromPeer(bucket: bucket, peer: peer, changes)
                guard let blobs else { continue }
                let referred = changes.flatMap { Attachment.references(in: .object($0.change.edits.assigned)) }
                try await ask(for: referred, downloads: blobs.downloads, queue: blobs.queue)
            } else if let blobs, let requests = try PeerBlobMessage.requests(in: message) {
                blobs.queue.serve(requests)
            } else if let blobs, PeerBlobMessage.isTaken(message) {
                blobs.queue.taken()
            } else if let blobs, let missing = PeerBlobMessage.missing(in: message) {
                blobs.downloads.forget(missing)
            }
        }
    }
}
