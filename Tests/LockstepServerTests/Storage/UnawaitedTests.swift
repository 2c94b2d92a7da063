@testable import LockstepPostgres
import Synchronization
import Testing

/// `unawaited(within:_:)`: the relay's guard against PostgresNIO calls that never return.
@Suite("Waiting for calls that may never return")
struct UnawaitedTests {
    @Test func anAnswerInTimeIsReturned() async {
        let answer = await unawaited(within: .seconds(30)) { 42 }
        #expect(answer == 42)
    }

    @Test(.timeLimit(.minutes(1))) func aCallThatNeverReturnsIsLeftBehindAtTheLimit() async {
        let call = UnansweredCall()
        defer { call.answer() }
        let started = ContinuousClock.now
        let answer = await unawaited(within: .milliseconds(200)) { await call.make() }
        #expect(answer == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheCallerEndsTheWaitAtOnce() async {
        let call = UnansweredCall()
        defer { call.answer() }
        let waiting = Task { await unawaited(within: .seconds(3600)) { await call.make() } }
        try? await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == nil)
    }
}

/// A call that ignores cancellation and returns only when the test lets it, as a query
/// sent on a connection that has just closed.
private final class UnansweredCall: Sendable {
    private let callers = Mutex<[CheckedContinuation<Int, Never>]>([])

    func make() async -> Int {
        await withCheckedContinuation { caller in callers.withLock { $0.append(caller) } }
    }

    func answer() {
        for caller in callers.withLock({ callers in defer { callers = [] }; return callers }) { caller.resume(returning: 0) }
    }
}
