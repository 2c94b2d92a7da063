import CommandLineSupport
import Foundation
import LockstepCore
import Logging
import NIOCore
import NIOPosix
import Synchronization
import WSClient

/// One measured round of the fan-out benchmark: `subscribers` streaming clients on one shared
/// bucket while one more client writes `writes` changes at `writesPerSecond`.
///
/// Latency is write-to-delivered: from the writer handing a change to its socket to a
/// subscriber reading its broadcast, on the same clock (every client runs in this process).
struct FanoutRound: Sendable {
    var target: BenchTarget
    var bucket: String
    var subscribers: Int
    var writesPerSecond: Double
    var writes: Int

    struct Result {
        var subscribers: Int
        var writes: Int
        var deliveries: Int
        /// Write-to-delivered latencies, sorted.
        var latencies: [Duration]
        /// From the first write to the last delivery.
        var elapsed: Duration

        func percentile(_ fraction: Double) -> Duration {
            latencies.isEmpty ? .zero : latencies[Int((fraction * Double(latencies.count - 1)).rounded())]
        }

        var deliveriesPerSecond: Double {
            Double(deliveries) / max(elapsed / .seconds(1), 1e-9)
        }
    }

    func run() async throws -> Result {
        try await target.shareBucket(bucket)
        let sent = SendTimes()
        let clients = try await Self.connectSubscribers(subscribers, url: target.socketURL, sent: sent) { number in
            initialization(clientID: "subscriber-\(number)")
        }
        let writer = try await BenchSocket.open(url: target.socketURL, initialization: initialization(clientID: "writer")) { _ in }
        let started = ContinuousClock.now
        for number in 0..<writes {
            try await Task.sleep(until: started + .seconds(Double(number) / writesPerSecond), clock: .continuous)
            let ccid = "\(bucket)-\(number)"
            sent.record(ccid)
            try await writer.send("0:c:\(Self.change(number, ccid: ccid))")
        }
        return try await Self.collect(clients, writers: [writer], writes: writes, expected: writes * subscribers, started: started)
    }

    /// A benchmark client listening on channel 0, and the deliveries it measured.
    typealias Subscriber = (socket: BenchSocket, received: Deliveries)

    /// The change numbered `number`: a new object `o<number>`.
    static func change(_ number: Int, ccid: String) -> JSONValue {
        ["id": .string("o\(number)"), "ccid": .string(ccid), "o": "M", "v": ["n": ["o": "+", "v": .integer(Int64(number))]]]
    }

    /// Connects `count` subscribers a hundred at a time (a burst of thousands would overflow
    /// the listen backlog), each authorized before the round starts with the `N:init:` message
    /// `initialization(number)`, each timing the changes `sent` records as they arrive.
    static func connectSubscribers(
        _ count: Int, url: String, sent: SendTimes, initialization: @escaping @Sendable (Int) -> String
    ) async throws -> [Subscriber] {
        var clients: [Subscriber] = []
        while clients.count < count {
            let first = clients.count
            clients += try await withThrowingTaskGroup(of: Subscriber.self) { group in
                for number in first..<min(first + 100, count) {
                    group.addTask {
                        let received = Deliveries()
                        let socket = try await BenchSocket.open(url: url, initialization: initialization(number)) { message in
                            guard message.hasPrefix("0:c:[") else { return }
                            let now = ContinuousClock.now
                            for ccid in changeIDs(in: message) {
                                if let time = sent.time(of: ccid) { received.record(now - time) }
                            }
                        }
                        return (socket, received)
                    }
                }
                var opened: [Subscriber] = []
                for try await client in group { opened.append(client) }
                return opened
            }
        }
        return clients
    }

    /// Waits for the `expected` deliveries (stragglers get 30 s), closes every socket, and
    /// returns what the subscribers measured from `started`.
    static func collect(
        _ subscribers: [Subscriber], writers: [BenchSocket], writes: Int, expected: Int, started: ContinuousClock.Instant
    ) async throws -> Result {
        let deadline = ContinuousClock.now + .seconds(30)
        while subscribers.reduce(0, { $0 + $1.received.deliveries }) < expected && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let samples = subscribers.map(\.received)
        let last = samples.compactMap(\.lastDelivery).max() ?? started
        for writer in writers { await writer.close() }
        for subscriber in subscribers { await subscriber.socket.close() }
        return Result(
            subscribers: subscribers.count, writes: writes, deliveries: samples.reduce(0) { $0 + $1.deliveries },
            latencies: samples.flatMap(\.latencies).sorted(), elapsed: last - started)
    }

    private func initialization(clientID: String) -> String {
        Self.subscription(bucket: bucket, token: target.token, clientID: clientID)
    }

