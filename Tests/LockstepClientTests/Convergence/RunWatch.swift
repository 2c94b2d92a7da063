import Foundation
import Synchronization

/// What a convergence run is doing now and since when, what it did before (its transcript),
/// and the processes and directories it owns: so that a run stuck in an await becomes a failure
/// that names its seed, step and wait, instead of a test process that sits idle until CI's cap.
///
/// Twice a full test run hung in the SQLite checker's first seed, a `lockstep serve` child and
/// the test process both idle, no timeout firing. Most of a run's awaits have no bound of their
/// own (a sync session's stop waits for its task to end, a client's close for its sync, a
/// request for its answer); ``watched(by:_:)`` bounds each phase of a run in one place.
final class RunWatch: Sendable {
    /// A step's limit: a step waits at most 20 + 10 s for a server to exit and 60 s for it to
    /// answer again (a restart), or 30 s for the peers (a meeting); everything else takes
    /// milliseconds. Twice the 60 s a normal run never approaches, on a loaded 2-core machine.
    static let stepLimit: Duration = .seconds(120)
    /// Starting the cluster: up to two servers, each given 60 s to answer, credentials, a
    /// token and the peers' key.
    static let startLimit: Duration = .seconds(180)
    /// One device becoming idle: ``SyncSession/waitUntilIdle(timeout:)`` is given 90 s of it.
    static let idleLimit: Duration = .seconds(120)
    /// Every other phase of the end (bringing devices online, reading the feed, closing a
    /// client, stopping a server, removing the data): milliseconds when nothing is wrong.
    static let endPhaseLimit: Duration = .seconds(90)
    /// How long the thread of last resort waits past a phase's limit for the watching task to
    /// report it, before it decides that no task can run and ends the process.
    static let blockedPoolGrace: Duration = .seconds(60)

    /// A whole seed's limit: a seed of the default 60 steps takes 5–30 s, and whatever of it
    /// is slow, bounded step by step, fails it long before; this catches a run that is slow
    /// everywhere, and names the seed before the test's time limit (10 minutes) ends the test.
    static func seedLimit(steps: Int) -> Duration { .seconds(240 + 4 * steps) }

    private struct Phase {
        var name: String
        var started: ContinuousClock.Instant
        var limit: Duration
        /// What the phase awaits now, when it said.
        var waitingFor: String?
    }

    private struct State {
        var phase: Phase?
        var transcript: [String] = []
        var processes: [ToolProcess] = []
        var directories: [URL] = []
        var finished = false
    }

    /// Names the run in messages: the backend and seed.
    let name: String
    let started = ContinuousClock.now
    let limit: Duration
    private let state = Mutex(State())

    init(_ name: String, limit: Duration) {
        self.name = name
        self.limit = limit
    }

