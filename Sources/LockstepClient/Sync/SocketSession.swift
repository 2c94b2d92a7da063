import Foundation
import LockstepCore
import Logging
import WSClient

/// One connection over the streaming protocol (`/sock/1/{app}/websocket`), one channel per
/// bucket, until it drops.
///
/// Per channel: `init` with the token, then an index walk (`i:1:<mark>::<limit>`) on first
/// sync or `cv:<cursor>` to catch up; once caught up the outbox flows, one change in flight
/// per object. Heartbeats (`h:<n>`) go out every interval; a connection silent for 2.5
/// intervals is dropped so the loop can reconnect.
///
/// A reader takes frames off the socket as they arrive and queues them (``InboundFrames``);
/// the session handles what queued while it wrote the last ones, and takes a run of changes on
/// live channels (the server's announcements, our acknowledgements among them) in one
/// transaction: one flush per run, however many changes it holds.
struct SocketSession: Sendable {
    let context: SyncContext
    /// Each channel's bucket, by channel number: the buckets the store synced when the socket
    /// opened, then each bucket opened since, on a channel of its own on the same socket.
    private let channels: Locked<[String]>
    /// Called once the server accepted the token on the first channel: the socket works.
    let onConnected: @Sendable () -> Void

    init(context: SyncContext, buckets: [String], onConnected: @escaping @Sendable () -> Void) {
        self.context = context
        channels = Locked(buckets)
        self.onConnected = onConnected
    }

    struct Silence: Error, CustomStringConvertible {
        var description: String { "the server went silent; reconnecting" }
    }

    /// The most changes the server sends in answer to one `cv:`; a full batch means more wait.
    static let catchUpPage = 100

    enum Phase: Equatable {
        case authorizing
        /// The server ended the channel, saying why; opened again to learn whether this user
        /// still has the right to it (see ``channelEnded(_:_:_:_:_:)``).
        case reopening(reason: String)
        case indexing
        case catchingUp
        case live
        /// The bucket's space was lost and the bucket forgotten: the channel stays closed.
        case forgotten
    }

    /// How long the server may take to answer the socket's upgrade: as long as an open socket
    /// may stay silent (2.5 heartbeat intervals) before the session gives up on it.
    static func upgradeLimit(_ context: SyncContext) -> Duration { context.configuration.heartbeatInterval * 2.5 }

    /// Whether the socket can be opened now: a handshake, closed at once.
    static func opens(_ context: SyncContext) async -> Bool {
        do {
            try await connectWebSocket(
                url: context.socketURL, configuration: WebSocketClientConfiguration(), logger: context.logger, upgradeLimit: upgradeLimit(context)
            ) { _, outbound in
                try await outbound.close(.normalClosure, reason: nil)
            }
            return true
        } catch {
            return false
        }
    }

