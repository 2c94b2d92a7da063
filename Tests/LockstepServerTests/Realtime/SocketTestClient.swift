import Foundation
import HTTPTypes
import LockstepCore
import Logging
import NIOCore
import Synchronization
import WSClient

/// A streaming client for tests: a real WebSocket to a ``TestServer``, with a mailbox of the
/// text messages it received.
///
/// A client made with `reading: false` never reads its socket (so it answers no pings either):
/// a peer that stopped reading, or vanished.
///
/// Every change it receives is checked against the streaming protocol's promise: on each
/// channel, changes arrive once and in feed order (`cv`s strictly increasing, none twice). A
/// break is recorded as an issue of the running test (see ``FeedOrderCheck``).
final class SocketTestClient: Sendable {
    let mailbox: Mailbox<String>
    private let pending = Mutex<[Int: [JSONObject]]>([:])
    private let link: Link
    private let release: AsyncStream<Void>.Continuation
    private let running: Task<WebSocketCloseFrame?, any Error>

    /// Connects to `server`, or to it through a proxy listening on `port`; with `origin`, as a
    /// web page of that origin does.
    static func connect(
        to server: TestServer, app: String? = nil, port: Int? = nil, reading: Bool = true, origin: String? = nil
    ) async throws -> SocketTestClient {
        let url = "ws://127.0.0.1:\(port ?? server.port)/sock/1/\(app ?? server.appID)/websocket"
        let (opened, open) = AsyncStream.makeStream(of: Bool.self)
        let client = SocketTestClient(url: url, reading: reading, origin: origin, open: open)
        for await didOpen in opened {
            guard didOpen else { break }
            return client
        }
        _ = try await client.running.value
        throw SocketTestError.didNotConnect
    }

    private init(url: String, reading: Bool, origin: String?, open: AsyncStream<Bool>.Continuation) {
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let mailbox = Mailbox<String>()
        let link = Link()
        let order = FeedOrderCheck()
        self.release = release
        self.mailbox = mailbox
        self.link = link
        var logger = Logger(label: "socket-test-client")
        logger.logLevel = .critical
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
        if let origin { configuration.additionalHeaders[.origin] = origin }
        running = Task {
            defer {
                mailbox.finish()
                open.yield(false)
                open.finish()
            }
            return try await WebSocketClient.connect(
                url: url, configuration: configuration, logger: logger
            ) { inbound, outbound, _ in
                link.writer.withLock { $0 = outbound }
                open.yield(true)
                open.finish()
                guard reading else {
                    for await _ in released {}
                    return
                }
                for try await message in inbound.messages(maxSize: 1 << 26) {
                    if case .text(let text) = message {
                        order.check(text)
                        mailbox.deliver(text)
                    }
                }
            }
        }
    }

    func send(_ text: String) async throws {
        try await sendFrame(.text(text))
    }

    func sendFrame(_ frame: WebSocketOutboundWriter.OutboundFrame) async throws {
        guard let writer = link.writer.withLock({ $0 }) else { throw SocketTestError.notConnected }
        try await writer.write(frame)
    }

    /// The next message received (in order), or `nil` after `timeout` or once the socket closed.
    func next(timeout: Duration = .seconds(10)) async -> String? {
        await mailbox.next(timeout: timeout) { _ in true }
    }