    /// A new phase (a step, a part of the end), with a clock of its own.
    func begin(_ phase: String, within limit: Duration) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.phase = Phase(name: phase, started: now, limit: limit)
            state.transcript.append("\(offset(now)) \(phase)")
        }
    }

    /// What the current phase awaits now; named when it takes too long.
    func waiting(for what: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.phase?.waitingFor = what
            state.transcript.append("\(offset(now))   waiting for \(what)")
        }
    }

    /// A process the run started: killed if the run is abandoned, its output in the report.
    func adopt(_ process: ToolProcess) {
        state.withLock { $0.processes.append(process) }
    }

    /// A directory the run made: removed if the run is abandoned.
    func adopt(directory: URL) {
        state.withLock { $0.directories.append(directory) }
    }

    /// The failure of a run that went past its limit or its current phase's (by more than
    /// `grace`), if it did.
    func overdue(by grace: Duration = .zero) -> RunStuck? {
        let now = ContinuousClock.now
        let late: String? = state.withLock { state in
            if now - started > limit + grace { return "the run has taken \(format(now - started)), past its limit of \(format(limit))" }
            guard let phase = state.phase, now - phase.started > phase.limit + grace else { return nil }
            return "\(phase.name) has taken \(format(now - phase.started)), past its limit of \(format(phase.limit))"
        }
        return late.map(stuck)
    }

    /// The report of a run that stops being waited for: why, where it was, what it did.
    func stuck(_ why: String) -> RunStuck {
        let (phase, transcript, processes) = state.withLock { ($0.phase, $0.transcript, $0.processes) }
        let waiting = phase.flatMap(\.waitingFor).map { ", waiting for \($0)" } ?? ""
        let outputs = processes.map(\.transcript).joined(separator: "\n")
        return RunStuck(description: """
            \(name) is stuck: \(why)\(phase.map { " (in \($0.name)\(waiting))" } ?? "")
            what the run did (seconds since its start):
            \(transcript.joined(separator: "\n"))
            what its processes printed:
            \(outputs)
            """)
    }

    /// Whether the run has ended, or been given up.
    var isFinished: Bool { state.withLock { $0.finished } }

    func finish() {
        state.withLock { $0.finished = true }
    }

    /// Kills what an abandoned run started and removes what it made: nobody will stop them.
    func abandon() {
        let (processes, directories) = state.withLock { ($0.processes, $0.directories) }
        for process in processes { process.kill() }
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
    }

    private func offset(_ instant: ContinuousClock.Instant) -> String {
        let seconds = Double((instant - started).components.seconds) + Double((instant - started).components.attoseconds) / 1e18
        return "+" + String(format: "%7.2f", seconds)
    }

    private func format(_ duration: Duration) -> String {
        duration.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
    }
}

/// A convergence run given up: it went past a limit while awaiting something.
struct RunStuck: Error, CustomStringConvertible {
    let description: String
}

/// Runs `operation` in a task of its own, and returns what it returns; but throws ``RunStuck``
/// as soon as `watch` finds the run past a limit (or the caller is cancelled, as by the test's
/// time limit), without waiting for the operation: the await it is stuck in may never notice
/// its cancellation, and a test that awaited it would hang with it.
///
/// The watching is a task, and a task cannot run when every thread of the cooperative pool
/// (two on CI's machines) is blocked; a thread of its own then ends the process with the report.
func watched<T: Sendable>(by watch: RunWatch, _ operation: sending @escaping () async throws -> T) async throws -> T {
    let outcome = FirstOutcome<T>()
    let work = Task {
        do {
            outcome.settle(.success(try await operation()))
        } catch {
            outcome.settle(.failure(error))
        }
    }
    let watchdog = Task {
        while !Task.isCancelled {
            if let stuck = watch.overdue() { return outcome.settle(.failure(stuck)) }
            try? await Task.sleep(for: .seconds(1))
        }
    }
    Thread.detachNewThread {
        while !watch.isFinished {
            Thread.sleep(forTimeInterval: 5)
            // The watchdog task had the grace to report the run; it did not, so it cannot run.
            guard !watch.isFinished, let stuck = watch.overdue(by: RunWatch.blockedPoolGrace) else { continue }
            FileHandle.standardError.write(Data("\(stuck)\nno task ran to report this: the cooperative pool is blocked\n".utf8))
            fatalError("\(watch.name) is stuck and no task can run (see the report above)")
        }
    }
    let result = await withTaskCancellationHandler {
        await outcome.value()
    } onCancel: {
        outcome.settle(.failure(watch.stuck("the test was cancelled (its time limit?)")))
    }
    watchdog.cancel()
    watch.finish()
    if case .failure(let error) = result, error is RunStuck {
        work.cancel()
        watch.abandon()
    }
    return try result.get()
}

/// The first of a run's outcome and its watchdog's verdict, and the one task waiting for it.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<Result<T, any Error>, Never>?
    }

    private let state = Mutex(State())

    /// Records `result` unless one came first, and hands it to the waiter.
    func settle(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func value() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state -> Result<T, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
