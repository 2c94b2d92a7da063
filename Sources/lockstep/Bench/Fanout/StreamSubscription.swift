import LockstepCore
import Logging
import NIOCore
import NIOPosix
import WSClient

/// One subscriber of a Lockstep server, as a fan-out benchmark's child process runs it: a
/// WebSocket with channel 0 opened on the shared bucket, whose announcements are timed into
/// its tally. It sends nothing after its `init`; WSClient answers the server's pings, which is
/// all an idle client has to do to stay connected.
enum StreamSubscription {
    /// Opens the subscription and returns once the server authorized it; the returned task
    /// reads until the connection ends, then records why in `tally`.
    static func open(url: String, token: String, bucket: String, clientID: String, tally: SubscriptionTally) async throws -> Task<Void, Never> {
        // The bucket is new: an empty index walk starts the channel (it sends nothing until asked).
        let fields: JSONValue = ["name": .string(bucket), "token": .string(token), "clientid": .string(clientID), "api": "1.1", "cmd": "i::::1000"]
        let initialization = "0:init:\(fields)"
        var logger = Logger(label: "lockstep-bench-subscriber")
        logger.logLevel = .critical
        let (authorized, authorize) = AsyncStream.makeStream(of: String?.self)
        let reading = Task {
            defer { authorize.finish() }
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24), logger: logger
                ) { inbound, outbound, _ in
                    try await outbound.write(.text(initialization))
                    var isAuthorized = false
                    for try await message in inbound.messages(maxSize: 1 << 26) {
                        let now = WallClock.now()
                        guard case .text(let text) = message else { continue }
                        if isAuthorized {
                            if text.hasPrefix("0:c:[") { tally.record(stamps: SentAt.stamps(in: text), at: now) }
                        } else if text.hasPrefix("0:auth:") {
                            isAuthorized = true
                            // A refusal is a JSON object; a user name never is.
                            authorize.yield(text.dropFirst(7).first == "{" ? text : nil)
                            authorize.finish()
                        }
                    }
                }
                tally.end(close.map { "closed by the server: code \($0.closeCode) \($0.reason ?? "")" } ?? "ended without a close frame")
            } catch {
                tally.end("failed: \(error)")
            }
        }
        for await refusal in authorized {
            if let refusal { throw CommandError("the server refused a subscriber: \(refusal)") }
            return reading
        }
        await reading.value
        throw CommandError("a subscriber's socket ended before it was authorized (\(tally.summary(expectedEach: 0).endings.keys.first ?? "?"))")
    }
}
