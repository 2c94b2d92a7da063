import Foundation
import Testing

/// ``watched(by:_:)``: a convergence run stuck in an await fails, naming where, instead of hanging.
@Suite("Run watch", .timeLimit(.minutes(1)))
struct RunWatchTests {
    @Test("a run that ends in time gives its answer and its errors")
    func answers() async throws {
        let watch = RunWatch("a quick run", limit: .seconds(60))
        #expect(try await watched(by: watch) { 42 } == 42)
        await #expect(throws: ConvergenceError.self) {
            try await watched(by: RunWatch("a failing run", limit: .seconds(60))) { () async throws -> Int in
                throw ConvergenceError.unexpectedAnswer("no")
            }
        }
        #expect(watch.isFinished)
    }

    @Test("a phase past its limit fails at once, naming the run, the phase and its wait, though the await ignores cancellation")
    func stuckPhase() async throws {
        let watch = RunWatch("convergence sqlite seed 7", limit: .seconds(60))
        let started = ContinuousClock.now
        let error = await #expect(throws: RunStuck.self) {
            try await watched(by: watch) {
                watch.begin("step #3 d1 offline", within: .milliseconds(300))
                watch.waiting(for: "device 1's sync to stop")
                await Self.ignoringCancellation(for: 30)
                return 0
            }
        }
        // The await ends after 30 s; the watch gives up on it after 0.3 s, checking every second
        // (well within 20 s, however loaded the machine).
        #expect(ContinuousClock.now - started < .seconds(20))
        let report = try #require(error).description
        #expect(report.contains("convergence sqlite seed 7 is stuck"))
        #expect(report.contains("step #3 d1 offline has taken"))
        #expect(report.contains("waiting for device 1's sync to stop"))
    }

    @Test("a run past its own limit fails, though each phase is in time")
    func stuckRun() async throws {
        let watch = RunWatch("a slow run", limit: .milliseconds(300))
        let error = await #expect(throws: RunStuck.self) {
            try await watched(by: watch) {
                watch.begin("a long step", within: .seconds(60))
                await Self.ignoringCancellation(for: 30)
                return 0
            }
        }
        #expect(try #require(error).description.contains("the run has taken"))
    }

    @Test("an abandoned run's processes are killed")
    func abandonedProcesses() async throws {
        let watch = RunWatch("a run with a server", limit: .seconds(60))
        let sleeper = try ToolProcess.launch(at: URL(fileURLWithPath: "/bin/sleep"), name: "sleep", arguments: ["60"])
        watch.adopt(sleeper)
        _ = try? await watched(by: watch) {
            watch.begin("waiting on the sleeper", within: .milliseconds(100))
            await Self.ignoringCancellation(for: 30)
            return 0
        }
        #expect(await sleeper.exitStatus(within: .seconds(10)) != nil)
    }

    /// An await that ends after `seconds` whatever happens to its task, as one stuck on a
    /// socket that never answers would.
    private static func ignoringCancellation(for seconds: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: seconds)
                continuation.resume()
            }
        }
    }
}
