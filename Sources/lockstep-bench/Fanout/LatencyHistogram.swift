/// Latencies in microseconds, counted in buckets of three significant digits: 1 µs wide up to
/// 1 ms, then 1 % of the value. A subscriber process sends its whole distribution to the
/// parent in a few hundred numbers, however many deliveries it measured, and the parent adds
/// the processes' together.
struct LatencyHistogram: Codable, Sendable {
    /// Each bucket's lowest latency (µs), and how many latencies fell in it.
    private(set) var buckets: [Int: Int] = [:]
    private(set) var count = 0
    /// The highest latency recorded, exactly.
    private(set) var maximum = 0

    mutating func record(microseconds: Int) {
        // The wall clock may step back between a stamp and its reading: count that as no delay.
        let value = max(0, microseconds)
        buckets[Self.bucket(of: value), default: 0] += 1
        count += 1
        maximum = max(maximum, value)
    }

    mutating func add(_ other: LatencyHistogram) {
        buckets.merge(other.buckets, uniquingKeysWith: +)
        count += other.count
        maximum = max(maximum, other.maximum)
    }

    /// The latency (µs, the floor of its bucket) at `fraction` of the sorted latencies, ranked
    /// as `FanoutRound.Result.percentile` ranks them; 0 when none was recorded.
    func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        let rank = Int((fraction * Double(count - 1)).rounded())
        var seen = 0
        for (floor, number) in buckets.sorted(by: { $0.key < $1.key }) {
            seen += number
            if seen > rank { return min(floor, maximum) }
        }
        return maximum
    }

    private static func bucket(of value: Int) -> Int {
        guard value >= 1000 else { return value }
        var width = 1
        while value / width >= 1000 { width *= 10 }
        return value / width * width
    }
}
