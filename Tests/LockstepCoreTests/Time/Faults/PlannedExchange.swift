/// One exchange a simulated client makes: when it leaves, how long each leg takes, and whether
/// it closes a round (a burst of exchanges, as the client sends at start and at each re-sync).
struct PlannedExchange {
    var t1: Int64
    var up: Int64
    var down: Int64
    var endsRound: Bool

    /// When the answer arrives.
    var t4: Int64 { t1 + up + ClockTruth.processing + down }

    static let perRound = 8
    static let spacingInRound = 200 * millisecond

    /// Rounds of ``perRound`` exchanges, the gap before each round after the first taken from
    /// `gaps` in turn, each exchange's legs from `legs(index)`.
    static func rounds(_ count: Int, gaps: [Int64], legs: (Int) -> (up: Int64, down: Int64)) -> [PlannedExchange] {
        var plan: [PlannedExchange] = []
        var now = hour
        for round in 0..<count {
            if round > 0 { now += gaps[(round - 1) % gaps.count] }
            for slot in 0..<perRound {
                let (up, down) = legs(plan.count)
                plan.append(PlannedExchange(t1: now, up: up, down: down, endsRound: slot == perRound - 1))
                now += spacingInRound
            }
        }
        return plan
    }
}

let hour: Int64 = 60 * minute
