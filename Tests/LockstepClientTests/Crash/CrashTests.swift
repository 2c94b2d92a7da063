import Foundation
import LockstepCore
import NIOPosix
import Synchronization
import Testing
@testable import lockstep
@testable import lockstep_bench

/// The server killed with SIGKILL at random moments while a client pipelines changes, and
/// started again on the same data, ten times: every change it acknowledged is there with its
/// content, a change sent again after the restart is not applied twice, and the store opens
/// cleanly every time. Real processes, on SQLite and PostgreSQL.
@Suite("Crash: acknowledged changes survive SIGKILL")
struct CrashTests {
    @Test(.timeLimit(.minutes(3)), arguments: CrashStore.allCases)
    func everyAcknowledgedChangeSurvivesKills(_ kind: CrashStore) async throws {
        let (storeArguments, remove) = try kind.place()
        defer { Task { await remove() } }
        var server = try await ServerProcess.start(storeArguments)
        defer { server.kill() }
        let credentials = try await server.credentials()
        let token = try await server.issueToken(app: credentials.app, admin: credentials.admin, username: "crash")

        // The client's socket runs on a loop of its own: its writes must not hold up the
        // loops that the servers of other tests in this process serve their sockets on.
        let clientLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { clientLoop.shutdownGracefully { _ in } }
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: Int] = [:]  // object key → the number its change wrote
        var sent = 0
        for kill in 0..<10 {
            let acks = Acks()
            // The channel follows the feed from now on (it sends nothing, acknowledgements
            // included, until its client asks).
            let current = try #require(try await server.get("/1/\(credentials.app)/crash/index?limit=1", token: token).json?["current"]?.stringValue)
            let socket = try await BenchSocket.open(
                url: "ws://127.0.0.1:\(server.port)/sock/1/\(credentials.app)/websocket",
                initialization: #"0:init:{"name":"crash","token":"\#(token)","clientid":"pipeliner","api":"1.1","cmd":"cv:\#(current)"}"#,
                eventLoopGroup: clientLoop, onMessage: acks.take)
            // Pipeline changes, up to a window ahead of the answers (as a syncing client does);
            // kill the server somewhere in the middle.
            let pipelining = Task {
                for _ in 0..<20_000 where !Task.isCancelled {
                    while acks.unanswered >= Acks.window { try await Task.sleep(for: .milliseconds(1)) }
                    let number = acks.nextNumber()
                    try await socket.send(#"0:c:{"id":"o\#(number)","ccid":"c\#(number)","o":"M","d":{"n":\#(number),"kill":\#(kill)}}"#)
                }
            }
            // Kill it once changes are being acknowledged (a busy machine starts slowly), a little later.
            let deadline = ContinuousClock.now + .seconds(30)
            while acks.acknowledged.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...300, using: &random)))
            server.kill()
            // The socket is dead: its writes and its close may wait for a peer that is gone, so
            // they are left to end on their own.
            pipelining.cancel()
            Task { await socket.close() }
            for number in acks.acknowledged { acknowledged["o\(number)"] = number }
            sent = acks.sent

            server = try await ServerProcess.start(storeArguments, port: server.port)
            // Every acknowledged change is there, with its content.
            let held = try await server.objects("crash", app: credentials.app, token: token)
            let missing = acknowledged.filter { key, number in held[key]?["n"] != .integer(Int64(number)) }
            #expect(missing.isEmpty, "kill \(kill): \(missing.count) acknowledged changes missing, such as \(missing.first.map { "\($0)" } ?? "")")
            // Sent again, an acknowledged change is refused as a duplicate, not applied twice.
            if let (key, number) = acknowledged.randomElement(using: &random) {
                let repeated = try await server.post(
                    "/1/\(credentials.app)/crash/changes?clientid=pipeliner", token: token,
                    body: [["id": .string(key), "ccid": .string("c\(number)"), "o": "M", "d": ["n": -1]]])
                #expect(repeated.json?[0]?["error"] == 409, "kill \(kill): \(repeated)")
                #expect(try await server.get("/1/\(credentials.app)/crash/i/\(key)", token: token).json?["n"] == .integer(Int64(number)))
            }
        }
        #expect(acknowledged.count > 10, "the kills came after some changes were acknowledged (\(acknowledged.count) of \(sent) sent)")
    }
}

/// What a pipelining client sent and what the server answered.
private final class Acks: Sendable {
    /// Changes sent ahead of their answers: the server's own per-connection bound.
    static let window = 256
    private let state = Mutex<(first: Int, next: Int, answered: Int, acknowledged: [Int], lastCV: String?)>((0, 0, 0, [], nil))
    private static let start = Mutex(0)

    init() {
        let first = Self.start.withLock { start in
            defer { start += 100_000 }
            return start
        }
        state.withLock { $0.first = first; $0.next = first }
    }

    /// Sent, and not answered yet.
    var unanswered: Int { state.withLock { $0.next - $0.first - $0.answered } }

    func nextNumber() -> Int {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    var sent: Int { state.withLock { $0.next } }
    var acknowledged: [Int] { state.withLock { $0.acknowledged } }

    /// Notes the acknowledgements in a `0:c:[…]` message.
    @Sendable func take(_ message: String) {
        guard message.hasPrefix("0:c:"), let changes = try? JSONValue(parsing: String(message.dropFirst(4))).arrayValue else { return }
        let numbers = changes.compactMap { change -> Int? in
            guard change["error"] == nil, let ccid = change["ccids"]?[0]?.stringValue else { return nil }
            return Int(ccid.dropFirst())
        }
        // Once, in feed order: each change's cv is later than every one before it.
        let cvs = changes.compactMap { $0["cv"]?.stringValue }
        let outOfOrder: (String, String)? = state.withLock { state in
            state.answered += changes.count
            state.acknowledged += numbers
            for cv in cvs {
                if let last = state.lastCV, cv <= last { return (cv, last) }
                state.lastCV = cv
            }
            return nil
        }
        if let (cv, last) = outOfOrder { Issue.record("cv \(cv) came after cv \(last): a change twice or out of feed order") }
    }
}
