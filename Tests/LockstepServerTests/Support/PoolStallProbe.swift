import Foundation
import Synchronization

/// Measures how long the test process's cooperative thread pool went without running a task.
///
/// The in-process test server shares that pool with every other test running at the time, and a
/// CPU-bound test can hold both of its threads for most of a second. A deadline the server must
/// keep ("closed within 1 s") is then missed by the scheduler, not by the server: the probe
/// wakes every 10 ms and keeps the longest gap between wake-ups, so a timing check can allow
/// for exactly the time the server could not have run, and still fail when the server is slow
/// on its own.
final class PoolStallProbe: Sendable {
    private let longestGap = Mutex<Duration>(.zero)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init() {
        let probe = Task.detached { [self] in
            var last = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                let now = ContinuousClock.now
                // The 10 ms the probe asked to sleep were not a stall.
                let gap = now - last - .milliseconds(10)
                longestGap.withLock { $0 = max($0, gap) }
                last = now
            }
        }
        task.withLock { $0 = probe }
    }

    /// The longest stretch so far in which the pool ran nothing, in nanoseconds; stops the probe.
    func stop() -> Int64 {
        task.withLock { $0?.cancel() }
        let gap = longestGap.withLock { $0 }
        return gap.components.seconds * 1_000_000_000 + gap.components.attoseconds / 1_000_000_000
    }
}
