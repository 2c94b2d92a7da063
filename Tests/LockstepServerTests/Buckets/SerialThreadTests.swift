@testable import LockstepServer
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("A thread of jobs run in order")
struct SerialThreadTests {
    @Test("jobs started from many tasks run one at a time, each task's in the order it started them")
    func jobsRunOneAtATimeInOrder() async throws {
        let thread = SerialThread(name: "test")
        let record = Record()
        await withTaskGroup(of: Void.self) { group in
            for submitter in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        for number in 0..<200 {
                            thread.start {
                                record.state.withLock { $0.running += 1; $0.overlapped = $0.overlapped || $0.running > 1 }
                                record.state.withLock { $0.bySubmitter[submitter].append(number); $0.running -= 1 }
                                if number == 199 { done.resume() }
                            }
                        }
                    }
                }
            }
        }
        let result = record.state.withLock { $0 }
        #expect(!result.overlapped)
        #expect(result.bySubmitter.allSatisfy { $0 == Array(0..<200) })
    }

    private final class Record: Sendable {
        let state = Mutex((running: 0, overlapped: false, bySubmitter: [[Int]](repeating: [], count: 8)))
    }

    @Test("a job started while another runs runs on the same thread")
    func aBusyThreadTakesTheNextJob() async throws {
        let thread = SerialThread(name: "test", lingering: 0.05)
        let release = DispatchSemaphore(value: 0)
        let secondRan = Mutex(false)
        thread.start { release.wait() }
        // Queued while the first job holds the thread, which therefore cannot end in between.
        thread.start { secondRan.withLock { $0 = true } }
        release.signal()
        let deadline = ContinuousClock.now + .seconds(20)
        while !secondRan.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(secondRan.withLock { $0 })
        #expect(thread.threads.started == 1)
    }

    @Test("the thread ends once it has lingered with nothing to do, and the next job starts another")
    func theThreadEndsWhenIdleAndRestarts() async throws {
        let thread = SerialThread(name: "test", lingering: 0.05)
        await thread.run {}
        let deadline = ContinuousClock.now + .seconds(20)
        while thread.threads.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!thread.threads.isRunning)
        await thread.run {}
        #expect(thread.threads.started == 2)
    }

    @Test("a task that prefers the thread runs there, before and after each suspension")
    func aTaskThatPrefersTheThreadRunsOnIt() async throws {
        // Told apart by the thread's id, not its name: Linux gives a new thread the name of the
        // thread that made it until it names itself. Lingering long enough that the thread
        // whose id is taken is the one the task meets, however slowly a loaded machine runs.
        let thread = SerialThread(name: "lockstep-test-x", lingering: 600)
        let threadID = await withCheckedContinuation { taken in thread.start { taken.resume(returning: pthread_self()) } }
        let seen = await Task(executorPreference: thread) { () -> [String] in
            func here() -> String { pthread_equal(pthread_self(), threadID) != 0 ? "on the thread" : "on \(currentThreadName() ?? "?")" }
            var places = [here()]
            for _ in 0..<3 {
                // Resumed from elsewhere (a timer): the job comes back to the thread.
                try? await Task.sleep(for: .milliseconds(5))
                places.append(here())
            }
            return places
        }.value
        #expect(seen == Array(repeating: "on the thread", count: 4))
        #expect(thread.threads.started == 1)
    }
}

/// The name of the thread this runs on (`Thread.current` may not be read from async code directly).
private func currentThreadName() -> String? {
    Thread.current.name
}

extension SerialThread {
    fileprivate func run(_ job: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { done in
            start {
                job()
                done.resume()
            }
        }
    }
}
