import ArgumentParser
import CommandLineSupport
import Dispatch
import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import Logging
import Synchronization
import WSClient

struct Tail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a bucket's changes as they happen, one line each.",
        discussion: """
            Connects to the streaming socket like any client. Without --cv it lists the bucket's \
            objects first; with --cv it prints the changes made since that change version. Then it \
            follows live until Ctrl-C, which prints the cv to resume from.
            """)

    @Option(help: "The server's URL (env LOCKSTEP_URL).")
    var url: String?

    @Option(help: "The app id.")
    var app: String

    @Option(help: "An access token (env LOCKSTEP_TOKEN).")
    var token: String?

    @Option(help: "Resume after this change version instead of listing the objects.")
    var cv: String?

    @Option(name: .customLong("connect-timeout"), help: "Seconds to wait for the server to accept the socket (default 30).")
    var connectTimeout: Double = 30

    @Argument(help: "The bucket to follow.")
    var bucket: String

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let token = token ?? environment["LOCKSTEP_TOKEN"] else { throw ValidationError("give a token with --token or LOCKSTEP_TOKEN") }
        let socket = try StreamingSocketURL.make(base: url ?? environment["LOCKSTEP_URL"] ?? "http://127.0.0.1:8080", app: app)
        let follower = BucketFollower(bucket: bucket, resumingAfter: cv)
        let interrupt = Self.onInterrupt {
            let resume = follower.lastChangeVersion.map { " (resume with --cv \($0))" } ?? ""
            FileHandle.standardError.write(Data("\nstopped\(resume)\n".utf8))
            Foundation.exit(0)
        }
        defer { interrupt.cancel() }
        var logger = Logger(label: "lockstep-tail")
        logger.logLevel = .error
        let initialization: JSONValue = [
            "name": .string(bucket), "token": .string(token), "clientid": .string("lockstep-tail-\(Secrets.randomHex(byteCount: 4))"),
            "api": "1.1", "library": "lockstep-tail", "cmd": .string(cv.map { "cv:\($0)" } ?? BucketFollower.firstIndexPage),
        ]
        // A server (or proxy) that never answers the upgrade ends the command instead of
        // holding it for good.
        let close = try await connectWebSocket(
            url: socket, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24, autoPing: .enabled(timePeriod: .seconds(20))),
            logger: logger, upgradeLimit: .seconds(connectTimeout)
        ) { inbound, outbound in
            try await outbound.write(.text("0:init:\(initialization)"))
            for try await message in inbound.messages(maxSize: 1 << 28) {
                guard case .text(let text) = message else { continue }
                for reply in try follower.handle(text) { try await outbound.write(.text(reply)) }
            }
        }
        throw CommandError("the server closed the connection\(close.map { ": \($0.closeCode) \($0.reason ?? "")" } ?? "")")
    }

    /// Runs `handler` on SIGINT instead of dying silently.
    private static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}

/// What `lockstep tail` makes of each message of its channel: lines for a person, and the
/// requests that follow (the next index page, the changes since the index).
final class BucketFollower: Sendable {
    static let firstIndexPage = "i:1:::100"

    let bucket: String
    private let state: Mutex<(cv: String?, isIndexing: Bool)>

    /// A follower that lists the bucket first, or resumes after change version `cv`.
    init(bucket: String, resumingAfter cv: String?) {
        self.bucket = bucket
        state = Mutex((cv, cv == nil))
    }

    var lastChangeVersion: String? { state.withLock { $0.cv } }

    /// Prints what `message` says and returns the messages to send in reply.
    func handle(_ message: String) throws -> [String] {
        if message.hasPrefix("0:auth:") {
            let who = message.dropFirst("0:auth:".count)
            if let refusal = try? JSONValue(parsing: String(who)), case .object = refusal {
                throw CommandError("the server refused: \(refusal["msg"]?.stringValue ?? "\(refusal)")")
            }
            note("following \(bucket) as \(who)")
        } else if message.hasPrefix("0:i:") {
            let page = try JSONValue(parsing: String(message.dropFirst("0:i:".count)))
            for entry in page["index"]?.arrayValue ?? [] {
                say("\(Self.timestamp())  \(entry["id"]?.stringValue ?? "?")  v\(entry["v"]?.integerValue ?? 0)  \(entry["d"].map { "\($0)" } ?? "")")
            }
            if let mark = page["mark"]?.stringValue { return ["0:i:1:\(mark)::100"] }
            guard let current = page["current"]?.stringValue else { return [] }
            state.withLock { $0 = (current, false) }
            note("listed at cv \(current); following changes")
            return ["0:cv:\(current)"]
        } else if message.hasPrefix("0:c:") {
            // Live changes during the listing come again after it, from its cv.
            guard !state.withLock({ $0.isIndexing }) else { return [] }
            for change in try JSONValue(parsing: String(message.dropFirst("0:c:".count))).arrayValue ?? [] {
                say(Self.describe(change))
                if let cv = change["cv"]?.stringValue { state.withLock { $0.cv = cv } }
            }
        } else if message == "0:cv:?" {
            note("the server does not know that cv; listing the bucket instead")
            state.withLock { $0.isIndexing = true }
            return ["0:\(Self.firstIndexPage)"]
        } else if message.hasPrefix("0:?:") || message.hasPrefix("?:") {
            note("error: \(message)")
        }
        return []
    }

    /// One change as a line: `12:03:22.123  n1  v1 → v2  modified  title~"=5\t+ world"`.
    static func describe(_ change: JSONValue) -> String {
        let key = change["id"]?.stringValue ?? "?"
        if let code = change["error"]?.integerValue {
            return "\(timestamp())  \(key)  error \(code)  \(change["message"]?.stringValue ?? "")"
        }
        let end = change["ev"]?.integerValue ?? 0
        let versions = change["sv"]?.integerValue.map { "v\($0) → v\(end)" } ?? "v\(end)"
        guard change["o"]?.stringValue != "-" else { return "\(timestamp())  \(key)  \(versions)  removed" }
        let what = change["sv"] == nil ? "created" : "modified"
        let diff = change["v"].flatMap { try? ObjectDiff(json: $0) }
        let members = diff?.operations.sorted { $0.key < $1.key }.map { describe(member: $0.key, $0.value) } ?? []
        return "\(timestamp())  \(key)  \(versions)  \(what)  \(members.joined(separator: "  "))"
    }

    private static func describe(member name: String, _ operation: DiffOperation) -> String {
        switch operation {
        case .insert(let value): "+\(name)=\(value)"
        case .remove: "-\(name)"
        case .replace(let value): "\(name)=\(value)"
        case .increment(let value): "\(name)+=\(value)"
        case .text(let delta): "\(name)~\(JSONValue.string(delta))"
        case .object(let nested): "\(name):O\(nested.json)"
        case .list(let list): "\(name):L\(list.json)"
        case .listText(let delta): "\(name):dL\(JSONValue.string(delta))"
        }
    }

    private func note(_ line: String) {
        FileHandle.standardError.write(Data("\(line)\n".utf8))
    }

    /// The local time of day to the millisecond, `14:03:22.123`.
    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(now.tv_nsec / 1_000_000))
    }
}
