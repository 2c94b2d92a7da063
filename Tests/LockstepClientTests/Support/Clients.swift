import Foundation
import LockstepClient
import LockstepCore
import Synchronization
import Testing

/// A socket URL nothing listens on: connecting is refused at once, so clients poll over HTTP.
let refusedSocketURL = URL(string: "ws://127.0.0.1:9/sock/1/none/websocket")!

/// Edit times the test decides.
final class ManualEditTimes: EditTimeSource {
    let now = Mutex<Int64?>(nil)
    init(_ time: Int64? = nil) { now.withLock { $0 = time } }
    func set(_ time: Int64?) { now.withLock { $0 = time } }
    func serverTimeNow() -> Int64? { now.withLock { $0 } }
}

/// How a test's clients reach the server.
enum Transport: Sendable, CaseIterable {
    /// The streaming WebSocket (`/sock/1/<app>/websocket`).
    case socket
    /// HTTP only: the socket URL is refused, as behind a proxy that blocks upgrades.
    case polling
}

/// A fresh store directory, deleted by the caller with `removeStore`, or else when the test
/// process exits (a client made with the default store has no caller that knows its directory).
func temporaryStore() -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-client-\(UUID().uuidString)")
    storesToRemoveAtExit.withLock { stores in
        if stores.isEmpty { atexit { for store in storesToRemoveAtExit.withLock({ $0 }) { removeStore(store) } } }
        stores.append(directory)
    }
    return directory
}

private let storesToRemoveAtExit = Mutex<[URL]>([])

func removeStore(_ directory: URL) {
    try? FileManager.default.removeItem(at: directory)
}

extension TestServer {
    /// A client of this server in `store`, syncing over `transport`, with quick retries.
    func client(
        store: URL = temporaryStore(), token: String, transport: Transport = .polling, editTimes: any EditTimeSource = NoEditTimes(),
        indexPageSize: Int = 1000
    ) throws -> LockstepClient {
        var configuration = LockstepClient.Configuration(
            editTimes: editTimes, heartbeatInterval: .seconds(2), backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)),
            pollingWindow: .seconds(3), indexPageSize: indexPageSize)
        configuration.logger.logLevel = .warning
        if transport == .polling { configuration.socketURL = refusedSocketURL }
        return try LockstepClient(storeDirectory: store, server: baseURL, app: appID, token: token, configuration: configuration)
    }
}

extension TestServer {
    /// A client in `store`, streaming, that has synced `bucket` (walked it, caught up) and goes on syncing.
    func syncedClient(store: URL, token: String, bucket: String) async throws -> LockstepClient {
        let client = try client(store: store, token: token, transport: .socket)
        _ = try client.bucket(bucket)
        await client.sync.start()
        try await client.sync.waitUntilIdle()
        return client
    }
}

/// Waits until `condition` holds, checking every 20 ms; fails the wait after `timeout`.
func eventually(
    _ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw LockstepClientError.timedOut(what) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// The next event of `events` (bucket events, lost spaces…) that satisfies `matching`, or a
/// timeout error.
func nextEvent<Event: Sendable>(
    _ events: AsyncStream<Event>, timeout: Duration = .seconds(20), matching: @Sendable @escaping (Event) -> Bool = { _ in true }
) async throws -> Event {
    try await withThrowingTaskGroup(of: Event?.self) { group in
        group.addTask {
            for await event in events where matching(event) { return event }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let event = try await group.next() ?? nil else { throw LockstepClientError.timedOut("an event") }
        return event
    }
}

/// Edit times from a clock that only goes forward: each write is dated after the one before,
/// as a calibrated ``ServerClock`` dates them.
final class RisingEditTimes: EditTimeSource {
    private let last = Mutex<Int64>(1_000)
    func serverTimeNow() -> Int64? { last.withLock { $0 += 1_000; return $0 } }
}

/// Runs `body` and records what it throws as an issue. Inside `propertyCheck` a thrown error
/// would otherwise be dropped: it counts recorded issues only, and ignores what its body throws.
func recordingThrows(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
    do {
        try await body()
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
    }
}
