import Foundation
import HTTPTypes
import Hummingbird
import LockstepCore
@testable import LockstepServer
import NIOCore
import Synchronization

/// An HTTP server on 127.0.0.1 that takes webhook requests, records each, and answers as the
/// test says: the far end of the in-process webhook tests. (The process tests verify the
/// signatures with the independent Python library; these check behaviour.)
final class WebhookTestReceiver: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: [UInt8]

        var json: JSONValue? { try? JSONValue(parsing: body) }
        /// The event ids the body carries, in order.
        var eventIDs: [String] { json?["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
        var webhookID: String { headers["webhook-id"] ?? "" }
    }

    /// What the receiver answers: a status, headers, a body, after a delay.
    struct Answer: Sendable {
        var status = 200
        var headers: [(String, String)] = []
        var body = "ok"
        var delay: Duration = .zero
    }

    let port: Int
    private let box: ReceiverBox
    private let running: Task<Void, any Error>

    var url: String { "http://127.0.0.1:\(port)/hook" }

    private init(port: Int, box: ReceiverBox, running: Task<Void, any Error>) {
        self.port = port
        self.box = box
        self.running = running
    }

    static func start(_ answer: @escaping @Sendable (Received) -> Answer = { _ in Answer() }) async throws -> WebhookTestReceiver {
        let box = ReceiverBox(answer: answer)
        let router = Router()
        router.post("/**") { request, context -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024 * 1024)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let received = Received(path: request.uri.path, headers: headers, body: Array(body.readableBytesView))
            box.received.withLock { $0.append(received) }
            let answer = box.answer.withLock { $0 }(received)
            if answer.delay > .zero { try await Task.sleep(for: answer.delay) }
            var fields = HTTPFields()
            for (name, value) in answer.headers { fields[HTTPField.Name(name)!] = value }
            return Response(status: .init(code: answer.status), headers: fields, body: .init(byteBuffer: ByteBuffer(string: answer.body)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))) { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw TestServerError.didNotStart
        }
        return WebhookTestReceiver(port: port, box: box, running: running)
    }

    /// Every request so far, in the order they arrived.
    var requests: [Received] { box.received.withLock { $0 } }

    /// Answers from now on as `answer` says.
    func answer(with answer: @escaping @Sendable (Received) -> Answer) {
        box.answer.withLock { $0 = answer }
    }

    /// Waits until `condition` holds of the requests, up to `limit`.
    func wait(for limit: Duration = .seconds(20), until condition: ([Received]) -> Bool) async throws -> [Received] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let seen = requests
            if condition(seen) { return seen }
            try await Task.sleep(for: .milliseconds(20))
        }
        return requests
    }

    func stop() async {
        running.cancel()
        _ = await running.result
    }
}

private final class ReceiverBox: Sendable {
    let received = Mutex<[WebhookTestReceiver.Received]>([])
    let answer: Mutex<@Sendable (WebhookTestReceiver.Received) -> WebhookTestReceiver.Answer>

    init(answer: @escaping @Sendable (WebhookTestReceiver.Received) -> WebhookTestReceiver.Answer) {
        self.answer = Mutex(answer)
    }
}
