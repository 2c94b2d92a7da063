public import LockstepCore
import Synchronization

/// Exchanges with the server's clock over the client's streaming socket while it is open, and
/// through `fallback` (normally ``HTTPClockExchangeTransport``) while it is not.
///
/// `t:<t1>` → `t:<t1>:<t2>:<t3>`, a connection-level message beside the heartbeat. Over a
/// socket that is already open an exchange costs one small frame each way: no request to
/// route, no connection to open, and its stamps sit close to the wire: `t1` is read just
/// before the frame is written (straight to the socket, not behind the session's queue of
/// outgoing changes), `t4` as the answer comes off the socket, before the client looks at
/// anything else. The socket's reader takes every frame off the socket as it arrives and
/// queues the others for the session, so an answer is stamped at once even
/// while the session is writing earlier frames to the store. Only when that queue is full does
/// the reader wait: then the wait counts as delay, which widens the bar and makes the sample
/// count for less, but cannot move the truth outside the bar.
///
/// ``LockstepClient`` wires one up for its ``LockstepClient/clock``: its socket session
/// attaches while connected and hands every `t:` frame back.
public final class SocketClockExchangeTransport: ClockExchangeTransport {
    /// Where exchanges go while no socket is attached.
    public let fallback: any ClockExchangeTransport
    /// How long to wait for the server's answer over the socket.
    public let timeout: Duration
    private let state = Mutex(State())

    private struct State {
        var socket: Socket?
        var nextSocketID = 0
        /// Exchanges waiting for their answer, by `t1`.
        var pending: [Int64: Pending] = [:]
    }

    private struct Socket {
        let id: Int
        let send: @Sendable (String) async throws -> Void
    }

    private struct Pending {
        let timeSource: any MonotonicTimeSource
        let answer: AsyncThrowingStream<ClockSample, any Error>.Continuation
    }

    /// A transport that uses `fallback` until a socket attaches, and gives up on an answer
    /// over the socket after `timeout`.
    public init(fallback: any ClockExchangeTransport, timeout: Duration = .seconds(10)) {
        self.fallback = fallback
        self.timeout = timeout
    }

    /// Whether exchanges go over a socket now.
    public var isSocketAttached: Bool {
        state.withLock { $0.socket != nil }
    }

    /// Only while the exchanges go through the fallback: the socket is open before they start.
    public var mayOpenConnection: Bool {
        !isSocketAttached && fallback.mayOpenConnection
    }

    /// An exchange through ``fallback``: the socket's exchanges go through
    /// ``sample(stampingWith:)``, which stamps them at the socket.
    public func exchange(t1: Int64) async throws -> ServerStamps {
        // Only reached through a caller that stamps for itself: the fallback can do that.
        try await fallback.exchange(t1: t1)
    }

    /// One exchange over the socket if one is attached, stamped as close to the wire as the
    /// client can; otherwise through ``fallback``.
    ///
    /// Throws when the socket closes before the answer, when no answer comes within
    /// ``timeout``, and what the fallback threw.
    public func sample(stampingWith timeSource: any MonotonicTimeSource) async throws -> ClockSample {
        guard let socket = state.withLock({ $0.socket }) else {
            return try await fallback.sample(stampingWith: timeSource)
        }
        let (answers, answer) = AsyncThrowingStream.makeStream(of: ClockSample.self, bufferingPolicy: .bufferingNewest(1))
        let t1 = timeSource.now()
        let registered = state.withLock { state in
            guard state.socket?.id == socket.id, state.pending[t1] == nil else { return false }
            state.pending[t1] = Pending(timeSource: timeSource, answer: answer)
            return true
        }
        // The socket closed meanwhile (or, hardly ever, another exchange has this t1).
        guard registered else { return try await fallback.sample(stampingWith: timeSource) }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: t1) } }
        try await socket.send("t:\(t1)")
        return try await withThrowingTaskGroup(of: ClockSample.self) { group in
            group.addTask {
                for try await sample in answers { return sample }
                throw CancellationError()
            }
            group.addTask { [timeout] in
                try await Task.sleep(for: timeout)
                throw SocketClockTimeout(timeout: timeout)
            }
            defer { group.cancelAll() }
            guard let sample = try await group.next() else { throw CancellationError() }
            return sample
        }
    }

    // MARK: The socket's side

    /// Routes exchanges over `send` (which writes one text frame) from now until ``detach(_:)``
    /// with the returned id.
    package func attach(send: @escaping @Sendable (String) async throws -> Void) -> Int {
        state.withLock { state in
            state.nextSocketID += 1
            state.socket = Socket(id: state.nextSocketID, send: send)
            return state.nextSocketID
        }
    }

    /// The socket `id` closed: exchanges waiting on it fail (the round keeps what it has), and
    /// later ones take the fallback.
    package func detach(_ id: Int) {
        let orphans = state.withLock { state -> [Pending] in
            guard state.socket?.id == id else { return [] }
            state.socket = nil
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for orphan in orphans { orphan.answer.finish(throwing: SocketClosed()) }
    }

    /// Takes a frame the socket just received: `true` if it was the answer to a clock exchange
    /// (consumed here), `false` for any other frame. Call it first thing on arrival.
    package func receive(_ text: String) -> Bool {
        guard text.utf8.starts(with: "t:".utf8) else { return false }
        let fields = text.utf8.dropFirst(2).split(separator: UInt8(ascii: ":")).map { Int64(Substring($0)) }
        guard fields.count == 3, let t1 = fields[0], let t2 = fields[1], let t3 = fields[2],
              let pending = state.withLock({ $0.pending.removeValue(forKey: t1) })
        else { return true } // an answer nobody waits for any more (timed out), or garbled
        let t4 = pending.timeSource.now()
        pending.answer.yield(ClockSample(t1: t1, t2: t2, t3: t3, t4: t4))
        return true
    }
}

/// The socket closed while an exchange waited for its answer.
struct SocketClosed: Error, CustomStringConvertible {
    var description: String { "the socket closed during a clock exchange" }
}

/// The server did not answer a clock exchange in time.
struct SocketClockTimeout: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no answer to a clock exchange over the socket within \(timeout)" }
}
