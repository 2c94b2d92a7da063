import ChildProcesses
import CommandLineSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The subscriber processes of one fan-out run, each `lockstep-bench fanout-subscribers` of
/// this very binary holding its share of the subscriptions: started, waited for, told when
/// writing ended, and read for their summaries.
final class SubscriberProcesses: Sendable {
    private let children: [Child]

    /// Starts `processes` children that share `subscriptions` between them, each run with
    /// `arguments` and its own `--count` and `--first`.
    init(processes: Int, subscriptions: Int, arguments: [String]) throws {
        var children: [Child] = []
        var first = 0
        for index in 0..<processes {
            let count = subscriptions / processes + (index < subscriptions % processes ? 1 : 0)
            guard count > 0 else { continue }
            let process = try ChildProcess.spawn(
                Bundle.main.executableURL!.path,
                arguments: ["fanout-subscribers"] + arguments + ["--count", String(count), "--first", String(first)], output: .captured)
            let child = Child(process: process)
            ChildOutputLines.follow(process) { child.read($0) }
            children.append(child)
            first += count
        }
        self.children = children
    }

    var pids: [Int32] { children.map(\.process.pid) }

    /// Waits until every child has opened all of its subscriptions.
    func waitUntilReady(timeout: Duration) async throws {
        try await waitForAll(timeout: timeout, what: "opened its subscriptions") { $0.ready }
    }

    /// Tells every child that no more writes come: each reports once nothing more arrives.
    func signalEndOfWriting() {
        for child in children { child.process.send(SIGUSR1) }
    }

    /// Every child's summary, once each has printed it.
    func summaries(timeout: Duration) async throws -> [SubscriberSummary] {
        try await waitForAll(timeout: timeout, what: "reported") { $0.summary != nil }
        return children.compactMap { child in child.state.withLock { $0.summary } }
    }

    /// Ends the children: their subscriptions close with them.
    func stop() {
        for child in children { child.process.send(SIGKILL) }
    }

    private func waitForAll(timeout: Duration, what: String, _ condition: (Child.State) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let states = children.map { $0.state.withLock { $0 } }
            if states.allSatisfy(condition) { return }
            for (child, state) in zip(children, states) where !condition(state) {
                if let status = child.process.exitStatus {
                    throw CommandError("a subscriber process ended (\(status)) before it \(what):\n\(state.lines.joined(separator: "\n"))")
                }
            }
            guard ContinuousClock.now < deadline else {
                throw CommandError("\(states.filter { !condition($0) }.count) subscriber processes had not \(what) after \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private final class Child: Sendable {
        struct State {
            var ready = false
            var summary: SubscriberSummary?
            /// What it printed besides: an error, most likely.
            var lines: [String] = []
        }

        let process: ChildProcess
        let state = Mutex(State())

        init(process: ChildProcess) {
            self.process = process
        }

        func read(_ line: String) {
            if line.hasPrefix(#"{"ready":"#) {
                state.withLock { $0.ready = true }
            } else if line.hasPrefix("{"), let summary = try? JSONDecoder().decode(SubscriberSummary.self, from: Data(line.utf8)) {
                state.withLock { $0.summary = summary }
            } else {
                FileHandle.standardError.write(Data("subscriber process \(process.pid): \(line)\n".utf8))
                state.withLock { if $0.lines.count < 40 { $0.lines.append(line) } }
            }
        }
    }
}
