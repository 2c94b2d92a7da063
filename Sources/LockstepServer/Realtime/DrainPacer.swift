import NIOCore
import Synchronization

/// Drains the outboxes of one event loop that live changes filled, at most once every
/// ``linger``, so that under load a socket takes several changes in one write.
///
/// A write to a socket costs about the same whatever it carries: a system call, a TCP segment
/// through the kernel's stack (on loopback the reader's half too) and a wakeup of the reader.
/// At 500 changes a second to 100 subscribers, a write per change per socket was two thirds of
/// the server's CPU. So an event loop that drained less than ``linger`` ago leaves the next
/// drain to a timer, at that drain's time plus ``linger``, and every outbox filled meanwhile
/// joins it. One that has not drained for as long drains at once: changes at a quiet pace wait
/// for nothing, and a busy one's wait at most ``linger``.
///
/// Only a change that goes to many of the loop's sockets (``minimumFanOut``) waits. What
/// pacing saves is a write for each socket it holds, worth a wait only when there are many;
/// and a client that sends its next change once the last is answered, with another device or
/// two listening, would otherwise have every answer held, and its pace cut to one change a
/// linger (`bench peers`' edit latency went from 1.7 to 5.0 ms).
final class DrainPacer: Sendable {
    let loop: any EventLoop
    /// ``Limits/announcementLingerSeconds``.
    let linger: TimeAmount
    /// The fewest of the loop's sockets a delivery fills for it to be paced.
    let minimumFanOut: Int

    private struct State {
        var lastDrain = NIODeadline.uptimeNanoseconds(0)
        /// The outboxes waiting for the timer; `nil` when none is set.
        var waiting: [SocketOutbox]?
    }

    private let state = Mutex(State())

    fileprivate init(loop: any EventLoop, linger: TimeAmount, minimumFanOut: Int) {
        self.loop = loop
        self.linger = linger
        self.minimumFanOut = minimumFanOut
    }

    /// Has the event loop drain `outboxes` (those one delivery filled) now, or with the next
    /// timed drain.
    func drain(_ outboxes: [SocketOutbox]) {
        guard linger > .zero, outboxes.count >= minimumFanOut else { return DrainBatch.onLoop(loop) { Self.drain(outboxes) } }
        enum Plan { case now, joined, timer(at: NIODeadline) }
        let now = NIODeadline.now()
        let plan: Plan = state.withLock { state in
            if state.waiting != nil {
                state.waiting?.append(contentsOf: outboxes)
                return .joined
            }
            if now - state.lastDrain >= linger {
                state.lastDrain = now
                return .now
            }
            state.waiting = outboxes
            return .timer(at: state.lastDrain + linger)
        }
        switch plan {
        case .joined:
            return
        case .now:
            // At once when the hub told the loop's subscribers on the loop itself.
            DrainBatch.onLoop(loop) { Self.drain(outboxes) }
        case .timer(let deadline):
            loop.scheduleTask(deadline: deadline) { self.drainTheWaiting() }
        }
    }

    private func drainTheWaiting() {
        let outboxes = state.withLock { state in
            state.lastDrain = .now()
            defer { state.waiting = nil }
            return state.waiting ?? []
        }
        Self.drain(outboxes)
    }

    private static func drain(_ outboxes: [SocketOutbox]) {
        for outbox in outboxes { outbox.drain() }
    }
}

/// The ``DrainPacer``s of one server: one for each event loop its sockets are on.
final class DrainPacers: Sendable {
    let linger: TimeAmount
    let minimumFanOut: Int
    private let byLoop: PerEventLoop<DrainPacer>

    /// - Parameter minimumFanOut: see ``DrainPacer/minimumFanOut``; 16 sockets of a loop by
    ///   default, so that at 500 changes a second to 100 subscribers on two loops every
    ///   delivery is paced, and a user's few devices never are.
    init(lingerSeconds: Double, minimumFanOut: Int = 16) {
        let linger = TimeAmount.nanoseconds(Int64(lingerSeconds * 1e9))
        self.linger = linger
        self.minimumFanOut = minimumFanOut
        byLoop = PerEventLoop { loop in DrainPacer(loop: loop, linger: linger, minimumFanOut: minimumFanOut) }
    }

    func pacer(for loop: any EventLoop) -> DrainPacer {
        byLoop.value(for: loop)
    }
}
