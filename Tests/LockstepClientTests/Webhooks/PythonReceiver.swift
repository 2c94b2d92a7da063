import AsyncHTTPClient
import ChildProcesses
import Foundation
import LockstepCore
import NIOCore
import Testing

/// `webhook_receiver.py` in a process of its own on 127.0.0.1: every request it takes is
/// verified with the `standardwebhooks` package from PyPI, an implementation of the
/// specification that is not ours.
final class PythonReceiver: Sendable {
    static let script = ExternalPaths.repositoryRoot.appendingPathComponent("Tests/LockstepClientTests/Webhooks/webhook_receiver.py")
    static let isCI = ProcessInfo.processInfo.environment["CI"] != nil

    /// Whether python3 (as the PATH finds it, pip's) has `standardwebhooks`.
    static let isInstalled: Bool = {
        guard let process = try? ChildProcess.spawn("/usr/bin/env", arguments: ["python3", "-c", "import standardwebhooks"], output: .discarded)
        else { return false }
        return process.waitUntilExit().terminationStatus == 0
    }()

    /// Cancels the test when the package is missing, or fails it under CI.
    static func require() throws {
        guard !isInstalled else { return }
        let reason = "the webhook process tests need python3 with standardwebhooks: pip install standardwebhooks (as .ci/run does)"
        if isCI { throw PythonReceiverError.missing(reason) }
        try Test.cancel(Comment(rawValue: reason))
    }

    let tool: ToolProcess
    let port: Int

    var url: String { "http://127.0.0.1:\(port)/hook" }

    private init(tool: ToolProcess, port: Int) {
        self.tool = tool
        self.port = port
    }

    static func start() async throws -> PythonReceiver {
        try require()
        let tool = try ToolProcess.launch(at: URL(fileURLWithPath: "/usr/bin/env"), name: "receiver", arguments: ["python3", script.path])
        guard let line = await tool.next(startingWith: #"{"listening""#, within: .seconds(30)),
            let port = try? JSONValue(parsing: line)["listening"]?.integerValue
        else {
            tool.kill()
            throw PythonReceiverError.didNotStart(tool.transcript)
        }
        return PythonReceiver(tool: tool, port: Int(port))
    }

    /// Sets what it verifies with and how it answers (see the script).
    func control(_ settings: JSONObject) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/__control__")
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: JSONValue.object(settings).jsonBytes))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1024)
        guard response.status.code == 204 else { throw PythonReceiverError.control(Int(response.status.code)) }
    }

    /// Every answered request so far, in the order answered.
    var answered: [JSONValue] {
        tool.lines(startingWith: #"{""#).compactMap { try? JSONValue(parsing: $0) }.filter { $0["status"] != nil }
    }

    /// The most requests it was answering at once.
    var mostAtOnce: Int64 {
        tool.lines(startingWith: #"{"arrived""#).compactMap { try? JSONValue(parsing: $0)["inflight"]?.integerValue }.max() ?? 0
    }

    /// The requests it accepted (2xx), each delivery once (a delivery sent again after a crash
    /// comes with the same id), in the order first accepted.
    var accepted: [JSONValue] {
        var seen = Set<String>()
        return answered.filter { record in
            guard let status = record["status"]?.integerValue, (200..<300).contains(status), let id = record["id"]?.stringValue else { return false }
            return seen.insert(id).inserted
        }
    }

    /// The events it accepted, each once, in order, with their data.
    var acceptedEvents: [(id: String, data: JSONValue)] {
        var seen = Set<String>()
        var events: [(String, JSONValue)] = []
        for record in accepted {
            for (id, data) in zip(record["events"]?.arrayValue ?? [], record["data"]?.arrayValue ?? []) {
                guard let id = id.stringValue, seen.insert(id).inserted else { continue }
                events.append((id, data))
            }
        }
        return events
    }

    /// Waits until `condition` holds, up to `limit`; answers whether it did.
    func wait(for limit: Duration, until condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    func stop() {
        tool.kill()
    }
}

enum PythonReceiverError: Error {
    case missing(String)
    case didNotStart(String)
    case control(Int)
}

/// An event's position, from its id (`evt_<sequence>.<step>`), for order.
struct EventPosition: Comparable {
    let sequence: Int64
    let step: Int64

    init?(_ id: String) {
        let parts = id.dropFirst(4).split(separator: ".")
        guard id.hasPrefix("evt_"), parts.count == 2, let sequence = Int64(parts[0]), let step = Int64(parts[1]) else { return nil }
        self.sequence = sequence
        self.step = step
    }

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.sequence, lhs.step) < (rhs.sequence, rhs.step) }
}
