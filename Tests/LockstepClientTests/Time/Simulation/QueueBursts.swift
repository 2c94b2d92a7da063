/// Bursts of bufferbloat on a downlink: most of the time nothing, but each exchange has a 2 %
/// chance of starting a burst, during which, for 10 to 40 exchanges, every packet waits another
/// 100 to 400 ms behind a full buffer (milliseconds, drawn afresh for each exchange).
struct QueueBursts {
    /// Exchanges left in the burst under way.
    private var remaining = 0

    /// The extra delay of the next exchange's down leg, in milliseconds.
    mutating func extraDelay(using random: inout SeededRandom) -> Double {
        if remaining == 0, Double.random(in: 0..<1, using: &random) < 0.02 {
            remaining = Int.random(in: 10...40, using: &random)
        }
        guard remaining > 0 else { return 0 }
        remaining -= 1
        return Double.random(in: 100...400, using: &random)
    }
}