    /// The first message, received or to come, that starts with `prefix`; the others stay.
    func next(startingWith prefix: String, timeout: Duration = .seconds(10)) async -> String? {
        await mailbox.next(timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// The JSON after `prefix` in the first message that starts with it.
    func json(after prefix: String, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        guard let message = await next(startingWith: prefix, timeout: timeout) else { throw SocketTestError.noMessage(prefix) }
        return try JSONValue(parsing: String(message.dropFirst(prefix.count)))
    }

    /// The next `count` changes (or errors) sent on `channel`, however the server framed them:
    /// several changes may share one `N:c:[…]` message.
    func changes(_ count: Int, channel: Int = 0, timeout: Duration = .seconds(10)) async throws -> [JSONObject] {
        var taken: [JSONObject] = []
        while taken.count < count {
            let buffered = pending.withLock { pending in
                let some = Array((pending[channel] ?? []).prefix(count - taken.count))
                pending[channel]?.removeFirst(some.count)
                return some
            }
            taken += buffered
            guard taken.count < count else { break }
            let frame = try await json(after: "\(channel):c:", timeout: timeout)
            pending.withLock { $0[channel, default: []] += frame.arrayValue?.compactMap(\.objectValue) ?? [] }
        }
        return taken
    }

    /// The next change (or error) sent on `channel`.
    func change(channel: Int = 0, timeout: Duration = .seconds(10)) async throws -> JSONObject {
        try await changes(1, channel: channel, timeout: timeout)[0]
    }

    /// Sends `N:init:{…}` for `bucket` and returns the `N:auth:` answer's payload.
    ///
    /// With `follow` (the default) it then walks the bucket's index, as a client without a
    /// cursor does, so that the channel receives every change from then on; the pages are
    /// taken from the mailbox. Without it the channel sends nothing until the test asks
    /// (`cv:` or `i:`).
    @discardableResult
    func initialize(
        channel: Int = 0, bucket: String = "note", token: String, clientID: String = "test-client", extra: JSONObject = [:],
        follow: Bool = true
    ) async throws -> String {
        var fields: JSONObject = [
            "name": .string(bucket), "token": .string(token), "clientid": .string(clientID), "api": "1.1", "library": "lockstep-tests",
        ]
        fields.merge(extra) { _, new in new }
        try await send("\(channel):init:\(JSONValue.object(fields))")
        guard let auth = await next(startingWith: "\(channel):auth:") else { throw SocketTestError.noMessage("\(channel):auth:") }
        let answer = String(auth.dropFirst("\(channel):auth:".count))
        if follow && fields["cmd"] == nil && !answer.hasPrefix("{") { _ = try await walkIndex(channel: channel) }
        return answer
    }

    /// Walks the channel's index (`i:1:<mark>::<limit>`) to its last page; returns every
    /// entry listed and the walk's `current`.
    func walkIndex(channel: Int = 0, limit: Int = 1000) async throws -> (entries: [JSONObject], current: String) {
        var entries: [JSONObject] = []
        var mark = ""
        while true {
            try await send("\(channel):i:1:\(mark)::\(limit)")
            let page = try await json(after: "\(channel):i:")
            entries += page["index"]?.arrayValue?.compactMap(\.objectValue) ?? []
            guard let next = page["mark"]?.stringValue else { return (entries, page["current"]?.stringValue ?? "") }
            mark = next
        }
    }

    /// Closes the socket (or, for a client that never reads, lets it go) and waits for the end.
    /// Returns the server's close frame, if it sent one.
    @discardableResult
    func close() async -> WebSocketCloseFrame? {
        release.finish()
        if let writer = link.writer.withLock({ $0 }) { try? await writer.close(.normalClosure, reason: nil) }
        return await closed()
    }

    /// Waits for the socket to end from the server's side, returning its close frame.
    func closed() async -> WebSocketCloseFrame? {
        (try? await running.value) ?? nil
    }
}

/// Where the socket's writer is kept once the connection is up.
private final class Link: Sendable {
    let writer = Mutex<WebSocketOutboundWriter?>(nil)
}

enum SocketTestError: Error {
    case didNotConnect
    case notConnected
    case noMessage(String)
}

/// Things received and not yet taken (messages, connection events), with at most one waiter.
final class Mailbox<Element: Sendable>: Sendable {
    private struct Waiter {
        var id: Int
        var matches: @Sendable (Element) -> Bool
        var continuation: CheckedContinuation<Element?, Never>
    }

    private struct State {
        var messages: [Element] = []
        var isFinished = false
        var waiter: Waiter?
        var lastWaiterID = 0
    }

    private let state = Mutex(State())

    func deliver(_ message: Element) {
        let waiter = state.withLock { state -> Waiter? in
            if let waiter = state.waiter, waiter.matches(message) {
                state.waiter = nil
                return waiter
            }
            state.messages.append(message)
            return nil
        }
        waiter?.continuation.resume(returning: message)
    }

    func finish() {
        let waiter = state.withLock { state -> Waiter? in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// Every message received and not taken, taking them.
    func drain() -> [Element] {
        state.withLock { state in
            defer { state.messages = [] }
            return state.messages
        }
    }

    func next(timeout: Duration, where matches: @escaping @Sendable (Element) -> Bool) async -> Element? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
            let outcome = state.withLock { state -> (answer: Element?, waiterID: Int?) in
                if let index = state.messages.firstIndex(where: matches) { return (state.messages.remove(at: index), nil) }
                if state.isFinished { return (nil, nil) }
                state.lastWaiterID += 1
                state.waiter = Waiter(id: state.lastWaiterID, matches: matches, continuation: continuation)
                return (nil, state.lastWaiterID)
            }
            guard let waiterID = outcome.waiterID else { return continuation.resume(returning: outcome.answer) }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.state.withLock { state -> Waiter? in
                    guard state.waiter?.id == waiterID else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter
                }
                expired?.continuation.resume(returning: nil)
            }
        }
    }
}