    /// The `init` of a subscriber on channel 0 of `bucket`, a bucket new to the benchmark: an
    /// empty index walk starts the channel (it sends nothing until asked).
    static func subscription(bucket: String, token: String, clientID: String) -> String {
        let fields: JSONValue = ["name": .string(bucket), "token": .string(token), "clientid": .string(clientID), "api": "1.1", "cmd": "i::::1000"]
        return "0:init:\(fields)"
    }

    /// The first ccid of each change in a `c:` message (the server may send several changes in
    /// one), found without parsing the JSON.
    static func changeIDs(in message: String) -> [String] {
        var ccids: [String] = []
        var rest = message[...]
        while let start = rest.range(of: #""ccids":[""#)?.upperBound, let end = rest[start...].firstIndex(of: "\"") {
            ccids.append(String(rest[start..<end]))
            rest = rest[end...]
        }
        return ccids
    }
}

/// When each change was handed to the writer's socket.
final class SendTimes: Sendable {
    private let times = Mutex<[String: ContinuousClock.Instant]>([:])

    func record(_ ccid: String) {
        let now = ContinuousClock.now
        times.withLock { $0[ccid] = now }
    }

    func time(of ccid: String) -> ContinuousClock.Instant? {
        times.withLock { $0[ccid] }
    }
}

/// One subscriber's deliveries: each one's latency, and when the last arrived.
final class Deliveries: Sendable {
    private let state = Mutex<(latencies: [Duration], last: ContinuousClock.Instant?)>(([], nil))

    func record(_ latency: Duration) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.latencies.append(latency)
            state.last = now
        }
    }

    var deliveries: Int { state.withLock { $0.latencies.count } }
    var latencies: [Duration] { state.withLock { $0.latencies } }
    var lastDelivery: ContinuousClock.Instant? { state.withLock { $0.last } }
}

/// A benchmark client's WebSocket: opened and authorized on its channels (channel 0, or one
/// per `N:init:` message given), handing each other text message it receives to `onMessage`
/// on its reading task.
final class BenchSocket: Sendable {
    private let writer: WebSocketOutboundWriter
    private let running: Task<WebSocketCloseFrame?, any Error>

    private init(writer: WebSocketOutboundWriter, running: Task<WebSocketCloseFrame?, any Error>) {
        self.writer = writer
        self.running = running
    }

    /// Opens a socket on `eventLoopGroup`: a load generator that shares its process with the
    /// server it loads (a test) gives the client loops of their own, so that its work does not
    /// queue on the loops the server's connections are served on.
    static func open(
        url: String, initialization: String, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onMessage: @escaping @Sendable (String) -> Void
    ) async throws -> BenchSocket {
        try await open(url: url, initializations: [initialization], eventLoopGroup: eventLoopGroup, onMessage: onMessage)
    }

    static func open(
        url: String, initializations: [String], eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onMessage: @escaping @Sendable (String) -> Void
    ) async throws -> BenchSocket {
        var logger = Logger(label: "lockstep-bench-client")
        logger.logLevel = .critical
        let (authorized, authorize) = AsyncStream.makeStream(of: WebSocketOutboundWriter.self)
        let running = Task {
            defer { authorize.finish() }
            return try await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24), eventLoopGroup: eventLoopGroup, logger: logger
            ) {
                inbound, outbound, _ in
                for initialization in initializations { try await outbound.write(.text(initialization)) }
                var unauthorized = initializations.count
                for try await message in inbound.messages(maxSize: 1 << 26) {
                    guard case .text(let text) = message else { continue }
                    if unauthorized > 0, try isAuthorization(text) {
                        unauthorized -= 1
                        if unauthorized == 0 {
                            authorize.yield(outbound)
                            authorize.finish()
                        }
                    } else {
                        onMessage(text)
                    }
                }
            }
        }
        for await writer in authorized { return BenchSocket(writer: writer, running: running) }
        _ = try await running.value
        throw CommandError("the bench client's socket closed before it was authorized")
    }

    /// Whether `text` is the server's answer to an `N:init:` message (`N:auth:…`), `false`
    /// for any other message; throws when the answer refuses the client.
    static func isAuthorization(_ text: String) throws -> Bool {
        guard let auth = text.firstRange(of: ":auth:"), text[..<auth.lowerBound].allSatisfy(\.isNumber) else { return false }
        guard text[auth.upperBound...].first != "{" else { throw CommandError("the server refused the bench client: \(text)") }
        return true
    }

    func send(_ text: String) async throws {
        try await writer.write(.text(text))
    }

    func close() async {
        try? await writer.close(.normalClosure, reason: nil)
        _ = await running.result
    }

    /// Waits until the socket ends, and says how: the server's close frame, or what failed.
    func ending() async -> String {
        switch await running.result {
        case .success(let close?): "closed by the server: code \(close.closeCode) \(close.reason ?? "")"
        case .success(nil): "ended without a close frame"
        case .failure(let error): "failed: \(error)"
        }
    }
}
