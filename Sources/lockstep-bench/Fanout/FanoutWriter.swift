import CommandLineSupport
import Foundation
import Synchronization

/// The one writer of a fan-out run: it hands each change, stamped with the wall clock, to its
/// socket as its turn comes (pipelined: it never waits for an answer before the next), and
/// counts the server's answers as they come back.
protocol FanoutWriter: Sendable {
    /// Sends change number `number` stamped `sentAt` (unix nanoseconds).
    func send(_ number: Int, sentAt: Int64) async throws
    var answers: WriterAnswers { get }
    func close() async
}

/// The answers a writer got: how many writes were taken, how many refused, and why.
final class WriterAnswers: Sendable {
    private struct State {
        var accepted = 0
        var refusals: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func accepted(_ count: Int = 1) {
        state.withLock { $0.accepted += count }
    }

    func refused(_ reason: String) {
        state.withLock { $0.refusals[reason, default: 0] += 1 }
    }

    var acceptedCount: Int { state.withLock { $0.accepted } }
    var refusals: [String: Int] { state.withLock { $0.refusals } }
    var refusedCount: Int { refusals.values.reduce(0, +) }
    var answered: Int { acceptedCount + refusedCount }

    /// Waits until `writes` answers came, or until `deadline`.
    func wait(for writes: Int, until deadline: ContinuousClock.Instant) async throws {
        while answered < writes && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Sends `writes` changes through `writer` at `perSecond`, each stamped as it goes; a writer
/// that fell behind sends at once until it has caught up. Returns when the first was sent
/// (unix nanoseconds).
enum PacedWrites {
    static func run(_ writer: any FanoutWriter, writes: Int, perSecond: Double) async throws -> Int64 {
        let started = ContinuousClock.now
        let firstSent = WallClock.now()
        for number in 0..<writes {
            try await Task.sleep(until: started + .seconds(Double(number) / perSecond), clock: .continuous)
            try await writer.send(number, sentAt: WallClock.now())
        }
        return firstSent
    }
}
