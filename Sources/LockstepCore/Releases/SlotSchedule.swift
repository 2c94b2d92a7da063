/// When each slot of a store changes item: a pure function of the seed, so any moment's
/// entries are computed directly, without replaying the past.
///
/// Time is cut into periods of `P = min + w` seconds with `w = ⌊(max − min) / 2⌋`, shifted by
/// a per-slot phase. The n-th change of a slot happens `u(n)` seconds into the n-th period,
/// with `u(n)` drawn from `0…w`. Two changes in a row are then `P + u(n+1) − u(n)` apart:
/// always within `[min, min + 2w] ⊆ [min, max]`, with mean `P`, and any change found with two
/// draws. Slots have their own phases, so the grid does not turn over all at once.
public struct SlotSchedule: Sendable {
    let random: ReleaseRandom
    /// The period in seconds.
    let period: Int64
    /// The spread of a change within its period, in seconds.
    let spread: Int64
    /// Each slot's shift of the periods, in seconds.
    let phases: [Int64]

    public init(shelfLife: ShelfLife, slots: Int, random: ReleaseRandom) {
        self.random = random
        let spread = Int64(shelfLife.maximumSeconds - shelfLife.minimumSeconds) / 2
        let period = Int64(shelfLife.minimumSeconds) + spread
        self.spread = spread
        self.period = period
        phases = (0..<slots).map { slot in Int64(random.uniform(below: UInt64(period), "phase|\(slot)")) }
    }

    /// When change number `n` of `slot` happens, in milliseconds since the Unix epoch.
    public func change(_ n: Int64, slot: Int) -> Int64 {
        let offset = Int64(random.uniform(below: UInt64(spread + 1), "jitter|\(slot)|\(n)"))
        return (phases[slot] + n * period + offset) * 1000
    }

    /// The number of the change that started what `slot` shows at `time` (ms).
    public func changeNumber(slot: Int, at time: Int64) -> Int64 {
        let seconds = ChainPosition.floorDivide(time, 1000)
        let n = ChainPosition.floorDivide(seconds - phases[slot], period)
        // Change n falls somewhere in its period; before it, the previous change still holds.
        return change(n, slot: slot) <= time ? n : n - 1
    }
}
