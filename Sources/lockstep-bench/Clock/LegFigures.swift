/// How the exchanges of many trials actually crossed a link, by their place in the round: what
/// checks that the relay plays the delay model it claims, and shows whether a round's first
/// exchange (which also opens the connection) crosses differently from the rest.
struct LegFigures {
    /// For each place in a round: how many exchanges were there, and the 5th percentile,
    /// median and mean of their up and down legs, in nanoseconds.
    var places: [Place]

    struct Place {
        var count: Int
        var up: Summary
        var down: Summary
    }

    struct Summary {
        var p5: Double
        var median: Double
        var mean: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            p5 = quantile(0.05, of: sorted)
            median = quantile(0.5, of: sorted)
            mean = sorted.reduce(0, +) / Double(max(sorted.count, 1))
        }
    }

    init(_ results: [Result<ClockTrial, any Error>]) {
        let rounds = results.compactMap { try? $0.get().legs }
        let longest = rounds.map(\.count).max() ?? 0
        places = (0..<longest).map { place in
            let legs = rounds.compactMap { $0.indices.contains(place) ? $0[place] : nil }
            return Place(
                count: legs.count,
                up: Summary(legs.map { Double($0.up) }),
                down: Summary(legs.map { Double($0.down) }))
        }
    }

    /// The table, one row per place in the round.
    func lines() -> [String] {
        func cells(_ summary: Summary) -> String {
            [summary.p5, summary.median, summary.mean].map { formatNanoseconds($0).padding(toLength: 10, withPad: " ", startingAt: 0) }.joined()
        }
        var lines = ["  exchange  count   up p5     median    mean      down p5   median    mean"]
        for (index, place) in places.enumerated() {
            lines.append("  " + String(index + 1).padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(place.count).padding(toLength: 8, withPad: " ", startingAt: 0) + cells(place.up) + cells(place.down))
        }
        return lines
    }
}
