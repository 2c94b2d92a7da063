import Synchronization

/// What one subscription of a fan-out run received: the latency of each distinct change, the
/// changes that came more than once, and, if the connection ended, why. The subscription's
/// reading task records; the process's report reads.
final class SubscriptionTally: Sendable {
    private struct State {
        var seen = Set<Int64>()
        var latencies = LatencyHistogram()
        var duplicates = 0
        var first: Int64?
        var last: Int64?
        var ending: String?
    }

    private let state = Mutex(State())

    /// Changes stamped `stamps` arrived at `now` (both unix nanoseconds).
    func record(stamps: [Int64], at now: Int64) {
        guard !stamps.isEmpty else { return }
        state.withLock { state in
            for stamp in stamps {
                guard state.seen.insert(stamp).inserted else {
                    state.duplicates += 1
                    continue
                }
                state.latencies.record(microseconds: Int((now - stamp) / 1000))
            }
            state.first = state.first ?? now
            state.last = now
        }
    }

    /// The connection ended, for `reason`: only the first reason counts.
    func end(_ reason: String) {
        state.withLock { state in state.ending = state.ending ?? reason }
    }

    var distinct: Int { state.withLock { $0.seen.count } }
    var hasEnded: Bool { state.withLock { $0.ending != nil } }

    /// This subscription alone as a summary, for adding up.
    func summary(expectedEach: Int) -> SubscriberSummary {
        state.withLock { state in
            SubscriberSummary(
                subscriptions: 1, expected: expectedEach, deliveries: state.seen.count, duplicates: state.duplicates,
                complete: state.seen.count >= expectedEach ? 1 : 0, dropped: state.ending == nil ? 0 : 1,
                endings: state.ending.map { [$0: 1] } ?? [:], latencies: state.latencies, firstDelivery: state.first, lastDelivery: state.last)
        }
    }
}
