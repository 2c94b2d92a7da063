import DequeModule
import Foundation

/// A thread of its own that runs jobs one at a time, in the order they were started: the
/// ``ChangeWriter``'s two stages, committing groups (with a store that commits by blocking) and
/// announcing and answering them, each run on one.
///
/// Committing on a thread saves a change two trips between threads. Through GRDB's
/// asynchronous `write`, a commit leaves the writer's task for GRDB's dispatch queue and comes
/// back: two wakeups and context switches a change, when one change is a group (a light load).
/// GRDB's blocking `write` runs on the thread that calls it.
///
/// The thread starts with the first job and ends once it has had nothing to do for
/// ``lingering`` seconds, so its owner needs no shutdown and an idle server holds no thread.
final class SerialThread: @unchecked Sendable {
    /// What the thread is called (in `top -H`, `perf`, a debugger); Linux keeps 15 bytes of it.
    let name: String
    /// How long the thread waits for another job before it ends.
    let lingering: TimeInterval

    // Guards `jobs` and `isRunning`; `NSCondition` rather than `Mutex` because the thread
    // sleeps on it between jobs.
    private let condition = NSCondition()
    private var jobs: Deque<@Sendable () -> Void> = []
    private var isRunning = false
    private var threadsStarted = 0

    init(name: String, lingering: TimeInterval = 1) {
        self.name = name
        self.lingering = lingering
    }

    /// Runs `job` on the thread, after the jobs started before it.
    func start(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let startsThread = !isRunning
        isRunning = true
        if startsThread { threadsStarted += 1 }
        condition.unlock()
        // Signalled after unlocking: a thread woken while the lock is held wakes only to wait
        // for the lock, and sleeps again.
        if !startsThread { condition.signal() }
        if startsThread {
            Thread { [self] in
                // Named from the thread itself: Linux names only the calling thread.
                Thread.current.name = name
                runJobs()
            }.start()
        }
    }

    /// How many threads this has started, one after another, and whether one runs now (there
    /// is never more than one).
    var threads: (started: Int, isRunning: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (threadsStarted, isRunning)
    }

    private func runJobs() {
        while let job = nextJob() { job() }
    }

    /// The next job, waiting up to ``lingering`` for one; `nil` ends the thread.
    private func nextJob() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: lingering)
        while jobs.isEmpty {
            guard condition.wait(until: deadline) || !jobs.isEmpty else {
                isRunning = false
                return nil
            }
        }
        return jobs.removeFirst()
    }
}