    func run() async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = 64 * 1024 * 1024
        try await connectWebSocket(url: context.socketURL, configuration: configuration, logger: context.logger, upgradeLimit: Self.upgradeLimit(context)) {
            inbound, outbound in
            try await handle(inbound: inbound, outbound: outbound)
        }
    }

    private func handle(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (frames, send) = AsyncStream.makeStream(of: String.self)
        let buckets = channels.withLock { $0 }
        let phases = Locked([Phase](repeating: .authorizing, count: buckets.count))
        let lastHeard = Locked(ContinuousClock.now)
        let bucketsGeneration = context.bucketsChanged.generation
        defer { context.shared.withLock { $0.live = [] } }
        let clockSocket = context.clockSocket.attach { try await outbound.writeTextMessage($0) }
        defer { context.clockSocket.detach(clockSocket) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in frames { try await outbound.writeTextMessage(frame) }
            }
            group.addTask { try await heartbeat(send, lastHeard) }
            // The clock's exchanges go over this socket while it is open: they end with it.
            group.addTask { try await context.clock.calibrateContinuously() }
            group.addTask { try await flushLoop(send, phases) }
            group.addTask { await openChannels(after: bucketsGeneration, send, phases) }
            for (channel, bucket) in buckets.enumerated() {
                send.yield("\(channel):init:\(initMessage(bucket))")
            }
            let received = InboundFrames()
            group.addTask {
                defer { received.finish() }
                for try await message in inbound.messages(maxSize: 256 * 1024 * 1024) {
                    guard case .text(let text) = message else { continue }
                    let isClockAnswer = context.clockSocket.receive(text) // first: it stamps the arrival
                    lastHeard.withLock { $0 = .now }
                    if isClockAnswer { continue }
                    await received.append(text)
                }
            }
            group.addTask {
                while let frames = await received.takeAll() {
                    try await receive(frames.map(SocketFrame.init), send, phases)
                }
                send.finish()
            }
            try await group.next()
            group.cancelAll()
        }
    }

    func initMessage(_ bucket: String) -> String {
        JSONValue.object([
            "clientid": .string(context.replica.clientID), "api": "1.1", "token": .string(context.token),
            "app_id": .string(context.app), "name": .string(bucket), "library": "lockstep-swift", "version": "1",
        ]).description
    }

    /// Handles frames in order, except that a run of changes on live channels is taken in one
    /// transaction (acknowledgements of ours among them): one flush for the run, not one each.
    private func receive(_ frames: [SocketFrame], _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) async throws {
        var rest = frames[...]
        while let first = rest.first {
            let live = phases.withLock { $0 }
            let run = rest.prefix { frame in
                guard case .channel(let channel, "c", _) = frame, live.indices.contains(channel) else { return false }
                return live[channel] == .live
            }
            if run.isEmpty {
                try await receive(first, send, phases)
                rest = rest.dropFirst()
            } else {
                try await receiveLive(run, send)
                rest = rest.dropFirst(run.count)
            }
        }
    }

    /// `c:` frames of live channels: one transaction for all, each bucket's changes in order.
    private func receiveLive(_ frames: ArraySlice<SocketFrame>, _ send: AsyncStream<String>.Continuation) async throws {
        var channels: [Int] = []
        var changes: [Int: [RemoteChange]] = [:]
        for case .channel(let channel, _, let payload) in frames {
            if changes[channel] == nil { channels.append(channel) }
            changes[channel, default: []] += try RemoteChange.list(try JSONValue(parsing: payload))
        }
        let buckets = self.channels.withLock { $0 }
        let batches = channels.map { ChangeBatch(bucket: buckets[$0], changes: changes[$0] ?? []) }
        let outcomes = try await context.take(batches)
        for (channel, (batch, outcome)) in zip(channels, zip(batches, outcomes)) {
            try await followUp(outcome, of: batch, channel: channel, send)
        }
    }

    /// What a batch of changes left to do on the wire: whole objects to resend at once, and
    /// changes the server failed for a moment to send again soon.
    private func followUp(
        _ outcome: ReceiveOutcome, of batch: ChangeBatch, channel: Int, _ send: AsyncStream<String>.Continuation
    ) async throws {
        for change in try await context.replica.outgoing(bucket: batch.bucket, changeIDs: outcome.resendFull) {
            send.yield("\(channel):c:\(change)")
        }
        if outcome.retryLater { retrySoon(channel, batch.bucket, batch.changes, send) }
    }

    private func receive(_ frame: SocketFrame, _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) async throws {
        let buckets = channels.withLock { $0 }
        guard case .channel(let channel, let command, let payload) = frame, buckets.indices.contains(channel) else { return }
        let bucket = buckets[channel]
        let replica = context.replica
        let pageSize = context.configuration.indexPageSize
        switch command {
        case "auth":
            if payload.hasPrefix("{") {
                if try await spaceChannelRefused(channel, bucket, payload, send, phases) { return }
                throw LockstepClientError.unauthorized(payload)
            }
            onConnected()
            try await start(channel, bucket, send, phases)
        case "i":
            let page = try IndexPage(json: try JSONValue(parsing: payload))
            let first = try replica.position(bucket: bucket) == .index(mark: nil)
            // The next page is asked for first: the server reads it while this one is written.
            if let mark = page.mark { send.yield("\(channel):i:1:\(mark)::\(pageSize)") }
            let complete = try await replica.takeIndexPage(bucket: bucket, page, isFirst: first)
            context.progress.signal()
            if complete { try await start(channel, bucket, send, phases) }
        case "c":
            let batch = ChangeBatch(bucket: bucket, changes: try RemoteChange.list(try JSONValue(parsing: payload)))
            let outcome = try await context.take([batch])[0]
            try await followUp(outcome, of: batch, channel: channel, send)
            if phases.withLock({ $0[channel] }) == .catchingUp {
                if batch.changes.count >= Self.catchUpPage, case .changes(let cursor) = try replica.position(bucket: bucket) {
                    send.yield("\(channel):cv:\(cursor)")
                } else {
                    phases.withLock { $0[channel] = .live }
                    context.setLive(bucket, true)
                    // Everything sent before the connection dropped goes again, with its ccid.
                    for change in try await replica.takeOutgoing(bucket: bucket, resend: true) {
                        send.yield("\(channel):c:\(change)")
                    }
                }
            }
        case "cv":
            // `cv:?`: the server no longer knows our cursor.
            try await replica.restartIndex(bucket: bucket)
            try await start(channel, bucket, send, phases)
        case "o":
            try await replica.setOptions(bucket: bucket, payload)
        case "?":
            channelEnded(channel, bucket, payload, send, phases)
        default:
            context.logger.debug("ignoring \(command) on channel \(channel)")
        }
    }

    /// Asks for what the bucket needs next: an index page or the changes since its cursor.
    private func start(_ channel: Int, _ bucket: String, _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) async throws {
        context.setLive(bucket, false)
        switch try context.replica.position(bucket: bucket) {
        case .index(let mark):
            phases.withLock { $0[channel] = .indexing }
            send.yield("\(channel):i:1:\(mark ?? "")::\(context.configuration.indexPageSize)")
        case .changes(let cursor):
            phases.withLock { $0[channel] = .catchingUp }
            send.yield("\(channel):cv:\(cursor)")
        }
    }

    /// The server failed for a moment: send those changes again shortly, with the same ccids.
    private func retrySoon(_ channel: Int, _ bucket: String, _ changes: [RemoteChange], _ send: AsyncStream<String>.Continuation) {
        let changeIDs = Set(changes.filter { $0.error != nil }.flatMap(\.changeIDs))
        let replica = context.replica
        Task {
            try await Task.sleep(for: .seconds(1))
            for change in try await replica.outgoing(bucket: bucket, changeIDs: changeIDs) {
                send.yield("\(channel):c:\(change)")
            }
        }
    }

    /// Sends new outbox changes of live channels whenever the outbox changes.
    private func flushLoop(_ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) async throws {
        let replica = context.replica
        var seen: UInt64 = 0
        while !Task.isCancelled {
            seen = await replica.outboxChanged.wait(after: seen)
            let live = phases.withLock { $0 }
            for (channel, bucket) in channels.withLock({ $0 }).enumerated() where live.indices.contains(channel) && live[channel] == .live {
                for change in try await replica.takeOutgoing(bucket: bucket, resend: false) {
                    send.yield("\(channel):c:\(change)")
                }
            }
        }
    }

    /// Opens a channel on this socket for each bucket opened after `generation`, and opens again
    /// the channel of a forgotten bucket opened anew. Reconnecting instead would end every
    /// channel, and with them whatever the connection held in presence buckets: a player's
    /// seat in a lobby would vanish as they opened the bucket of a match.
    private func openChannels(after generation: UInt64, _ send: AsyncStream<String>.Continuation, _ phases: Locked<[Phase]>) async {
        var seen = generation
        while !Task.isCancelled {
            // Compared with the channels, not with the signal: a bucket opened as the socket
            // opened is found on the first pass.
            let names = (try? context.replica.bucketNames()) ?? []
            // Channels and phases grow together, under both locks (always taken in this order).
            let opening = channels.withLock { channels in
                phases.withLock { phases in
                    var opening: [(channel: Int, bucket: String)] = []
                    for name in names {
                        if let channel = channels.firstIndex(of: name) {
                            guard phases[channel] == .forgotten else { continue }
                            phases[channel] = .authorizing
                            opening.append((channel, name))
                        } else {
                            channels.append(name)
                            phases.append(.authorizing)
                            opening.append((channels.count - 1, name))
                        }
                    }
                    return opening
                }
            }
            for (channel, bucket) in opening { send.yield("\(channel):init:\(initMessage(bucket))") }
            seen = await context.bucketsChanged.wait(after: seen)
        }
    }

    private func heartbeat(_ send: AsyncStream<String>.Continuation, _ lastHeard: Locked<ContinuousClock.Instant>) async throws {
        let interval = context.configuration.heartbeatInterval
        var count = 0
        while !Task.isCancelled {
            try await Task.sleep(for: interval)
            if ContinuousClock.now - lastHeard.withLock({ $0 }) > interval * 2.5 { throw Silence() }
            count += 1
            send.yield("h:\(count)")
        }
    }
}
