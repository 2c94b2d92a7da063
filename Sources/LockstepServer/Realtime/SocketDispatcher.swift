import LockstepCore
import NIOCore

/// Handles a connection's messages in order and answers each: heartbeats and clock exchanges
/// at once, channel commands (`init`, `i`, `e`, `cv`, `c`) against the channel's bucket.
///
/// It is used by one task at a time, the one serving the connection's inbox, so its channel
/// table needs no lock; what the channels share with other tasks lives in their ``ChannelSession``s.
struct SocketDispatcher {
    let connection: SocketConnection
    /// The initialized channels, by number.
    var channels: [Int: ChannelSession] = [:]
    /// The console's channels (``AdminChannel``), by number: never a bucket's.
    var adminChannels: [Int: AdminChannel] = [:]

    private var pace: MessageRateLimiter
    private var changePace: MessageRateLimiter

    init(connection: SocketConnection) {
        self.connection = connection
        pace = MessageRateLimiter(messagesPerSecond: connection.services.limits.messagesPerSecond)
        changePace = MessageRateLimiter(messagesPerSecond: connection.services.limits.changesPerSecond)
    }

    var services: LockstepServices { connection.services }
    var limits: Limits { connection.services.limits }

    /// Handles one message, in its turn: past the connection's rate it first waits.
    mutating func serve(_ received: SocketInbox.Received) async {
        // Changes have a pace of their own: a device uploading its backlog sends thousands,
        // held back anyway by the commits they wait for (ChangePipeline).
        let delay = SocketMessage.isChange(received.message) ? changePace.delay() : pace.delay()
        if delay > .zero { try? await Task.sleep(for: delay) }
        await handle(received.message, receivedAt: received.receivedAt)
    }

    /// Closes every channel: the connection is over.
    mutating func closeChannels() {
        for session in channels.values { session.close() }
        channels = [:]
        for channel in adminChannels.values { channel.close() }
        adminChannels = [:]
    }

    private mutating func handle(_ message: SocketInput, receivedAt: Int64) async {
        guard case .text(let text) = message else {
            return send(SocketReply.error(channel: nil, code: 400, message: "binary messages are not part of the protocol: send text"))
        }
        guard text.utf8.count <= limits.maximumMessageBytes else { return refuseOversized(text) }
        switch SocketMessage(text) {
        case .heartbeat(let count):
            send(ByteBuffer(string: "h:\(count.flatMap { $0 < .max ? $0 + 1 : nil } ?? 1)"))
        case .clock(let clientSent?):
            connection.outbox.enqueue(.clockReply(clientSent: clientSent, serverReceived: receivedAt))
        case .clock(nil):
            send(SocketReply.error(channel: nil, code: 400, message: "a clock exchange is t:<your send time in integer nanoseconds since the Unix epoch>"))
        case .releases:
            guard let hub = services.releases?.hub else {
                return send(SocketReply.error(channel: nil, code: 404, message: "this server has no timed store: start it with --store-config"))
            }
            connection.followReleases(of: hub)
        case .log:
            break
        case .channel(let number, "init", let payload):
            await initialize(number, payload)
        case .channel(let number, let command, _) where adminChannels[number] != nil:
            runAdmin(command, on: adminChannels[number]!)
        case .channel(let number, let command, let payload):
            guard let session = channels[number] else {
                return send(SocketReply.error(
                    channel: number, code: 400, message: "channel \(number) is not initialized: send \(number):init:{…} first"))
            }
            if case .space(let spaceID) = session.scope.owner {
                // A removal committed on another node is enforced before the channel is served.
                await services.spaces.catchUp(appID: session.scope.appID, spaceID: spaceID)
            }
            if let revocation = session.revocation {
                return send(SocketReply.error(channel: number, code: ChannelSession.revokedCode, message: revocation))
            }
            await run(command, payload, on: session)
        case .unknown(let text):
            send(SocketReply.error(
                channel: nil, code: 400,
                message: "unknown message \"\(text.prefix(40))\": send <channel>:<command>:<data>, h:<count>, t:<time> or release:"))
        }
    }

    /// Runs one command of an initialized channel (also `init`'s `cmd`).
    mutating func run(_ command: String, _ payload: String?, on session: ChannelSession) async {
        switch command {
        case "i":
            await index(session, payload)
        case "e":
            await entity(session, payload)
        case "cv":
            changes(session, payload)
        case "c":
            await change(session, payload)
        case "index", "log":
            // Replies to requests this server never makes (`index`, remote logging).
            break
        default:
            send(SocketReply.error(
                channel: session.number, code: 400, message: "unknown command \"\(command.prefix(40))\": use init, i, e, cv or c"))
        }
    }

    /// A message over ``Limits/maximumMessageBytes`` is not acted on, but answered: a change
    /// with error 413 naming its ccid (so the client drops it instead of resending it forever),
    /// anything else with a channel or connection error.
    private func refuseOversized(_ text: String) {
        let problem = "the message is \(text.utf8.count) bytes; the limit is \(limits.maximumMessageBytes)"
        switch SocketMessage(text) {
        case .channel(let number, "c", let payload):
            let change = payload.flatMap { try? JSONValue(parsing: $0) }
            send(SocketReply.channel(number, "c", json: [ChangeMessage.rejection(
                code: 413, message: problem, key: change?["id"]?.stringValue ?? "", changeID: change?["ccid"]?.stringValue ?? "",
                clientID: channels[number]?.clientID ?? "")]))
        case .channel(let number, _, _):
            send(SocketReply.error(channel: number, code: 413, message: problem))
        default:
            send(SocketReply.error(channel: nil, code: 413, message: problem))
        }
    }

    func send(_ text: ByteBuffer) {
        connection.outbox.enqueue(.text(text))
    }
}
