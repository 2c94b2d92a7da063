import Foundation
import Synchronization

/// Measures how long the test process's cooperative thread pool went without running a task.
///
/// The in-process test server shares that pool with every other test running at the time, and a
/// CPU-bound test can hold both of its threads for most of a second. A deadline the server must
/// keep ("closed within 1 s") is then missed by the scheduler, not by the server: the probe
/// wakes every 10 ms and keeps the gaps between wake-ups, so a timing check can allow
/// for exactly the time the server could not have run, and still fail when the server is slow
/// on its own. The gaps are added up: a deadline is missed by every stall within it, not only
/// by the longest (a loaded run missed one by 8 ms, its longest stall 1.38 s). A wake-up late
/// by a millisecond or less is a timer's jitter, not a stall.
final class PoolStallProbe: Sendable {
    private let stalled = Mutex<Duration>(.zero)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init() {
        let probe = Task.detached { [self] in
            var last = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                let now = ContinuousClock.now
                // The 10 ms the probe asked to sleep were not a stall.
                let gap = now - last - .milliseconds(10)
                if gap > .milliseconds(1) { stalled.withLock { $0 += gap } }
                last = now
            }
        }
        task.withLock { $0 = probe }
    }

    /// How long, in all, the pool ran nothing so far; the probe goes on.
    var stalledSoFar: Duration {
        stalled.withLock { $0 }
    }

    /// How long, in all, the pool ran nothing so far, in nanoseconds; stops the probe.
    func stop() -> Int64 {
        task.withLock { $0?.cancel() }
        let gap = stalled.withLock { $0 }
        return gap.components.seconds * 1_000_000_000 + gap.components.attoseconds / 1_000_000_000
    }
}
